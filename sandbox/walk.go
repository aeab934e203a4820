package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/picketdev/picket/decide"
)

// The walk reads every directory under its roots, with no depth bound, to
// find what glob patterns and blocklist names match. How far it must get
// depends on the root:
//
//   - the workspace is read whole, up to maxWorkspaceEntries entries (the
//     agent's own project must never disappear);
//   - home, the writable and readable directories the rules name and the
//     temp dirs among them are read whole within the time budget; what the
//     budget leaves unread is hidden (fail closed) and read on a later
//     command;
//   - the literal directories of anchored patterns outside those (system
//     directories: "/srv/**/*.key") are read up to an entry bound; what is
//     beyond it is not covered, and picket show says so.
//
// Directories are read in parallel, with getdents alone (no stat per
// entry), and a walk is kept (see walkcache.go): the next one stats each
// directory it read and reads again only those whose inode or ctime
// changed, and what they newly hold.

// rootKind says how far the walk must get below a root.
type rootKind uint8

const (
	rootWorkspace rootKind = iota
	rootFull
	rootSystem
)

// maxWorkspaceEntries bounds the workspace's walk; past it the rest of the
// workspace is hidden, as any tree the walk could not finish.
const maxWorkspaceEntries = 4_000_000

// DefaultWalkBudget is how long a walk may take over the trees other than
// the workspace before what it has not read is hidden.
const DefaultWalkBudget = 10 * time.Second

// DefaultSystemEntries bounds the walk of each system directory (see
// rootSystem) when picket.sandbox.expandMaxEntries does not.
const DefaultSystemEntries = 20_000

// walkRoot is one tree the walk starts at.
type walkRoot struct {
	Path string
	Kind rootKind
}

// limits are a walk's budget.
type limits struct {
	deadline time.Time // for roots other than the workspace; zero: none
	entries  int       // per root other than the workspace and system ones; 0: none
	system   int       // per system root
}

// Record flags.
const (
	recGit        uint8 = 1 << iota // git took it as a git dir (see gitDirNames)
	recUnreadable                   // permission denied: hidden, as the command could make it readable
	recGone                         // gone or no longer a directory when opened: read again next time
	recPending                      // not read in time: hidden, read on a later walk
	recStale                        // kept from an earlier walk below a pending one, unverified
)

// dirRec is what the walk learned from one directory: its identity when
// read, and the entries of it that the sandbox mounts something on.
type dirRec struct {
	Path   string
	Parent int32 // index of the parent's record, -1 for a root
	Root   uint8 // index of its root
	Flags  uint8
	Done   uint8 // classes settled above it (see walker.visit)
	Dev    uint64
	Ino    uint64
	Ctime  int64 // ns; 0: never taken as fresh
	Found  []found

	from int32 // a pending record's record in the earlier walk, -1 when none (not kept)
}

// found is one entry of a directory the sandbox mounts something on, or
// needs again: a match, a symlink, a socket, a gitfile.
type found struct {
	Name   string
	Kinds  uint8  // a bit per class matched, and the kind bits below
	Dir    bool   // what is mounted on is a directory
	Target string // a symlink's resolved target, "" when it has none
}

// Kind bits beyond the classes (bits 0..nClasses-1).
const (
	kindSymlink uint8 = 1 << (nClasses + iota)
	kindSocket
	kindGitfile
	kindVolatile // a symlink judged again on every walk (see walker.volatile)
)

func classBit(c class) uint8 { return 1 << c }

// task is one directory for a worker.
type task struct {
	path   string
	root   uint8
	parent int32
	prev   int32 // its record in the earlier walk, -1 when none
	active []matcher
	done   [nClasses]bool
}

