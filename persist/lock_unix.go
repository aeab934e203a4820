//go:build unix

package persist

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockDir takes an exclusive flock(2) on dir itself and returns its release.
// It blocks until any other holder, in this or another process, lets go.
func lockDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to lock %s: %w", dir, err)
	}
	for {
		err = unix.Flock(int(d.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("failed to lock: %w", &os.PathError{Op: "flock", Path: dir, Err: err})
	}
	return func() { d.Close() }, nil
}

// writable reports, as an error keeping its errno, whether this process may
// replace file (write its directory, and the file when it exists): the
// tmp-and-rename write needs both.
func writable(file string, exists bool) error {
	names := []string{filepath.Dir(file)}
	if exists {
		names = append(names, file)
	}
	for _, name := range names {
		if err := mayWrite(file, name); err != nil {
			return err
		}
	}
	return nil
}

// mayWrite reports, as an error naming file and keeping its errno, whether
// this process may write name by the kernel's own rule (access(2) with
// W_OK: root passes a read-only mode, as its writes would).
func mayWrite(file, name string) error {
	if err := unix.Access(name, unix.W_OK); err != nil {
		return fmt.Errorf("cannot write %s: %w", file, &fs.PathError{Op: "access", Path: name, Err: err})
	}
	return nil
}
