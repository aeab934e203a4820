//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

func unsupported() error {
	return &UnavailableError{What: fmt.Sprintf("the shell sandbox needs Linux (bubblewrap and Landlock); %s is not supported yet", runtime.GOOS)}
}

// Run returns an error naming the platform: the sandbox is Linux only.
func Run(p Plan, r Runner, cmd []string) (int, error) { return 0, unsupported() }

// Probe reports nothing usable on this platform.
func Probe(path, probe string) Status { return Status{Unsupported: runtime.GOOS} }
