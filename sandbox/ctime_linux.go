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

// coarseTick is the coarse clock's resolution: the kernel's tick.
func coarseTick() time.Duration {
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &ts) != nil || ts.Nano() <= 0 {
		return 4 * time.Millisecond
	}
	return time.Duration(ts.Nano())
}

// ctimeCeiling is the latest ctime a change made before now can carry.
// The kernel stamps ctimes from the coarse clock, but with multigrain
// timestamps (Linux 6.13 on) a file whose ctime was looked at since its
// last change gets a fine-grained one next, up to a tick ahead of the
// coarse clock and never ahead of the fine one.
func ctimeCeiling() time.Time {
	now, c := time.Now(), coarseNow()
	if c.After(now) {
		return c
	}
	return now
}
