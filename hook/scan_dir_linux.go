//go:build linux

package hook

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readEntries lists the directory at path with getdents64, the way the
// search tools read it: each entry's name and type as the kernel reports
// them, with no stat apiece (an entry is lstat'ed only on a filesystem
// that reports no type). buf is the caller's and is reused; the entries
// are appended to out. The directory is opened without following a link
// in its last name: path is resolved, and a directory swapped for a link
// since is not read through.
func readEntries(path string, buf []byte, out []entry) ([]entry, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	if err != nil {
		return out, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "getdents", Path: path, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		out = parseDirents(path, buf[:n], out)
	}
}

// parseDirents appends the entries of a getdents64 buffer: each record is
// d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), then the name and
// a NUL.
func parseDirents(dir string, b []byte, out []entry) []entry {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			return out // a record the kernel did not write: stop, as ReadDir would
		}
		rec := b[:reclen]
		b = b[reclen:]
		if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
			continue // a deleted entry
		}
		name := rec[19:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := entry{name: string(name), typ: direntType(rec[18])}
		if rec[18] == unix.DT_UNKNOWN {
			e.typ = lstatType(joinPath(dir, e.name))
		}
		out = append(out, e)
	}
	return out
}

func direntType(t byte) fs.FileMode {
	switch t {
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_REG:
		return 0
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// lstatType is the type of an entry whose filesystem reported none; one
// gone since counts as a plain file (judged by its name, walked into never).
func lstatType(p string) fs.FileMode {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0
	}
	return fi.Mode().Type()
}