// walker walks the roots with a few goroutines.
type walker struct {
	j                judges
	root             string // the workspace
	anywhere, folded nameIndex
	byPrefix         map[string][]matcher // anchored matchers by their prefix
	foldPrefix       map[string][]matcher // case-folding ones by their prefix, lowercased
	anchored         []matcher
	globs            bool
	roots            []walkRoot
	isRoot           map[string]bool // not entered from above: walked as roots of their own
	skip             map[string]bool // not entered at all: hidden whole by a literal rule
	lim              limits
	prev             *walkCache // the earlier walk, nil when none
	now              func() time.Time
	// fresh tells whether an earlier record still holds (default: its
	// directory's inode and ctime are unchanged); watch is called with each
	// directory before it is read (the keeper watches it).
	fresh func(*dirRec) bool
	watch func(path string)
	open  func(path string) (*os.File, error) // openDir; tests make it fail

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []task
	busy    int
	recs    []dirRec
	reread  map[string]bool // directories read (not reused) on this walk
	entries []atomic.Int64  // per root
	stopped []atomic.Bool   // per root: the budget ran out
}

func newWalker(j judges, root string, ms []matcher, roots []walkRoot, skip []string, lim limits, prev *walkCache, globs bool) *walker {
	w := &walker{j: j, root: root, globs: globs, roots: roots, lim: lim, prev: prev, now: time.Now, open: openDir,
		byPrefix: map[string][]matcher{}, foldPrefix: map[string][]matcher{}, isRoot: map[string]bool{}, skip: map[string]bool{},
		reread: map[string]bool{}, entries: make([]atomic.Int64, len(roots)), stopped: make([]atomic.Bool, len(roots))}
	w.cond = sync.NewCond(&w.mu)
	for _, m := range ms {
		switch {
		case m.prefix == "" && m.fold:
			w.folded.add(m)
		case m.prefix == "":
			w.anywhere.add(m)
		default:
			w.anchored = append(w.anchored, m)
			w.byPrefix[m.prefix] = append(w.byPrefix[m.prefix], m)
			if m.fold {
				lp := strings.ToLower(m.prefix)
				w.foldPrefix[lp] = append(w.foldPrefix[lp], m)
			}
		}
	}
	for _, r := range roots {
		w.isRoot[r.Path] = true
	}
	for _, d := range skip {
		w.skip[d] = true
	}
	return w
}

// run walks every root and returns the records, the earlier walk's
// records for directories it reused included.
func (w *walker) run() []dirRec {
	for i, r := range w.roots {
		fi, err := os.Lstat(r.Path)
		if err != nil || !fi.IsDir() {
			continue
		}
		prev := int32(-1)
		if w.prev != nil {
			prev = w.prev.rootRec(r.Path)
		}
		w.queue = append(w.queue, task{path: r.Path, root: uint8(i), parent: -1, prev: prev, active: w.activeFor(r.Path)})
	}
	w.start()
	w.keepStale()
	w.rejudgeLinks()
	return w.recs
}

// start works through the queue with a few goroutines.
func (w *walker) start() {
	workers := min(max(runtime.GOMAXPROCS(0), 2), 8)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
}

