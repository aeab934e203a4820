//go:build unix

package grants

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens a session file without following a symlink and
// without blocking on a FIFO.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// ours reports whether fi, the metadata of name, is owned by the effective
// uid and not writable by group or others; the error wraps [ErrUntrusted].
func ours(name string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: cannot read the owner of %s", ErrUntrusted, name)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUntrusted, name, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (mode %v)", ErrUntrusted, name, fi.Mode().Perm())
	}
	return nil
}

// ownedByMe reports whether fi is owned by the effective uid.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
