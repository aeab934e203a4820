//go:build unix

package grants

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock(2) on <Dir>/<base>.lock and returns its
// release. The lock file may be deleted by [Store.End] or [Store.Prune]
// while another process waits on it, so after locking the open file must
// still be the one at the path; if not, lock again.
func (s Store) lock(base string) (unlock func(), err error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	name := s.path(base, ".lock")
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("failed to lock session: %w", err)
		}
		if err := flock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("failed to lock session: %w", &os.PathError{Op: "flock", Path: name, Err: err})
		}
		held, err1 := f.Stat()
		now, err2 := os.Lstat(name)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() { f.Close() }, nil
		}
		f.Close()
	}
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
