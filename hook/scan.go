package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/picketdev/picket/decide"
)

// ScanLimit bounds the walk below a recursive tool's root. A tree larger
// than this cannot be shown to hold no denied path, so the call is denied
// with a hint to narrow it. It is past a large home (a Go build cache
// and a few projects with node_modules hold about 400,000 entries); the
// hook's deadline bounds the time.
const ScanLimit = 2_000_000

// errTooLarge ends a walk that reached ScanLimit.
var errTooLarge = errors.New("tree too large")

// LinkMode is what a search tool does with a symbolic link it meets below
// its root. A link named as the root itself is followed by every tool
// (ripgrep and fd both), and picket resolves the root before the walk.
type LinkMode uint8

const (
	// LinksFollowed: the tool reads through the link (ripgrep with
	// --follow, or one picket cannot vouch for), so a link to a directory
	// is walked at its target and a link is judged by where it leads.
	LinksFollowed LinkMode = iota
	// LinksSkipped: the tool neither lists nor reads a link (ripgrep
	// without --follow: Claude Code's Grep and Glob, Pi's grep).
	LinksSkipped
	// LinksListed: the tool lists a link by its own name and reads
	// nothing through it (fd without --follow: Pi's find).
	LinksListed
)

// Scan is how an agent's search tool walks below its root.
type Scan struct {
	// Filter is the tool's glob filter ("" for none): ripgrep --glob
	// lines, one (Glob's pattern) or, with Grep, a list (see
	// [Target.FilterBase]); with Plain, one fd glob (see [Target.Plain]).
	Filter string
	Grep   bool
	Split  bool // a Grep filter is read only as Claude Code splits it (see [Target.Split])
	Plain  bool
	// Fnmatch says the filter is also read as git grep's pathspec and
	// GNU grep's --include read it (see [Target.Fnmatch]).
	Fnmatch bool
	Links   LinkMode
	// Cwd is where the tool's ripgrep runs, which its anchored globs start
	// from ("" when unknown).
	Cwd string
	// Granted, when not nil, reports the entries the person granted for
	// the session: they count as allowed.
	Granted func(decide.Access, string) bool
}

// Hidden is a denied path found below a recursive tool's root.
type Hidden struct {
	Decision decide.Decision
	Rel      string // relative to the root
}

// FindDenied walks the directory root (the tool's root as spelled, and
// resolved: real) and returns the first entry the tool could reach that
// the policy denies for access: a denied directory is not entered. Every
// entry is judged by both its spelling below root and its resolved path,
// as a direct call would be, so a rule written for either catches it.
//
// A symlink below the root is treated as the tool treats it (s.Links):
// skipped, listed by its own name, or followed (judged by its target, and
// a link to a directory walked at its target once the tree itself is
// walked). Each directory is walked once, under the first spelling from
// which the filter can reach into it (links last, so a directory's own
// spelling comes first), so loops end and a pnpm node_modules is walked
// at its real size; a spelling the filter reaches nothing below does not
// use a directory up.
//
// The tree is walked by as many goroutines as there are CPUs, but the
// answer is the one a walk in order would give: entries sorted by name,
// each directory's tree before its next entry.
func FindDenied(p decide.Policy, access decide.Access, root, real string, s Scan) (*Hidden, error) {
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return nil, nil
	}
	w := newWalker(p, access, s)
	spelled := filepath.Clean(root)
	clear := decide.Decide(p, decide.Request{Access: access, Path: spelled, Resolved: real, Size: -1}).Allow
	w.run([]task{{real: real, spelled: spelled, clear: clear}}, min(runtime.GOMAXPROCS(0), maxWorkers))
	sortTasks(w.linked)
	// Linked directories last, one at a time in walk order: the tools walk
	// the tree without following links, so every directory is first
	// walked under the spelling they reach it by, if the filter lets them
	// into it there.
	for len(w.linked) > 0 && w.best.Load() == nil && w.err == nil {
		l := w.linked[0]
		w.linked = w.linked[1:]
		from := len(w.linked)
		w.run([]task{l}, 1)
		sortTasks(w.linked[from:]) // found in this run: in walk order, after the rest
	}
	if b := w.best.Load(); b != nil {
		return &b.hidden, nil
	}
	if errors.Is(w.err, errTooLarge) {
		return nil, fmt.Errorf("more than %d entries below %s: picket cannot show that none is denied", ScanLimit, real)
	}
	return nil, w.err
}

