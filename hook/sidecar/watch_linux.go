package sidecar

import (
	"errors"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher turns changes to the policy files (and to the places discovery
// looks), and any mount or unmount, into a generation number, with inotify
// and /proc/self/mountinfo. Polling it is one
// non-blocking read, where stat-checking every place would be a dozen
// syscalls per request.
type watcher struct {
	fd int
	// mounts is /proc/self/mountinfo, which polls as changed after a
	// mount or unmount in this mount namespace: inotify sees neither, and
	// a mount can put another policy, or another directory, where a
	// cached one was read.
	mounts int
	mu     sync.Mutex
	gen    atomic.Uint64
	// stale is set by any change: the watches are dropped before the next
	// is made (see dropAll).
	stale bool
	// afterReads: the serve loop polls after every read of its input
	// (see [watcher.afterRead]), so a lookup needs no syscall of its own.
	afterReads atomic.Bool
	dirs       map[string]*watchedDir
	byWD       map[int32]*watchedDir
	buf        []byte
}

// watchedDir is one inotify watch: any change to names in it matters
// (policy files), and a change of the entry itself (made, removed,
// renamed, its mode or owner changed) to entries (paths the policy was
// resolved against, whose content does not matter).
type watchedDir struct {
	path    string
	wd      int32
	names   map[string]bool
	entries map[string]bool
}

// entryMask are the events that change what an entry is.
const entryMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_ATTRIB | unix.IN_MOVED_FROM | unix.IN_MOVED_TO

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// newWatcher returns nil when inotify is not available: the cache then
// stats every file on every lookup.
func newWatcher() *watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(fd)
		return nil // without it, a mount would go unseen: stat everything
	}
	w := &watcher{fd: fd, mounts: mounts, dirs: map[string]*watchedDir{}, byWD: map[int32]*watchedDir{}, buf: make([]byte, 64<<10)}
	w.mountsChanged() // the first poll reports the table as new
	return w
}

// mountsChanged reports whether a mount or unmount happened in this
// mount namespace since it was last asked (or it cannot tell).
func (w *watcher) mountsChanged() bool {
	fds := []unix.PollFd{{Fd: int32(w.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR|unix.POLLNVAL) != 0
}

// watch makes a change to path show in the generation. A directory on the
// way that does not exist yet is watched from its nearest existing parent,
// for the name that would create it. It reports false when path cannot be
// watched (the caller stats it instead).
func (w *watcher) watch(path string) bool { return w.watchAs(path, true) }

// watchEntry is watch for a path whose content does not matter, only
// what the entry is: a file rewritten in place does not count.
func (w *watcher) watchEntry(path string) bool { return w.watchAs(path, false) }

func (w *watcher) watchAs(path string, content bool) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stale {
		w.dropAll()
	}
	for p := filepath.Clean(path); ; {
		dir, name := filepath.Dir(p), filepath.Base(p)
		err := w.add(dir, name, content)
		switch {
		case err == nil:
			if content {
				w.addSelf(p)
			}
			return w.watchAbove(dir)
		case dir == p || !(errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR)):
			return false
		}
		p = dir
		content = false // a missing parent matters by its making
	}
}

// watchAbove watches every directory from dir up for the name its parent
// gives it. A watch is made through the path as spelled then: a symlink
// on the way pointed elsewhere, or a directory above renamed, leaves it on
// a directory the path no longer names, and that change shows only here.
func (w *watcher) watchAbove(dir string) bool {
	for d := dir; ; {
		parent := filepath.Dir(d)
		if parent == d {
			return true
		}
		if w.add(parent, filepath.Base(d), false) != nil {
			return false
		}
		d = parent
	}
}

