package sandbox

import (
	"os"
	"path/filepath"
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

// floorPast reports whether every ctime the kernel stamps from now on is
// later than t, so that picket need not wait for the coarse clock to
// pass t (see [waitPast]). With multigrain timestamps (Linux 6.13 on) the
// kernel hands out a fine-grained ctime to a change of a file whose ctime
// was looked at since the coarse clock last moved, and raises a floor to
// it: every ctime stamped after, on any filesystem, is at least that
// floor. So it changes a file of its own in the state dir (a truncation to
// the size it has), looks at its ctime, and again, twice at most: once
// that ctime is past t, so is every later one. On an older kernel the
// ctime stays on the coarse clock, which has not passed t, and the
// caller waits as before.
func floorPast(stateDir string, t time.Time) bool {
	if stateDir == "" {
		return false
	}
	fd, err := unix.Open(filepath.Join(stateDir, "sandbox", "clock"), unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	// A microsecond past t, for filesystems that keep microseconds.
	past := t.Add(2 * time.Microsecond)
	for range 3 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || unix.Ftruncate(fd, st.Size) != nil || unix.Fstat(fd, &st) != nil {
			return false
		}
		// Past t, and not ahead of this machine's clock (a state dir on a
		// network filesystem stamps the server's time).
		if c := time.Unix(st.Ctim.Sec, st.Ctim.Nsec); c.After(past) && !c.After(time.Now()) {
			return true
		}
	}
	return false
}
