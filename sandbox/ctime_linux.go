package sandbox

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ctime is when fi's inode last changed; only the kernel sets it.
func ctime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}

// coarseNow reads the clock the kernel stamps ctimes from.
func coarseNow() time.Time {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return time.Now()
	}
	return time.Unix(ts.Unix())
}
