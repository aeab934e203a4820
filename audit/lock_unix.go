//go:build unix

package audit

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func lockShared(f *os.File) error    { return flock(f, unix.LOCK_SH) }
func lockExclusive(f *os.File) error { return flock(f, unix.LOCK_EX) }
func unlock(f *os.File) error        { return flock(f, unix.LOCK_UN) }

// tryLockExclusive reports false, with no error, when another process holds
// a lock on f.
func tryLockExclusive(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			if err != nil {
				return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}

// writeOnce writes b with exactly one write(2): os.File.Write would retry a
// short write with a second call, which another appender could interleave.
func writeOnce(f *os.File, b []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		n, werr = unix.Write(int(fd), b)
		return werr != unix.EAGAIN
	}); err != nil {
		return err
	}
	if werr != nil {
		return &os.PathError{Op: "write", Path: f.Name(), Err: werr}
	}
	if n != len(b) {
		return fmt.Errorf("short write to %s (%d of %d bytes): %w", f.Name(), n, len(b), io.ErrShortWrite)
	}
	return nil
}
