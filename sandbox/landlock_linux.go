//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock layer is written on golang.org/x/sys/unix: it restricts
// only the calling OS thread, which then forks the command, so it needs
// none of go-landlock's all-threads machinery (libcap's psx).

// Landlock's write rights by the ABI that introduced them. Reads are the
// mounts' business; Landlock only handles writes and, from ABI 9,
// connecting to path sockets.
const (
	llWriteV1 = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llFileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// handledFS returns the rights the sandbox handles under abi.
func handledFS(abi int) uint64 {
	h := uint64(llWriteV1)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 9 {
		h |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return h
}

// rulesetAttr is landlock_ruleset_attr up to ABI 6; the kernel accepts
// it from every ABI, the fields it does not know being zero.
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// LandlockABI returns the kernel's Landlock ABI version, 0 when Landlock
// is unavailable.
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// restrict applies the Landlock layer to the calling thread (best effort:
// with abi 0 it does nothing): writes only below write, connect(2) to path
// sockets only there and to sockets (ABI 9), abstract unix sockets and
// signals only within the sandbox (ABI 6).
func restrict(abi int, write, sockets []string) error {
	if abi < 1 {
		return nil
	}
	handled := handledFS(abi)
	attr := rulesetAttr{handledFS: handled}
	if abi >= 6 {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, w := range write {
		fi, err := os.Stat(w)
		if err != nil {
			continue // not in this sandbox: nothing to allow
		}
		rights := handled
		if !fi.IsDir() {
			rights &= llFileRights
		}
		if err := addRule(int(fd), w, rights); err != nil {
			return err
		}
	}
	if abi >= 9 {
		for _, s := range sockets {
			if err := addRule(int(fd), filepath.Dir(s), unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

func addRule(rulesetFD int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}
