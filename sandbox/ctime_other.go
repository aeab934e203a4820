//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// ctime falls back to the modification time where picket does not read
// the inode's change time (the sandbox runs on Linux only).
func ctime(fi os.FileInfo) time.Time { return fi.ModTime() }

// coarseNow is the clock the sandbox's bookkeeping uses.
func coarseNow() time.Time { return time.Now() }

// ctimeCeiling is the latest ctime a change made before now can carry.
func ctimeCeiling() time.Time { return time.Now() }