// maxWorkers bounds the goroutines of one walk: past a few, the disk and
// the kernel's directory locks are what a walk waits on.
const maxWorkers = 8

type walker struct {
	p       decide.Policy
	access  decide.Access
	filter  string
	grep    bool
	split   bool // grep's filter is only read as Claude Code splits it
	plain   bool // the filter is one fd glob, not a ripgrep --glob line
	fnmatch bool // the filter is also a git pathspec and a grep --include glob
	links   LinkMode
	granted func(decide.Access, string) bool
	anchor  string // where the tool's ripgrep runs: its anchored globs start there

	seen atomic.Int64
	best atomic.Pointer[found] // the first hit in walk order found so far

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []task // directories to walk, the next one last
	busy    int    // goroutines walking a directory
	err     error
	entered map[string]bool // with links followed: directories walked, by resolved path
	linked  []task          // with links followed: linked directories, walked after the tree
}

// task is one directory to walk: real is its resolved path, spelled the
// path the tool reaches it by, rel the part of spelled below the root,
// and key its place in walk order (the index of each entry on the way).
// clear says Decide allowed the directory under these spellings, not a
// grant, so its entries may be cleared by name (see [decide.Dir]).
type task struct {
	real, spelled, rel string
	key                []int32
	clear              bool
}

// found is a hit and its place in walk order.
type found struct {
	hidden Hidden
	key    []int32
}

func newWalker(p decide.Policy, access decide.Access, s Scan) *walker {
	w := &walker{p: p, access: access, filter: s.Filter, grep: s.Grep, split: s.Split, plain: s.Plain,
		fnmatch: s.Fnmatch, links: s.Links, granted: s.Granted}
	if s.Cwd != "" {
		w.anchor = filepath.Clean(s.Cwd)
	}
	if w.links == LinksFollowed {
		w.entered = map[string]bool{}
	}
	w.wake = sync.NewCond(&w.mu)
	return w
}

// run walks from start with n goroutines until no directory is left, a
// hit leaves none that comes before it in walk order, or the walk fails.
func (w *walker) run(start []task, n int) {
	w.queue = append(w.queue[:0], start...)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
}

func (w *walker) work() {
	buf := make([]byte, 32<<10)
	var ents []entry
	for {
		t, ok := w.next()
		if !ok {
			return
		}
		var sub []task
		ents, sub = w.dir(t, buf, ents[:0])
		w.finish(sub)
	}
}

// next hands out the next directory, waiting while others are walked
// (they may add more); ok is false once there is nothing left to do.
func (w *walker) next() (t task, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) == 0 && w.busy > 0 && w.err == nil {
		w.wake.Wait()
	}
	if len(w.queue) == 0 || w.err != nil {
		w.wake.Broadcast()
		return task{}, false
	}
	t = w.queue[len(w.queue)-1]
	w.queue = w.queue[:len(w.queue)-1]
	w.busy++
	return t, true
}

// finish queues a walked directory's subdirectories, first one last so it
// is walked next: one goroutine walks the tree in order.
func (w *walker) finish(sub []task) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(sub) - 1; i >= 0; i-- {
		w.queue = append(w.queue, sub[i])
	}
	w.busy--
	if len(sub) > 0 || w.busy == 0 {
		w.wake.Broadcast()
	}
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	w.wake.Broadcast()
}

// hit records a denied entry the tool reaches, if it comes before every
// one found so far.
func (w *walker) hit(h Hidden, key []int32) {
	f := &found{hidden: h, key: key}
	for {
		cur := w.best.Load()
		if cur != nil && slices.Compare(cur.key, key) <= 0 {
			return
		}
		if w.best.CompareAndSwap(cur, f) {
			return
		}
	}
}

// pruned reports whether a hit already found comes before key, and with it
// everything below key.
func (w *walker) pruned(key []int32) bool {
	b := w.best.Load()
	return b != nil && slices.Compare(key, b.key) > 0
}

