package sandbox

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The keeper's side (see keeper.go): its state, the inotify queue, the
// socket, and the command's side: asking it, and starting it.

// watchMask is what a watched directory reports: entries made, removed or
// renamed, its own attributes, and itself removed or moved.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// keeperLog bounds the changes a keeper remembers for op "changed".
const keeperLog = 200_000

// keeper keeps the walks of one state dir: one inotify instance and one
// watch per directory, shared by every walk that read it (a walk per
// policy and workspace, most of them over the same home: a keeper each
// had them hold the kernel's per-user watch limit several times over).
type keeper struct {
	dir string
	id  string // this keeper's, so a command asks "changed since" the keeper it planned with

	fd        int // inotify
	mu        sync.Mutex
	wds       map[int32]string // watch descriptor to directory
	watched   map[string]int32
	refs      map[string]int  // the walks watching each directory
	unwatched map[string]bool // stat'ed on every request
	remote    map[uint64]bool // devices whose changes inotify may miss

	gen      uint64
	log      []logged
	logStart uint64 // the first generation the log still holds
	// mountsSeen are the mounts at, below or above a root, as last read.
	mountsSeen []string

	walks map[string]*kept
	quit  bool // a newer picket asked
}

// kept is one walk a keeper keeps.
type kept struct {
	key  string
	spec walkSpec
	ws   walkSetup

	recs map[string]*dirRec
	kids map[string][]string
	// notable are the records that mount something, are pending or
	// unreadable: what the answer is made of, so an update costs what
	// changed, not the whole tree.
	notable  map[string]*dirRec
	watching map[string]bool // the directories this walk holds a watch on
	dirty    map[string]bool
	all      bool // stat every directory on the next request

	told     bool
	res      expansion
	read     int  // directories read on the last update
	changed  bool // res lags the records
	unsaved  bool // the kept file lags the records
	lastUsed time.Time
}

type logged struct {
	gen  uint64
	path string
}

func newKeeper(dir string) (*keeper, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &keeper{dir: dir, id: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()), fd: fd,
		wds: map[int32]string{}, watched: map[string]int32{}, refs: map[string]int{}, unwatched: map[string]bool{},
		remote: map[uint64]bool{}, walks: map[string]*kept{}}, nil
}

// walk is the walk kept under key, loaded from disk the first time it is
// asked for: every directory it read is watched, and stat'ed once the
// watch is in place.
func (k *keeper) walk(key string) (*kept, error) {
	if w := k.walks[key]; w != nil {
		return w, nil
	}
	spec, ws, err := readSpec(k.dir, key)
	if err != nil {
		return nil, err
	}
	c := loadCache(k.dir, key)
	if c == nil {
		return nil, errors.New("no kept walk")
	}
	w := &kept{key: key, spec: spec, ws: ws, recs: map[string]*dirRec{}, kids: map[string][]string{}, notable: map[string]*dirRec{},
		watching: map[string]bool{}, dirty: map[string]bool{}, told: c.told, changed: true}
	for i := range c.recs {
		r := c.recs[i]
		if r.Flags&recStale != 0 {
			continue
		}
		r.from = -1
		w.put(&r)
		if r.Parent >= 0 {
			parent := c.recs[r.Parent].Path
			w.kids[parent] = append(w.kids[parent], r.Path)
		}
	}
	for p, r := range w.recs {
		if r.Flags&(recPending|recGone) != 0 {
			w.dirty[p] = true
			continue
		}
		k.watch(w, p)
		if !same(r) {
			w.dirty[p] = true
		}
	}
	k.walks[key] = w
	k.drainMounts() // takes in the new walk's roots
	return w, nil
}

// put records a directory.
func (w *kept) put(r *dirRec) {
	w.recs[r.Path] = r
	if len(r.Found) > 0 || r.Flags&(recPending|recUnreadable) != 0 {
		w.notable[r.Path] = r
	} else {
		delete(w.notable, r.Path)
	}
}

// same reports whether a directory still has the identity recorded.
func same(r *dirRec) bool {
	dev, ino, ct, ok := statDir(r.Path)
	return ok && r.Ctime != 0 && dev == r.Dev && ino == r.Ino && ct == r.Ctime
}

