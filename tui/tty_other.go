//go:build !linux

package tui

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ancestorReads reports whether picket's parent reads the terminal f as
// its stdin. Only Linux walks every ancestor in the terminal's foreground
// process group (tty_linux.go); here the check needs /proc/<ppid>/fd/0,
// and without it the tty surface is used.
func ancestorReads(f *os.File) bool {
	var mine, theirs unix.Stat_t
	if unix.Fstat(int(f.Fd()), &mine) != nil {
		return true
	}
	if unix.Stat(fmt.Sprintf("/proc/%d/fd/0", os.Getppid()), &theirs) != nil {
		return false
	}
	return mine.Rdev == theirs.Rdev && theirs.Mode&unix.S_IFMT == unix.S_IFCHR
}
