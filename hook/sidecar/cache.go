package sidecar

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/picketdev/picket/decide"
)

// policyCache keeps the resolved policy of each working directory while
// nothing it came from changes: each place discovery looks (fence.jsonc
// and fence.json in cwd and every parent, the user's fence config), every
// file of the chain, and every path the policy was resolved against (a
// .git on the way up, the workspace root, each component of a rule's
// literal directory, also those resolved later when a decision first
// needs a list; see [decide.Env.Observe]). On Linux an inotify [watcher]
// sees the changes, and a lookup only drains its queue; a path it cannot
// watch, or every path elsewhere, is stat-checked on every lookup. Either
// way an edit, a persisted grant, a new fence.jsonc or a symlink made
// where a rule's directory was applies to the very next call, as it does
// to a fresh `picket check`.
type policyCache struct {
	load  func(dir string, observe func(string)) (*decide.Loaded, error)
	home  string // $HOME and $XDG_CONFIG_HOME: the user's fence config
	xdg   string
	w     *watcher // nil: stat everything
	mu    sync.Mutex
	slots map[string]*cacheSlot
}

// maxCached bounds the working directories kept; past it the cache starts
// over (a Pi session has one).
const maxCached = 256

// racyWindow: a file changed this close to the moment it was stamped may
// change again within the same timestamp tick (the kernel's file clock is
// coarse), so such a snapshot is never trusted; the next lookup reloads.
const racyWindow = 50 * time.Millisecond

// mappedEvery: a write through a shared mapping (mmap) of a policy file
// reaches no inotify watch until it is unmapped, but it moves the file's
// times. The watched policy files are stat-checked for it at most this
// often, so that a burst of decisions does not pay a stat each.
const mappedEvery = time.Millisecond

type cacheSlot struct {
	cur    atomic.Pointer[snapshot]
	reload sync.Mutex
}

// snapshot is a loaded policy with the watcher's generation and the state
// of the files it depends on that are not watched, taken before it was
// loaded.
type snapshot struct {
	loaded *decide.Loaded
	w      *watcher
	gen    uint64
	stamps []stamp // files that could not be watched: compared on every lookup
	mapped []stamp // policy files that are watched: compared at most every mappedEvery
	racy   bool
	// checked is when mapped was last found as stamped (UnixNano).
	checked atomic.Int64

	mu       sync.Mutex
	observed []stamp // paths resolved against that could not be watched (see entryState)
}

// observe is the snapshot's [decide.Env.Observe]: it watches p before the
// policy looks at it, so any later change shows in the generation, or
// notes p's state to be compared on every lookup.
func (sn *snapshot) observe(p string) {
	if sn.w.watchEntry(p) {
		return
	}
	st := entryState(p)
	sn.mu.Lock()
	sn.observed = append(sn.observed, stamp{p, st})
	sn.mu.Unlock()
}

type stamp struct {
	path string
	st   fileState
}

// fileState is what tells one version of a file from another; the zero
// value is a missing file.
type fileState struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime unix.Timespec
}

func statFile(path string) fileState { return stateOf(unix.Stat, path) }

// entryState is what tells one entry from another where only what a path
// resolves to matters: the entry itself (a symlink is not followed), its
// identity and mode, and for a symlink its times and length, which change
// only when it is made again. A directory's times change with every file
// made in it, which changes nothing a path resolves to.
func entryState(path string) fileState {
	st := stateOf(unix.Lstat, path)
	if st.mode&unix.S_IFMT != unix.S_IFLNK {
		st.size, st.mtime, st.ctime = 0, unix.Timespec{}, unix.Timespec{}
	}
	return st
}

