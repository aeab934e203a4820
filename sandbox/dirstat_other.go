//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// statDir returns a directory's inode and change time as this platform
// has them; the sandbox runs on Linux only.
func statDir(path string) (dev, ino uint64, ct int64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return 0, 0, 0, false
	}
	return 0, inode(fi), ctime(fi).UnixNano(), true
}

// openDir opens a directory for reading.
func openDir(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", path)
	}
	return os.Open(path)
}

func device(fi os.FileInfo) uint64 { return 0 }