// enter reports whether the directory is walked now: not when the filter
// reaches nothing below its spelling, nor, with links followed, when it
// was walked already (a loop, or a tree reached by two links).
func (w *walker) enter(t task) bool {
	if w.pruned(t.key) || t.rel != "" && !w.reaches(t.spelled, t.rel, true) {
		return false
	}
	if w.links != LinksFollowed {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.entered[t.real] {
		return false
	}
	w.entered[t.real] = true
	return true
}

// dir walks one directory: it judges each entry in name order and returns
// the subdirectories to walk, those before the first entry it finds
// denied and reachable (what follows that entry in walk order cannot come
// first).
func (w *walker) dir(t task, buf []byte, ents []entry) ([]entry, []task) {
	if !w.enter(t) {
		return ents, nil
	}
	// An error after some entries: judge those, as the tool lists them.
	ents, _ = readEntries(t.real, buf, ents)
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	if w.seen.Add(int64(len(ents))) > ScanLimit {
		w.fail(errTooLarge)
		return ents, nil
	}
	same := t.real == t.spelled
	var below decide.Dir
	if t.clear {
		below = w.p.Below(w.access, t.spelled, t.real)
	}
	var sub []task
	for i, e := range ents {
		link := e.typ&fs.ModeSymlink != 0
		if link && w.links == LinksSkipped {
			continue // ripgrep neither lists nor reads it
		}
		followed := link && w.links == LinksFollowed
		cleared := !followed && below.Clear(e.name)
		if cleared && !e.typ.IsDir() {
			continue // Decide allows it, and it is no directory to walk
		}
		real := joinPath(t.real, e.name)
		spelled := real
		if !same {
			spelled = joinPath(t.spelled, e.name)
		}
		d := decide.Decision{Allow: true, Resolved: real}
		if !cleared {
			d = w.judge(spelled, real, e.typ)
		}
		clear := d.Allow && !followed
		if d.Grantable() && w.granted != nil && w.granted(w.access, d.Resolved) {
			d.Allow = true
		}
		if !d.Allow {
			if w.reaches(spelled, joinRel(t.rel, e.name), e.typ.IsDir() || d.Resolved != real) {
				w.hit(Hidden{Decision: d, Rel: joinRel(t.rel, e.name)}, childKey(t.key, i))
				break
			}
			continue
		}
		switch {
		case e.typ.IsDir():
			sub = append(sub, task{real: real, spelled: spelled, rel: joinRel(t.rel, e.name), key: childKey(t.key, i), clear: clear})
		case e.typ&fs.ModeSymlink != 0 && w.links == LinksFollowed:
			// A tool that follows symlinks reads a linked directory's
			// tree too: walk the target, once, after the tree.
			if fi, err := os.Stat(d.Resolved); err == nil && fi.IsDir() {
				w.mu.Lock()
				w.linked = append(w.linked, task{real: d.Resolved, spelled: spelled, rel: joinRel(t.rel, e.name), key: childKey(t.key, i)})
				w.mu.Unlock()
			}
		}
	}
	return ents, sub
}

// judge decides one entry: a link the tool follows by resolving its
// spelling, anything else (a link the tool lists included) by its
// spelling and its own path.
func (w *walker) judge(spelled, real string, t fs.FileMode) decide.Decision {
	if t&fs.ModeSymlink != 0 && w.links == LinksFollowed {
		return decide.Check(w.p, w.access, spelled, "/", -1)
	}
	return decide.Decide(w.p, decide.Request{Access: w.access, Path: spelled, Resolved: real, Size: -1})
}

// entry is one name in a directory and its type (fs.FileMode type bits).
type entry struct {
	name string
	typ  fs.FileMode
}

// sortTasks puts tasks in walk order.
func sortTasks(ts []task) {
	slices.SortFunc(ts, func(a, b task) int { return slices.Compare(a.key, b.key) })
}

func childKey(key []int32, i int) []int32 {
	c := make([]int32, len(key)+1)
	copy(c, key)
	c[len(key)] = int32(i)
	return c
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
