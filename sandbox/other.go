//go:build !linux

package sandbox

import (
	"fmt"
	"io"
	"runtime"
)

func unsupported() error {
	return &UnavailableError{What: fmt.Sprintf("the shell sandbox needs Linux (bubblewrap and Landlock); %s is not supported yet", runtime.GOOS)}
}

// Run returns an error naming the platform: the sandbox is Linux only.
func Run(p Plan, r Runner, cmd []string) (int, error) { return 0, unsupported() }

// Inner refuses on this platform.
func Inner(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "picket: error: %v\n", unsupported())
	return 126
}

// Probe reports nothing usable on this platform.
func Probe(path, probe string) Status { return Status{Unsupported: runtime.GOOS} }

// LandlockABI is 0: Landlock is Linux only.
func LandlockABI() int { return 0 }
