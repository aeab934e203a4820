//go:build !unix

package persist

import (
	"fmt"
	"runtime"
)

func lockDir(dir string) (func(), error) {
	return nil, fmt.Errorf("failed to lock %s: persisting grants is not supported on %s", dir, runtime.GOOS)
}

func writable(file string, exists bool) error {
	return fmt.Errorf("cannot write %s: persisting grants is not supported on %s", file, runtime.GOOS)
}

func mayWrite(file, name string) error {
	return fmt.Errorf("cannot write %s: persisting grants is not supported on %s", file, runtime.GOOS)
}