// work takes tasks until none are left and no other worker can make more.
func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.busy > 0 {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		t := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.busy++
		w.mu.Unlock()

		rec, kids, read := w.do(t)

		w.mu.Lock()
		id := int32(len(w.recs))
		w.recs = append(w.recs, rec)
		if read {
			w.reread[rec.Path] = true
		}
		for i := range kids {
			kids[i].parent = id
		}
		w.queue = append(w.queue, kids...)
		w.busy--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// budgetLeft reports whether root r may still be read.
func (w *walker) budgetLeft(r uint8) bool {
	if w.stopped[r].Load() {
		return false
	}
	kind := w.roots[r].Kind
	n := w.entries[r].Load()
	switch {
	case kind == rootWorkspace:
		if n < maxWorkspaceEntries {
			return true
		}
	case kind == rootSystem && w.lim.system > 0 && n >= int64(w.lim.system):
	case kind == rootFull && w.lim.entries > 0 && n >= int64(w.lim.entries):
	case !w.lim.deadline.IsZero() && w.now().After(w.lim.deadline):
	default:
		return true
	}
	w.stopped[r].Store(true)
	return false
}

// do handles one directory: reused from the earlier walk when its inode
// and ctime are unchanged, read otherwise. read reports which. Past the
// budget it is left pending, with what the earlier walk knew of it.
func (w *walker) do(t task) (rec dirRec, kids []task, read bool) {
	var old *dirRec
	if t.prev >= 0 {
		old = &w.prev.recs[t.prev]
	}
	if !w.budgetLeft(t.root) {
		rec = dirRec{Path: t.path, from: t.prev}
		if old != nil {
			rec = *old
			rec.from = t.prev
		}
		rec.Parent, rec.Root, rec.Done = t.parent, t.root, doneBits(t.done)
		rec.Flags = rec.Flags&recGit | recPending
		return rec, nil, false
	}
	if old != nil && old.Ino != 0 && old.Flags&recGone == 0 && w.isFresh(old) {
		return w.reuse(t, old), w.prevKids(t), false
	}
	rec, kids = w.read(t)
	return rec, kids, true
}

func (w *walker) isFresh(r *dirRec) bool {
	if w.fresh != nil {
		return w.fresh(r)
	}
	return w.prev.fresh(r)
}

// reuse takes an unchanged directory's record from the earlier walk,
// judging its volatile symlinks again.
func (w *walker) reuse(t task, old *dirRec) dirRec {
	rec := *old
	rec.Parent, rec.Root, rec.Done, rec.from = t.parent, t.root, doneBits(t.done), -1
	rec.Flags &^= recPending | recStale
	copied := false
	for i, f := range old.Found {
		if f.Kinds&kindVolatile == 0 {
			continue
		}
		if !copied {
			rec.Found, copied = append([]found(nil), old.Found...), true
		}
		rec.Found[i] = w.rejudge(t, f.Name)
	}
	// Not counted against the entry budget: a later walk must get past
	// what an earlier one read.
	return rec
}

// rejudge judges one symlink of t's directory again.
func (w *walker) rejudge(t task, name string) found {
	if nf, ok := w.judgeLink(t, join(t.path, name), name); ok {
		return nf
	}
	return found{Name: name, Kinds: kindSymlink}
}

// prevKids are the tasks for the subdirectories an unchanged directory
// had in the earlier walk.
func (w *walker) prevKids(t task) []task {
	var kids []task
	for _, c := range w.prev.children(t.prev) {
		r := &w.prev.recs[c]
		if w.isRoot[r.Path] || w.skip[r.Path] {
			continue
		}
		kids = append(kids, task{path: r.Path, root: t.root, prev: c, active: w.activeAt(r.Path, t.active), done: doneOf(r.Done)})
	}
	return kids
}

// read lists a directory and judges each entry.
func (w *walker) read(t task) (dirRec, []task) {
	rec := dirRec{Path: t.path, Parent: t.parent, Root: t.root, Done: doneBits(t.done), from: -1}
	if w.watch != nil {
		w.watch(t.path)
	}
	f, err := w.open(t.path)
	if err != nil {
		// One it may not read, the command may not either, unless it
		// makes it readable (chmod, where it may write): hidden. One that
		// went is its parent's change, read on the next walk.
		if errors.Is(err, fs.ErrPermission) {
			rec.Flags |= recUnreadable
			rec.Dev, rec.Ino, rec.Ctime, _ = statDir(t.path)
		} else {
			rec.Flags |= recGone
		}
		return rec, nil
	}
	defer f.Close()
	// The stamp first: a change made while the entries are read moves the
	// ctime past the one recorded, so the next walk reads it again.
	fi, err := f.Stat()
	if err != nil {
		rec.Flags |= recGone
		return rec, nil
	}
	rec.Dev, rec.Ino, rec.Ctime = device(fi), inode(fi), ctime(fi).UnixNano()
	ents, err := f.ReadDir(-1)
	if err != nil {
		rec.Flags |= recGone // read again next time; what it listed is judged now
	}
	w.entries[t.root].Add(int64(len(ents)) + 1)
	if gitDirEntries(t.path, ents) {
		rec.Flags |= recGit
	}
	var prevKids map[string]int32
	var kids []task
	for _, e := range ents {
		name := e.Name()
		nf, done := w.visit(t, name, e)
		if nf.Kinds != 0 {
			rec.Found = append(rec.Found, nf)
		}
		if !e.IsDir() || done[classHide] {
			continue
		}
		p := join(t.path, name)
		if w.isRoot[p] || w.skip[p] {
			continue
		}
		if prevKids == nil && t.prev >= 0 {
			prevKids = w.prev.childMap(t.prev)
		}
		prev, ok := prevKids[name]
		if !ok {
			prev = -1
		}
		kids = append(kids, task{path: p, root: t.root, prev: prev, active: w.activeAt(p, t.active), done: done})
	}
	return rec, kids
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// gitDirEntries reports whether a directory holding ents is one git takes
// as a git dir (see gitDirNames).
func gitDirEntries(path string, ents []fs.DirEntry) bool {
	if strings.HasSuffix(path, "/.git") {
		return true
	}
	has := func(n string) bool {
		for _, e := range ents {
			if e.Name() == n {
				return true
			}
		}
		return false
	}
	return has("HEAD") && gitDirNames(path, has)
}

// activeFor is every anchored matcher whose prefix is dir or above it,
// and that reaches as deep as dir's entries.
func (w *walker) activeFor(dir string) []matcher {
	var out []matcher
	lower := strings.ToLower(dir)
	for _, m := range w.anchored {
		if (isUnder(dir, m.prefix) || m.fold && isUnder(lower, strings.ToLower(m.prefix))) && reaches(m, dir) {
			out = append(out, m)
		}
	}
	return out
}

// activeAt is the matchers of dir's entries: its parent's that reach that
// deep, and those whose prefix is dir itself. A case-folding matcher's
// prefix is compared folded: check reads "~/proj/*.dat" as covering
// ~/Proj/b.dat.
func (w *walker) activeAt(dir string, inherited []matcher) []matcher {
	out := inherited
	for i, m := range inherited {
		if !reaches(m, dir) {
			out = slices.DeleteFunc(slices.Clone(inherited[i:]), func(m matcher) bool { return !reaches(m, dir) })
			out = append(slices.Clone(inherited[:i]), out...)
			break
		}
	}
	add := func(m matcher) {
		if !containsMatcher(out, m) && reaches(m, dir) {
			out = append(out[:len(out):len(out)], m)
		}
	}
	for _, m := range w.byPrefix[dir] {
		add(m)
	}
	if len(w.foldPrefix) > 0 {
		for _, m := range w.foldPrefix[strings.ToLower(dir)] {
			add(m)
		}
	}
	return out
}

// reaches reports whether m can match an entry of dir (at or below its
// prefix): a pattern without "**" matches at one depth only.
func reaches(m matcher, dir string) bool {
	return m.depth == 0 || level(dir)-level(m.prefix) < m.depth
}

// level is how many components a resolved path has.
func level(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

func containsMatcher(ms []matcher, m matcher) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

func doneBits(d [nClasses]bool) uint8 {
	var b uint8
	for c, ok := range d {
		if ok {
			b |= classBit(class(c))
		}
	}
	return b
}

func doneOf(b uint8) [nClasses]bool {
	var d [nClasses]bool
	for c := range d {
		d[c] = b&classBit(class(c)) != 0
	}
	return d
}

// visit judges one entry of t's directory: what to mount on it, and which
// classes are settled below it.
func (w *walker) visit(t task, name string, e fs.DirEntry) (found, [nClasses]bool) {
	done := t.done
	typ := e.Type()
	switch {
	case typ&fs.ModeSymlink != 0:
		return w.rejudge(t, name), done
	case typ&fs.ModeSocket != 0 && !isUnder(join(t.path, name), w.root):
		return found{Name: name, Kinds: kindSocket}, done
	}
	var nf found
	if name == ".git" && typ.IsRegular() {
		// A worktree's or submodule's gitfile: rewritten, it would point
		// git at another directory's config and hooks (decide denies
		// writing it).
		nf = found{Name: name, Kinds: kindGitfile}
	}
	cand := w.candidates(t, name, done)
	if cand == 0 {
		return nf, done
	}
	p, dir := join(t.path, name), e.IsDir()
	for c := class(0); c < nClasses; c++ {
		if cand&classBit(c) == 0 || !w.covered(c, p, p, dir) {
			continue
		}
		nf.Name, nf.Kinds, nf.Dir = name, nf.Kinds|classBit(c), dir
		done[c] = true
	}
	return nf, done
}

// candidates are the classes whose prefilter passes name in t's directory.
func (w *walker) candidates(t task, name string, done [nClasses]bool) uint8 {
	if !w.globs {
		return 0
	}
	var cand uint8
	mark := func(m matcher) {
		if !done[m.class] {
			cand |= classBit(m.class)
		}
	}
	w.anywhere.candidates(name, mark)
	if w.folded.exact != nil || len(w.folded.scan) > 0 {
		w.folded.candidates(strings.ToLower(name), mark)
	}
	for _, m := range t.active {
		if !done[m.class] && cand&classBit(m.class) == 0 && m.match(name) {
			cand |= classBit(m.class)
		}
	}
	return cand
}

// covered reports whether class c covers the entry p (resolved r).
func (w *walker) covered(c class, p, r string, dir bool) bool {
	if c == classHide {
		return w.j.hides(p, r, dir)
	}
	if !w.j.covers(c, p, r) {
		return false
	}
	if (c == classWrite || c == classRead) && dir {
		// Allow globs match the path itself: a directory is bound whole
		// only when the pattern covers what is below it too.
		return w.j.covers(c, r+"/"+probeName, r+"/"+probeName)
	}
	return true
}

// judgeLink judges a symlink as check does (both spellings) and mounts
// its target: that is what the kernel reaches through it. ok is false
// when the link leads nowhere.
func (w *walker) judgeLink(t task, p, name string) (found, bool) {
	nf := found{Name: name, Kinds: kindSymlink}
	target, err := os.Readlink(p)
	if err != nil {
		return nf, false
	}
	_, res, err := decide.Canonicalize(p, "/", "/")
	if err != nil {
		nf.Kinds |= kindVolatile
		return nf, true
	}
	nf.Target = res
	fi, err := os.Stat(res)
	if err != nil {
		nf.Kinds |= kindVolatile // dangling: its target may appear
		return nf, true
	}
	nf.Dir = fi.IsDir()
	cand := w.candidates(t, name, t.done)
	if w.globs {
		// The target's own name, as check judges the resolved spelling:
		// a target outside the walk is met nowhere else.
		tt := task{active: w.activeFor(dirOf(res))}
		cand |= w.candidates(tt, baseOf(res), [nClasses]bool{})
	}
	for c := class(0); c < nClasses; c++ {
		if cand&classBit(c) != 0 && w.covered(c, p, res, nf.Dir) {
			nf.Kinds |= classBit(c)
		}
	}
	if w.volatile(p, target, res, nf.Kinds) {
		nf.Kinds |= kindVolatile
	}
	return nf, true
}

// volatile reports whether a symlink must be judged again on every walk,
// even when its directory is unchanged: what it leads to can change
// without its directory changing. A link one hop away from a target
// inside the walked trees is judged again only when a directory above
// its target is read again (see rejudgeLinks); one that matched, one
// whose target is outside the trees, and one that leads through other
// symlinks are judged every time (they are few).
func (w *walker) volatile(p, target, res string, kinds uint8) bool {
	if kinds&(1<<nClasses-1) != 0 {
		return true
	}
	lexical := target
	if !strings.HasPrefix(target, "/") {
		lexical = dirOf(p) + "/" + target
	}
	if filepath.Clean(lexical) != res {
		return true
	}
	for _, r := range w.roots {
		if r.Kind != rootSystem && isUnder(res, r.Path) {
			return false
		}
	}
	return true
}

// rejudgeLinks judges again the links reused from the earlier walk whose
// target lies below a directory read again on this one: a directory on
// the way to the target may have become a symlink elsewhere.
func (w *walker) rejudgeLinks() {
	if w.prev == nil || len(w.reread) == 0 {
		return
	}
	for i := range w.recs {
		rec := &w.recs[i]
		if w.reread[rec.Path] || rec.Flags&(recPending|recStale) != 0 {
			continue
		}
		copied := false
		for k, f := range rec.Found {
			if f.Kinds&kindSymlink == 0 || f.Kinds&kindVolatile != 0 || !w.aboveReread(f.Target) {
				continue
			}
			if !copied {
				rec.Found, copied = append([]found(nil), rec.Found...), true
			}
			t := task{path: rec.Path, root: rec.Root, active: w.activeFor(rec.Path), done: doneOf(rec.Done)}
			rec.Found[k] = w.rejudge(t, f.Name)
		}
	}
}

// aboveReread reports whether a directory at or above p was read again.
func (w *walker) aboveReread(p string) bool {
	for d := dirOf(p); d != "/" && d != "."; d = dirOf(d) {
		if w.reread[d] {
			return true
		}
	}
	return false
}

// keepStale carries the earlier walk's records below a directory left
// pending, so the walk that reads it can still reuse what did not change.
func (w *walker) keepStale() {
	if w.prev == nil {
		return
	}
	var carry func(old, parent int32)
	carry = func(old, parent int32) {
		for _, c := range w.prev.children(old) {
			r := w.prev.recs[c]
			r.Parent, r.Flags, r.from = parent, r.Flags|recStale, -1
			w.recs = append(w.recs, r)
			carry(c, int32(len(w.recs)-1))
		}
	}
	for i, n := 0, len(w.recs); i < n; i++ {
		if w.recs[i].Flags&recPending != 0 && w.recs[i].from >= 0 {
			carry(w.recs[i].from, int32(i))
		}
	}
}

func dirOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func baseOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// walkRoots are where the walk starts: the workspace, home, the literal
// directories allowWrite and allowRead name (/var/tmp and the system temp
// dir under code), each read whole; and the literal directories of
// anchored patterns outside those, read up to a bound. The root
// directory itself is never one: walking the whole system is not what a
// rule naming "/" asks for.
func walkRoots(root, home string, ms []matcher, writable, readable []string) []walkRoot {
	roots := []walkRoot{{Path: root, Kind: rootWorkspace}}
	covered := func(d string) bool {
		for _, r := range roots {
			if isUnder(d, r.Path) {
				return true
			}
		}
		return d == "/"
	}
	add := func(d string, kind rootKind) {
		if d == "" || covered(d) {
			return
		}
		// A root above those already kept takes them in, but a system
		// one is read only so far: a tree below it read whole stays a
		// root of its own.
		kept := roots[:1]
		for _, r := range roots[1:] {
			if !isUnder(r.Path, d) || kind == rootSystem && r.Kind != rootSystem {
				kept = append(kept, r)
			}
		}
		roots = append(kept, walkRoot{Path: d, Kind: kind})
	}
	if home != "" {
		add(resolveOr(home), rootFull)
	}
	for _, d := range append(append([]string{}, writable...), readable...) {
		add(d, rootFull)
	}
	for _, m := range ms {
		if m.prefix != "" {
			add(m.prefix, rootSystem)
		}
	}
	return roots
}

// literalDirs are the rules without glob characters, resolved, that are
// directories, but /tmp: the sandbox's own /tmp is private.
func literalDirs(rules []decide.Rule, root, home string) []string {
	var out []string
	for _, r := range rules {
		lit, rest := anchor(r.Pattern, root, home)
		if hasMeta(rest) {
			continue
		}
		if d := resolveExisting(filepath.Join(lit, rest)); d != "" && !isTmp(d) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				out = append(out, d)
			}
		}
	}
	return out
}
