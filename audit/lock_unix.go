//go:build unix

package audit

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func lockShared(f *os.File, deadline time.Time) error {
	return flockBy(f, unix.LOCK_SH, deadline)
}

func lockExclusive(f *os.File, deadline time.Time) error {
	return flockBy(f, unix.LOCK_EX, deadline)
}

func unlock(f *os.File) error { return flock(f, unix.LOCK_UN) }

// tryLockShared reports false, with no error, when another process holds
// f exclusively.
func tryLockShared(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_SH|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// tryLockExclusive reports false, with no error, when another process holds
// a lock on f.
func tryLockExclusive(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockWait bounds the wait for the log's locks, all of them together, in
// one [Log.Append]: a process that holds one and hangs (or a person's
// flock) must cost neither the call's answer (the hook's deadline would
// turn an allow into a deny) nor the line, which then goes to a spill file.
var lockWait = 3 * time.Second

// heldError is a lock that was not had by the deadline.
type heldError struct{ name string }

func (e *heldError) Error() string {
	return fmt.Sprintf("the audit log's lock %s is held by another process", e.name)
}

// flockBy takes the lock how, waiting until deadline at most. It polls:
// a blocking flock(2) cannot be given a deadline.
func flockBy(f *os.File, how int, deadline time.Time) error {
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		err := flock(f, how|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return &heldError{name: f.Name()}
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
