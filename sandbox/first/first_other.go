//go:build !linux

package first

import (
	"fmt"
	"io"
	"runtime"
)

// Main refuses on this platform: the sandbox is Linux only.
func Main(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "picket: error: the shell sandbox needs Linux (bubblewrap and Landlock); %s is not supported yet\n", runtime.GOOS)
	return 126
}

// ABI is 0: Landlock is Linux only.
func ABI() int { return 0 }