// watch watches a directory for walk w; one that cannot be watched, or
// lies on a filesystem whose changes inotify may miss, is stat'ed on
// every request.
func (k *keeper) watch(w *kept, p string) {
	wd, err := unix.InotifyAddWatch(k.fd, p, watchMask)
	dev, _, _, _ := statDir(p)
	k.mu.Lock()
	defer k.mu.Unlock()
	if !w.watching[p] {
		w.watching[p] = true
		k.refs[p]++
	}
	if err != nil || k.isRemote(dev, p) {
		k.unwatched[p] = true
		if err != nil {
			return
		}
	} else {
		delete(k.unwatched, p)
	}
	k.wds[int32(wd)] = p
	k.watched[p] = int32(wd)
}

// isRemote reports whether changes on dev, where p lies, may be made
// without inotify seeing them: by another machine (network filesystems)
// or by a FUSE server.
func (k *keeper) isRemote(dev uint64, p string) bool {
	remote, ok := k.remote[dev]
	if !ok {
		var st unix.Statfs_t
		remote = unix.Statfs(p, &st) != nil || !localFS[int64(st.Type)]
		k.remote[dev] = remote
	}
	return remote
}

// localFS are the filesystems whose every change goes through this
// kernel's VFS, so inotify sees it.
var localFS = map[int64]bool{
	0xEF53: true, 0x58465342: true, 0x9123683E: true, 0x01021994: true, 0x2FC12FC1: true, // ext*, xfs, btrfs, tmpfs, zfs
	0xF2F52010: true, 0xCA451A4E: true, 0x794C7630: true, 0x5346544E: true, 0x4D44: true, // f2fs, bcachefs, overlay, ntfs, vfat
	0x2011BAB0: true, 0x3153464A: true, 0x858458F6: true, // exfat, jfs, ramfs
}

// unwatch lets walk w's watch on p go; the watch goes with the last walk.
func (k *keeper) unwatch(w *kept, p string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !w.watching[p] {
		return
	}
	delete(w.watching, p)
	if k.refs[p]--; k.refs[p] > 0 {
		return
	}
	delete(k.refs, p)
	if wd, ok := k.watched[p]; ok {
		delete(k.watched, p)
		if k.wds[wd] == p {
			delete(k.wds, wd)
			unix.InotifyRmWatch(k.fd, uint32(wd))
		}
	}
	delete(k.unwatched, p)
}

// drain reads every queued event: each watched directory that reported
// one is read again, by every walk that holds it, on its next update.
func (k *keeper) drain() {
	var buf [64 << 10]byte
	gen := k.gen + 1
	any, all := false, false
	for {
		n, err := unix.Read(k.fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				all = true
				continue
			}
			k.mu.Lock()
			p, ok := k.wds[ev.Wd]
			if ev.Mask&unix.IN_IGNORED != 0 && ok {
				delete(k.wds, ev.Wd)
				if k.watched[p] == ev.Wd {
					delete(k.watched, p)
				}
			}
			k.mu.Unlock()
			if !ok {
				continue
			}
			for _, w := range k.walks {
				if w.recs[p] != nil {
					w.dirty[p] = true
				}
			}
			k.note(gen, p)
			any = true
		}
	}
	if k.drainMounts() {
		all = true
	}
	if all {
		for _, w := range k.walks {
			w.all = true
		}
	}
	if any || all {
		k.gen = gen
	}
}

// note remembers a change for op "changed".
func (k *keeper) note(gen uint64, p string) {
	k.log = append(k.log, logged{gen, p})
	if len(k.log) > keeperLog {
		drop := len(k.log) - keeperLog/2
		k.logStart = k.log[drop].gen
		k.log = slices.Clone(k.log[drop:])
	}
}