// dropAll removes every watch: after a change, a path may name another
// directory than the one its watch was made on, so the next watches are
// made afresh. The generation moves on: a snapshot taken since the change
// was polled (one for a directory first looked up then, or being loaded)
// was stamped with the watches dropped here, and nothing watches its
// files now.
func (w *watcher) dropAll() {
	for wd := range w.byWD {
		unix.InotifyRmWatch(w.fd, uint32(wd))
	}
	clear(w.byWD)
	clear(w.dirs)
	w.stale = false
	w.gen.Add(1)
}

func (w *watcher) add(dir, name string, content bool) error {
	d := w.dirs[dir]
	if d == nil {
		wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
		if err != nil {
			return err
		}
		if d = w.byWD[int32(wd)]; d == nil { // the same dir by another name
			d = &watchedDir{path: dir, wd: int32(wd), names: map[string]bool{}, entries: map[string]bool{}}
			w.byWD[d.wd] = d
		}
		w.dirs[dir] = d
	}
	if content {
		d.names[name] = true
	} else {
		d.entries[name] = true
	}
	return nil
}

// addSelf watches the file at p itself: a write through another hard
// link of it shows in no directory watched here. A file that is missing
// is watched from its directory only, for its making.
func (w *watcher) addSelf(p string) {
	if w.dirs[p] != nil {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, p, watchMask&^unix.IN_ONLYDIR)
	if err != nil {
		return
	}
	d := w.byWD[int32(wd)]
	if d == nil {
		d = &watchedDir{path: p, wd: int32(wd), names: map[string]bool{}, entries: map[string]bool{}}
		w.byWD[d.wd] = d
	}
	w.dirs[p] = d
}

// forgetAll drops every watch before the next is made, as a change does:
// the cache forgot the directories they were made for. Every snapshot
// is stale then.
func (w *watcher) forgetAll() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changed()
}

// close releases the inotify instance.
func (w *watcher) close() {
	if w != nil {
		unix.Close(w.fd)
		unix.Close(w.mounts)
	}
}

// poll reads the events queued so far and returns the generation: it grows
// with every change to a watched name, and with anything that loses track
// (a watched directory gone or moved, an event queue overflow).
func (w *watcher) poll() uint64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mountsChanged() {
		w.changed()
	}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return w.gen.Load()
		}
		w.events(w.buf[:n])
	}
}

// current is the generation as of now, for a lookup. Once the serve loop
// polls after each read of its input, the generation polled then is
// current for every request that read brought: those requests were sent
// after any change their sender made, so the change was queued before
// the read returned, and the poll after it drained it.
func (w *watcher) current() uint64 {
	if w != nil && w.afterReads.Load() {
		return w.gen.Load()
	}
	return w.poll()
}

// afterRead wraps the serve loop's input so that each read is followed by
// a poll, and lookups stop polling on their own.
func (w *watcher) afterRead(r io.Reader) io.Reader {
	if w == nil {
		return r
	}
	w.afterReads.Store(true)
	return pollingReader{r, w}
}

type pollingReader struct {
	r io.Reader
	w *watcher
}

func (p pollingReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.w.poll()
	return n, err
}

func (w *watcher) events(b []byte) {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		name := string(trimNUL(b[unix.SizeofInotifyEvent:min(end, len(b))]))
		b = b[min(end, len(b)):]
		d := w.byWD[ev.Wd]
		switch {
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			w.changed()
		case d == nil:
		case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
			w.changed()
			w.forget(d)
		case name == "" || d.names[name] || d.entries[name] && ev.Mask&entryMask != 0:
			w.changed()
		}
	}
}

// changed moves the generation on; the watches are made again before
// the next one (w.mu held).
func (w *watcher) changed() {
	w.gen.Add(1)
	w.stale = true
}

// forget drops a watch whose directory is gone, so the next watch of a
// path below it adds a fresh one.
func (w *watcher) forget(d *watchedDir) {
	unix.InotifyRmWatch(w.fd, uint32(d.wd))
	delete(w.byWD, d.wd)
	for p, x := range w.dirs {
		if x == d {
			delete(w.dirs, p)
		}
	}
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