func stateOf(stat func(string, *unix.Stat_t) error, path string) fileState {
	var st unix.Stat_t
	if err := stat(path, &st); err != nil {
		return fileState{}
	}
	return fileState{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
}

func newPolicyCache(load func(dir string, observe func(string)) (*decide.Loaded, error), home, configHome string) *policyCache {
	return &policyCache{load: load, home: home, xdg: configHome, w: newWatcher(), slots: map[string]*cacheSlot{}}
}

// close releases the cache's watcher; the cache must not be used after.
func (pc *policyCache) close() { pc.w.close() }

func (pc *policyCache) slot(cwd string) *cacheSlot {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	sl := pc.slots[cwd]
	if sl == nil {
		if len(pc.slots) >= maxCached {
			pc.slots = map[string]*cacheSlot{}
			// The watches made for the directories forgotten go too,
			// or a sidecar asked about ever new directories would hold
			// ever more of the user's inotify watches.
			pc.w.forgetAll()
		}
		sl = &cacheSlot{}
		pc.slots[cwd] = sl
	}
	return sl
}

// drop forgets cwd's policy (the reload op).
func (pc *policyCache) drop(cwd string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	delete(pc.slots, filepath.Clean(cwd))
}

// get returns cwd's policy, loading it again when a file it depends on
// changed. A policy that fails to load is not cached.
func (pc *policyCache) get(cwd string) (*decide.Loaded, error) {
	sl := pc.slot(cwd)
	if sn := sl.cur.Load(); sn.fresh() {
		return sn.loaded, nil
	}
	sl.reload.Lock()
	defer sl.reload.Unlock()
	sn := sl.cur.Load()
	if sn.fresh() {
		return sn.loaded, nil
	}
	paths := pc.candidates(cwd)
	if sn != nil {
		paths = addChain(paths, sn.loaded.Chain)
	}
	// Stamp first, then load: a change during the load shows at the next
	// lookup. A chain file we did not stamp (an extends target) means
	// loading again with it stamped.
	for range 3 {
		next := pc.stampAll(paths)
		loaded, err := pc.load(cwd, next.observe)
		if err != nil {
			sl.cur.Store(nil)
			return nil, err
		}
		next.loaded = loaded
		more := addChain(paths, loaded.Chain)
		if len(more) == len(paths) {
			sl.cur.Store(next)
			return loaded, nil
		}
		paths = more
	}
	sl.cur.Store(nil) // the chain keeps changing under us: do not cache
	return pc.load(cwd, nil)
}

// candidates are the places discovery looks for cwd's policy.
func (pc *policyCache) candidates(cwd string) []string {
	var paths []string
	for dir := cwd; ; dir = filepath.Dir(dir) {
		paths = append(paths, filepath.Join(dir, "fence.jsonc"), filepath.Join(dir, "fence.json"))
		if dir == "/" || dir == "." {
			break
		}
	}
	env := decide.Env{Home: pc.home, ConfigHome: pc.xdg}
	return append(paths, filepath.Join(env.UserConfigDir(), "fence.jsonc"), filepath.Join(env.UserConfigDir(), "fence.json"))
}

// addChain appends the chain's files that paths lacks.
func addChain(paths, chain []string) []string {
	for _, f := range chain {
		if !strings.HasPrefix(f, "builtin:") && !slices.Contains(paths, f) {
			paths = append(paths, f)
		}
	}
	return paths
}

// stampAll watches paths, or stats those it cannot watch. A file behind a
// symlink is watched where the link points, too. The files that exist
// (the policy chain's) are stamped even when watched (see mappedEvery).
func (pc *policyCache) stampAll(paths []string) *snapshot {
	sn := &snapshot{w: pc.w}
	var watched, unwatched []string
	for _, p := range paths {
		if pc.w.watch(p) {
			watched = append(watched, p)
		} else {
			unwatched = append(unwatched, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p && !pc.w.watch(real) {
			unwatched = append(unwatched, real)
		}
	}
	sn.gen = pc.w.poll()
	now := time.Now()
	add := func(to *[]stamp, p string, st fileState) {
		*to = append(*to, stamp{p, st})
		if st != (fileState{}) && now.Sub(time.Unix(st.ctime.Unix())) < racyWindow {
			sn.racy = true
		}
	}
	for _, p := range unwatched {
		add(&sn.stamps, p, statFile(p))
	}
	for _, p := range watched {
		// A watched path that is missing needs no stamp: its making
		// shows in the generation.
		if st := statFile(p); st != (fileState{}) {
			add(&sn.mapped, p, st)
		}
	}
	sn.checked.Store(now.UnixNano())
	return sn
}

// fresh reports whether every file the snapshot depends on is as it was.
func (sn *snapshot) fresh() bool {
	if sn == nil || sn.racy || sn.w.current() != sn.gen {
		return false
	}
	for _, s := range sn.stamps {
		if statFile(s.path) != s.st {
			return false
		}
	}
	if now := time.Now().UnixNano(); now-sn.checked.Load() >= int64(mappedEvery) {
		for _, s := range sn.mapped {
			if statFile(s.path) != s.st {
				return false
			}
		}
		sn.checked.Store(now)
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	for _, s := range sn.observed {
		if entryState(s.path) != s.st {
			return false
		}
	}
	return true
}