// drainMounts reports whether a mount at, below or above a root came or
// went since it last looked: a filesystem mounted over a walked directory
// sends no event. (The mount table's poll event, POLLPRI, did not fire on
// the 6.18 kernel this was written on, so the table is read each time: a
// few hundred microseconds.)
func (k *keeper) drainMounts() bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return true
	}
	var now []string
	for _, line := range strings.Split(string(b), "\n") {
		// "36 35 98:0 /mnt1 /mnt2 rw,... - ext3 /dev/root rw": the ID and
		// the mount point (octal escapes and all).
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		if point := unescapeMount(f[4]); k.nearRoot(point) {
			now = append(now, f[0]+" "+point)
		}
	}
	changed := k.mountsSeen != nil && !slices.Equal(now, k.mountsSeen)
	k.mountsSeen = now
	if k.mountsSeen == nil {
		k.mountsSeen = []string{}
	}
	return changed
}

// nearRoot reports whether a mount point is at, below or above a root of
// a kept walk.
func (k *keeper) nearRoot(point string) bool {
	for _, w := range k.walks {
		for _, r := range w.ws.roots {
			if isUnder(point, r.Path) || isUnder(r.Path, point) {
				return true
			}
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes ("\040" for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// walker is a walker over w's roots, watching what it reads.
func (k *keeper) walker(w *kept, budget time.Duration) *walker {
	wk := newWalker(w.ws.j, w.ws.roots[0].Path, w.ws.ms, w.ws.roots, hiddenDirs(w.ws.x.hide), w.spec.limits(budget), nil, len(w.ws.ms) > 0)
	wk.watch = func(p string) { k.watch(w, p) }
	return wk
}

// update brings walk w's records up to date: every directory that changed
// is read again, what is new in it read whole, and what left it dropped.
func (k *keeper) update(w *kept, budget time.Duration) {
	k.drain()
	if w.all {
		for p, r := range w.recs {
			if !same(r) {
				w.dirty[p] = true
			}
		}
		w.all = false
	}
	for p := range k.unwatched {
		if r := w.recs[p]; r != nil && !same(r) {
			w.dirty[p] = true
		}
	}
	wk := k.walker(w, budget)
	reread := map[string]bool{}
	var fresh []task
	for _, d := range w.dirtyByDepth() {
		r := w.recs[d]
		if r == nil {
			continue // gone, or read below a directory read earlier in this loop
		}
		if r.Flags&recPending != 0 {
			fresh = append(fresh, w.taskFor(wk, r))
			k.drop(w, d)
			continue
		}
		dev, ino, _, ok := statDir(d)
		switch {
		case !ok:
			// Gone, or no longer a directory (its parent, read first when
			// it changed too, says what is there now).
			k.drop(w, d)
			parent := dirOf(d)
			w.kids[parent] = slices.DeleteFunc(w.kids[parent], func(kid string) bool { return kid == d })
			continue
		case r.Ino != 0 && (ino != r.Ino || dev != r.Dev):
			// Another directory there: moved in, or a filesystem mounted
			// over it (which its parent does not see). Read it whole.
			fresh = append(fresh, w.taskFor(wk, r))
			k.drop(w, d)
			continue
		}
		nr, kids := wk.read(w.taskFor(wk, r))
		reread[d] = true
		nr.Parent = r.Parent
		w.put(&nr)
		fresh = append(fresh, k.keepKids(w, d, kids)...)
	}
	clear(w.dirty)
	if len(fresh) > 0 {
		wk.queue = fresh
		wk.start()
		for i := range wk.recs {
			r := wk.recs[i]
			r.Parent = 0
			if slices.ContainsFunc(w.ws.roots, func(root walkRoot) bool { return root.Path == r.Path }) {
				r.Parent = -1
			}
			w.put(&r)
			reread[r.Path] = true
			if r.Parent == 0 {
				parent := dirOf(r.Path)
				if !slices.Contains(w.kids[parent], r.Path) {
					w.kids[parent] = append(w.kids[parent], r.Path)
				}
			}
		}
	}
	w.read = len(reread)
	if len(reread) > 0 {
		w.changed = true
	}
	if w.rejudgeLinks(wk, reread) {
		w.changed = true
	}
}

// dirtyByDepth lists the directories to read again, parents first.
func (w *kept) dirtyByDepth() []string {
	var out []string
	for p := range w.dirty {
		out = append(out, p)
	}
	for p, r := range w.notable {
		if r.Flags&recPending != 0 && !w.dirty[p] {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := level(a) - level(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// taskFor is the task that reads a recorded directory again.
func (w *kept) taskFor(wk *walker, r *dirRec) task {
	return task{path: r.Path, root: r.Root, parent: r.Parent, prev: -1, active: wk.activeFor(r.Path), done: doneOf(r.Done)}
}

// keepKids sets a directory read again's subdirectories: those unchanged
// (same inode, still watched) keep their records; the others are read
// whole; those gone are dropped.
func (k *keeper) keepKids(w *kept, d string, kids []task) []task {
	var fresh []task
	var now []string
	for _, t := range kids {
		now = append(now, t.path)
		if r := w.recs[t.path]; r != nil {
			dev, ino, _, ok := statDir(t.path)
			if ok && dev == r.Dev && ino == r.Ino && r.Flags&recPending == 0 {
				continue
			}
			k.drop(w, t.path)
		}
		t.parent = 0
		fresh = append(fresh, t)
	}
	for _, old := range w.kids[d] {
		if !slices.Contains(now, old) {
			k.drop(w, old)
		}
	}
	w.kids[d] = now
	return fresh
}

// drop forgets a directory of walk w and everything recorded below it.
func (k *keeper) drop(w *kept, p string) {
	for _, kid := range w.kids[p] {
		k.drop(w, kid)
	}
	delete(w.kids, p)
	delete(w.recs, p)
	delete(w.notable, p)
	k.unwatch(w, p)
}

// forget drops a walk nobody asked for in keeperIdle.
func (k *keeper) forget(w *kept) {
	if w.unsaved {
		k.save(w)
	}
	for p := range w.watching {
		k.unwatch(w, p)
	}
	delete(k.walks, w.key)
}

// rejudgeLinks judges again the volatile symlinks, and those whose target
// lies below a directory read again; it reports whether any changed.
func (w *kept) rejudgeLinks(wk *walker, reread map[string]bool) bool {
	changed := false
	wk.reread = reread
	for _, r := range w.notable {
		if r.Flags&(recPending|recUnreadable|recGone) != 0 || reread[r.Path] {
			continue
		}
		copied := false
		for i, f := range r.Found {
			if f.Kinds&kindSymlink == 0 || f.Kinds&kindVolatile == 0 && !wk.aboveReread(f.Target) {
				continue
			}
			nf := wk.rejudge(task{path: r.Path, root: r.Root, active: wk.activeFor(r.Path), done: doneOf(r.Done)}, f.Name)
			if nf == f {
				continue
			}
			if !copied {
				r.Found, copied = slices.Clone(r.Found), true
			}
			r.Found[i] = nf
			changed = true
		}
	}
	return changed
}

// records lists w's records in walk order (roots first, each directory
// after its parent), with parent indexes, for the kept file.
func (w *kept) records() []dirRec {
	var out []dirRec
	var add func(p string, parent int32)
	add = func(p string, parent int32) {
		r := w.recs[p]
		if r == nil {
			return
		}
		c := *r
		c.Parent = parent
		out = append(out, c)
		id := int32(len(out) - 1)
		for _, kid := range w.kids[p] {
			add(kid, id)
		}
	}
	for _, root := range w.ws.roots {
		add(root.Path, -1)
	}
	return out
}

// plan answers op "plan" for walk w.
func (k *keeper) plan(w *kept, req keeperRequest) keeperReply {
	w.lastUsed = time.Now()
	k.update(w, req.Budget)
	if w.changed {
		w.res = resultsOf(func(yield func(*dirRec)) {
			for _, r := range w.notable {
				yield(r)
			}
		}, len(w.recs), w.ws.roots, false)
		w.unsaved, w.changed = true, false
	}
	x := w.res
	x.stats.Read = w.read
	unwalked := len(x.stats.Unwalked) > 0
	x.stats.Report = unwalked && !w.told
	w.told = unwalked
	rep := keeperReply{ID: k.id, Gen: k.gen, Hide: x.hide, Protect: x.protect, Write: x.write, Read: x.read, Stats: x.stats}
	if req.Links {
		rep.Symlinks = x.symlinks
	}
	return rep
}

// changedSince answers op "changed" for walk w: the directories below
// under that changed since generation since (every one, when the log no
// longer reaches back that far, or the plan came from another keeper).
func (k *keeper) changedSince(w *kept, id string, since uint64, under []string) keeperReply {
	k.drain()
	seen := map[string]bool{}
	var out []changedDir
	add := func(p string) {
		if seen[p] || !underAny(p, under) {
			return
		}
		seen[p] = true
		c := changedDir{Path: p}
		if r := w.recs[p]; r != nil {
			c.Ino, c.Git = r.Ino, r.Flags&recGit != 0
			c.Kids = w.kids[p]
		}
		out = append(out, c)
	}
	if w.all || id != k.id || since < k.logStart {
		for p := range w.recs {
			add(p)
		}
	} else {
		// The log is in generation order: start at the first entry past
		// since, not at the top of up to keeperLog entries.
		i, _ := slices.BinarySearchFunc(k.log, since+1, func(l logged, g uint64) int { return cmp.Compare(l.gen, g) })
		for _, l := range k.log[i:] {
			if w.recs[l.path] != nil || underAny(l.path, under) {
				add(l.path)
			}
		}
	}
	return keeperReply{ID: k.id, Gen: k.gen, Changed: out}
}

func underAny(p string, dirs []string) bool { return len(dirs) == 0 || under(p, dirs) }

// save writes walk w back for commands that find no keeper, unless the
// state dir is gone (it would make it again).
func (k *keeper) save(w *kept) {
	if _, err := os.Stat(k.dir); err == nil {
		saveCache(k.dir, w.key, w.told, w.records())
	}
	w.unsaved = false
}

// Keep runs the keeper of the walks kept in dir until it is idle for
// keeperIdle or its socket goes (the hidden "picket run --walk-keeper
// DIR"). Another keeper already serving dir makes it leave at once.
func Keep(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "picket: error: %s needs DIR\n", KeeperExec)
		return 2
	}
	dir := args[0]
	lock, err := os.OpenFile(filepath.Join(dir, keeperLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return 1
	}
	defer lock.Close()
	if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return 0 // another keeper serves it
	}
	k, err := newKeeper(dir)
	if err != nil {
		fmt.Fprintf(stderr, "picket: error: %v\n", err)
		return 1
	}
	l, sock, err := listenKeeper(dir)
	if err != nil {
		fmt.Fprintf(stderr, "picket: error: %v\n", err)
		return 1
	}
	defer l.Close()
	defer os.Remove(sock)
	k.serve(l, sock)
	return 0
}

// serve answers requests one at a time until idle. It writes a walk back
// once no request came for keeperSaveIdle (writing 34,000 records takes
// tens of milliseconds, which a command should not wait for), forgets a
// walk nobody asked for in keeperIdle, and leaves with the last.
func (k *keeper) serve(l *net.UnixListener, sock string) {
	fi, _ := os.Lstat(sock)
	last := time.Now()
	for !k.quit && (len(k.walks) > 0 || time.Since(last) < keeperIdle) {
		l.SetDeadline(time.Now().Add(k.wait(last)))
		c, err := l.AcceptUnix()
		if err != nil {
			if now, err := os.Lstat(sock); err != nil || !os.SameFile(fi, now) {
				return // the socket is gone: the state dir was removed or taken over
			}
			k.idle(last)
			continue
		}
		last = time.Now()
		k.answer(c)
	}
	for _, w := range k.walks {
		if w.unsaved {
			k.save(w)
		}
	}
}

// wait is how long to wait for a request before looking at the socket,
// or saving, again.
func (k *keeper) wait(last time.Time) time.Duration {
	wait := keeperPoll
	for _, w := range k.walks {
		if w.unsaved && time.Since(last) < keeperSaveIdle {
			wait = min(wait, keeperSaveIdle-time.Since(last))
		}
	}
	return max(wait, 10*time.Millisecond)
}

// idle saves the walks that changed, once no request came for a while,
// and forgets those nobody asked for in keeperIdle.
func (k *keeper) idle(last time.Time) {
	if time.Since(last) < keeperSaveIdle {
		return
	}
	for _, w := range k.walks {
		if time.Since(w.lastUsed) >= keeperIdle {
			k.forget(w)
		} else if w.unsaved {
			k.save(w)
		}
	}
}

// keeperSaveIdle is how long a keeper waits for the next request before it
// writes a walk back; keeperPoll how often it looks whether its socket is
// still there.
const (
	keeperSaveIdle = 5 * time.Second
	keeperPoll     = 3 * time.Second
)

// answer reads one request from c and writes the reply.
func (k *keeper) answer(c *net.UnixConn) {
	defer c.Close()
	if !samePIDNamespace(c) {
		return
	}
	c.SetDeadline(time.Now().Add(keeperWait))
	var req keeperRequest
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&req); err != nil {
		return
	}
	var rep keeperReply
	if req.Proto != keeperProto {
		// Another picket: this one leaves, so that one starts its own.
		rep.Err = "another protocol"
		k.quit = true
	} else if w, err := k.walk(req.Key); err != nil {
		rep.Err = "no such walk: " + err.Error()
	} else if req.Op == "plan" {
		rep = k.plan(w, req)
	} else if req.Op == "changed" {
		rep = k.changedSince(w, req.ID, req.Since, req.Under)
	} else {
		rep.Err = "unknown op"
	}
	b, _ := json.Marshal(rep)
	c.Write(append(b, '\n'))
}

// samePIDNamespace reports whether the peer runs in the keeper's PID
// namespace: a sandboxed command does not.
func samePIDNamespace(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	raw.Control(func(fd uintptr) { cred, _ = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	if cred == nil || cred.Pid <= 0 || int(cred.Uid) != os.Getuid() {
		return false
	}
	mine, err1 := os.Readlink("/proc/self/ns/pid")
	theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", cred.Pid))
	return err1 == nil && err2 == nil && mine == theirs
}

// sockName is the keeper's socket in the state dir, reached through
// /proc/self/fd, so that a long state dir still fits in sun_path.
func sockName(dir string) string { return filepath.Join(dir, keeperSock) }

// withDir calls f with a short path naming dir's file name.
func withDir(dir, name string, f func(short string) error) error {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return f(fmt.Sprintf("/proc/self/fd/%d/%s", fd, name))
}

func listenKeeper(dir string) (*net.UnixListener, string, error) {
	sock := sockName(dir)
	os.Remove(sock) // a dead keeper's; the lock says none serves it
	var l *net.UnixListener
	err := withDir(dir, keeperSock, func(short string) error {
		var err error
		l, err = net.ListenUnix("unix", &net.UnixAddr{Name: short, Net: "unix"})
		return err
	})
	if err != nil {
		return nil, "", err
	}
	l.SetUnlinkOnClose(false)
	return l, sock, nil
}

// askKeeper asks the keeper of dir about the walk under key. running
// reports whether a keeper answered at all (one that does not know the
// walk yet learns it from disk on the next request).
func askKeeper(dir, key string, req keeperRequest) (rep keeperReply, ok bool) {
	rep, ok, _ = ask(dir, key, req)
	return rep, ok
}

func ask(dir, key string, req keeperRequest) (rep keeperReply, ok, running bool) {
	req.Key, req.Proto = key, keeperProto
	var c net.Conn
	err := withDir(dir, keeperSock, func(short string) error {
		var err error
		c, err = net.DialTimeout("unix", short, time.Second)
		return err
	})
	if err != nil {
		return rep, false, false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(keeperWait))
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return rep, false, false
	}
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&rep); err != nil {
		return rep, false, false
	}
	return rep, rep.Err == "", rep.Err != "another protocol"
}

// startKeeper keeps the spec of the walk under key beside it and, unless a
// keeper of dir runs (it reads the walk from disk when next asked),
// starts one, detached, with no environment: it needs none, and the
// agent's holds secrets.
func startKeeper(exe, dir, key string, spec walkSpec, running bool) {
	if writeSpec(dir, key, spec) != nil || running {
		return
	}
	c := exec.Command(exe, "run", KeeperExec, dir)
	c.Env = []string{}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if c.Start() == nil {
		c.Process.Release()
	}
}

// keeperRuns reports whether a keeper holds the lock file lock.
func keeperRuns(lock string) bool {
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
}
