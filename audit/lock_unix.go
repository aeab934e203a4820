//go:build unix

package audit

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func lockShared(f *os.File) error    { return flockWithin(f, unix.LOCK_SH, lockWait) }
func lockExclusive(f *os.File) error { return flockWithin(f, unix.LOCK_EX, lockWait) }
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

// lockWait bounds the wait for the log's lock: a process that holds it
// and hangs (or a person's flock) must cost the line, never the call's
// answer (the hook's deadline would turn an allow into a deny).
var lockWait = 3 * time.Second

// flockWithin takes the lock how, waiting at most wait.
func flockWithin(f *os.File, how int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		err := flock(f, how|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the audit log's lock %s is held by another process: waited %v", f.Name(), wait)
		}
		time.Sleep(pause)
	}
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
		return &shortWriteError{path: f.Name(), wrote: b[:n], want: len(b)}
	}
	return nil
}
