//go:build unix

package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockExclusive takes an exclusive flock(2) on f, waiting for it.
func lockExclusive(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// tryLockExclusive takes an exclusive flock(2) on f if no one holds one.
func tryLockExclusive(f *os.File) bool {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
