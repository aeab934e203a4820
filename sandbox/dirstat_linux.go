package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statDir returns a directory's device, inode and ctime (ns), without
// following a symlink; ok is false when it is gone or no directory.
func statDir(path string) (dev, ino uint64, ct int64, ok bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, 0, 0, false
	}
	return st.Dev, st.Ino, st.Ctim.Nano(), true
}

// openDir opens a directory for reading, never through a symlink.
func openDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func device(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Dev
	}
	return 0
}
