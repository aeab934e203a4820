package sandbox

import (
	"os"
	"syscall"
	"time"
)

// ctime is when fi's inode last changed; only the kernel sets it.
func ctime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
