//go:build !unix

package grants

import (
	"fmt"
	"runtime"
)

func (s Store) lock(base string) (func(), error) {
	return nil, fmt.Errorf("session grants are not supported on %s", runtime.GOOS)
}
