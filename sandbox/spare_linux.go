//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Placeholders are made and removed around every sandbox, and on a
// filesystem that allocates and frees a block per directory (ext4, with
// discard on the benchmark's machine) that costs 0.1 ms a directory each
// way. So an empty placeholder the last sandbox leaves is not removed but
// renamed into a spare directory in picket's state dir (which no sandbox
// can write), and the next placeholder is one of those, renamed into
// place: a rename allocates and frees nothing. Where a rename cannot be
// done (the workspace on another filesystem than the state dir) the
// placeholder is made and removed as before.

// maxSpares bounds the directories kept for placeholders.
const maxSpares = 64

// spares is the spare directories of one state dir, listed once.
type spares struct {
	dir   string
	names []string
}

func listSpares(stateDir string) *spares {
	s := &spares{dir: filepath.Join(stateDir, "sandbox", "spare")}
	if f, err := os.Open(s.dir); err == nil {
		s.names, _ = f.Readdirnames(-1)
		f.Close()
	}
	return s
}

// place puts a spare directory at m, which does not exist: it returns
// nil once one is there, os.ErrExist when m exists now, os.ErrNotExist
// when m's directory went, and any other error when no spare could be
// used (the caller then makes m).
func (s *spares) place(m string) error {
	for len(s.names) > 0 {
		name := filepath.Join(s.dir, s.names[0])
		if !emptyDir(name) {
			// Not a directory picket left empty (the state dir is the
			// person's): a placeholder shows its contents to the sandbox
			// and, should it stay, in the workspace. Never used.
			s.names = s.names[1:]
			continue
		}
		err := unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, m, unix.RENAME_NOREPLACE)
		switch {
		case err == nil:
			s.names = s.names[1:]
			if fi, err := os.Lstat(m); err != nil || !fi.IsDir() {
				// Not what picket put there (a spare replaced in its
				// state dir): gone, and made afresh.
				os.Remove(m)
				return errors.New("not a directory")
			}
			return nil
		case errors.Is(err, unix.EEXIST):
			return os.ErrExist
		case errors.Is(err, unix.ENOENT):
			if _, err := os.Lstat(filepath.Dir(m)); err != nil {
				return os.ErrNotExist
			}
			s.names = s.names[1:] // taken by another sandbox meanwhile
		default:
			return err // another filesystem, most often
		}
	}
	return errors.New("no spare directory")
}

var spareSeq atomic.Uint64

// keep moves the placeholder m, an empty directory, into the spare
// directories, or removes it; one that is not empty (the person wrote
// into it while the sandbox ran) is left where it is, as rmdir leaves it.
func (s *spares) keep(m string) {
	if len(s.names) >= maxSpares || !emptyDir(m) {
		unix.Rmdir(m)
		return
	}
	if os.Mkdir(s.dir, 0o700) != nil {
		if fi, err := os.Lstat(s.dir); err != nil || !fi.IsDir() {
			unix.Rmdir(m)
			return
		}
	}
	name := filepath.Join(s.dir, fmt.Sprintf("%d-%d-%d", os.Getpid(), time.Now().UnixNano(), spareSeq.Add(1)))
	if unix.Renameat2(unix.AT_FDCWD, m, unix.AT_FDCWD, name, unix.RENAME_NOREPLACE) != nil {
		unix.Rmdir(m)
		return
	}
	if !emptyDir(name) {
		// Written into between the look and the rename: back where it
		// was, or, should that name be taken meanwhile too, beside it.
		if unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, m, unix.RENAME_NOREPLACE) != nil {
			unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, fmt.Sprintf("%s.picket-%d", m, time.Now().UnixNano()), unix.RENAME_NOREPLACE)
		}
		return
	}
	s.names = append(s.names, filepath.Base(name))
}

// emptyDir reports whether p is a directory (not a symlink to one) with
// no entries.
func emptyDir(p string) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}
