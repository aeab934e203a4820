//go:build unix

package audit

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether fi is owned by the effective user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
