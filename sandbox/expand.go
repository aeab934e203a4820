package sandbox

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
)

// expansion is what the filesystem walk found.
type expansion struct {
	read, write, protect []string
	hide                 []Hidden
	named                []string // protected paths a literal rule names (see Plan.structure)
	protectMissing       []string // protected paths a literal rule names that do not exist yet
	symlinks             []string // met on the walk: an empty root recreates those leading somewhere visible
	stats                Expansion
	dirs                 []dirStamp // every directory the walk read, to tell when a cached walk is stale
	walkFile             string     // the cache file that holds dirs, "" when none
}

// class is one kind of mount a rule list turns into.
type class int

const (
	classHide class = iota
	classProtect
	classWrite
	classRead
	nClasses
)

// matcher is a cheap, over-approximating test of one glob pattern's last
// component, applied to entries below the pattern's literal prefix; what
// passes is confirmed by [decide.Decide], so the sandbox and check cannot
// disagree on what a pattern means.
type matcher struct {
	class  class
	prefix string // resolved literal directory; "" for "**/" patterns and blocklist names
	name   string // the last component as a path.Match pattern; "" matches every name
	fold   bool
}

func (m matcher) match(name string) bool {
	if m.name == "" {
		return true
	}
	if m.fold {
		name = strings.ToLower(name)
	}
	ok, err := path.Match(m.name, name)
	return ok || err != nil
}

// judges are sub-policies, one per class, that answer "does this class
// cover this path" with decide's own matching.
type judges [nClasses]decide.Policy

func newJudges(s decide.Spec) (judges, error) {
	base := decide.Spec{Root: s.Root, Home: s.Home, CaseInsensitive: s.CaseInsensitive}
	specs := [nClasses]decide.Spec{}
	h := base
	h.Mode, h.DenyRead, h.Blocklist, h.Permissions = decide.Full, s.DenyRead, s.Blocklist, s.Permissions
	specs[classHide] = h
	pr := base
	pr.Mode, pr.DenyWrite, pr.Mandatory = decide.Full, s.DenyWrite, s.Mandatory
	specs[classProtect] = pr
	w := base
	w.Mode, w.AllowWrite = decide.WorkspaceWrite, s.AllowWrite
	specs[classWrite] = w
	r := base
	r.Mode, r.DefaultDenyRead, r.StrictDenyRead, r.AllowRead = decide.ReadOnly, true, true, s.AllowRead
	specs[classRead] = r
	var j judges
	for i, sp := range specs {
		p, err := decide.Compile(sp)
		if err != nil {
			return j, err
		}
		j[i] = p
	}
	return j, nil
}

// hides reports whether the sandbox hides the entry at p (resolved r, a
// directory when dir): a file check denies reading, a directory check
// denies listing or reading what is below it. A directory only its own
// name is denied in (a "view" rule on "**/.env" meeting a virtualenv
// named .env) stays visible, as check lets it be listed and read into.
func (j judges) hides(p, r string, dir bool) bool {
	if !dir {
		return j.covers(classHide, p, r)
	}
	list := decide.Request{Access: decide.List, Path: p, Resolved: r, Size: -1}
	return !decide.Decide(j[classHide], list).Allow || j.covers(classHide, p+"/"+probeName, r+"/"+probeName)
}

// probeName is a name no rule is about, to ask what a rule says of the
// entries of a directory.
const probeName = ".picket-probe"

// covers reports whether class c covers path (spelled p, resolved r).
func (j judges) covers(c class, p, r string) bool {
	req := decide.Request{Path: p, Resolved: r, Size: -1}
	switch c {
	case classHide:
		req.Access = decide.Read
		return !decide.Decide(j[c], req).Allow
	case classProtect:
		req.Access = decide.Write
		return !decide.Decide(j[c], req).Allow
	case classWrite:
		req.Access = decide.Write
		return decide.Decide(j[c], req).Allow
	}
	req.Access = decide.Read
	return decide.Decide(j[c], req).Allow
}

// expand resolves the literal rules and walks the workspace and home to
// expand the glob ones.
func expand(s decide.Spec, set decide.SandboxSettings, root, home, cacheDir string) (expansion, error) {
	var x expansion
	j, err := newJudges(s)
	if err != nil {
		return x, err
	}
	lists := [nClasses][]decide.Rule{
		classHide:    append(append([]decide.Rule{}, s.DenyRead...), restricting(s.Permissions)...),
		classProtect: append(append([]decide.Rule{}, s.DenyWrite...), s.Mandatory...),
		classWrite:   s.AllowWrite,
		classRead:    s.AllowRead,
	}
	var ms []matcher
	folded := caseFolder{dirs: map[string][]string{}}
	for c, rules := range lists {
		for _, r := range rules {
			lit, rest := anchor(r.Pattern, root, home)
			if rest == "**" && lit != "" {
				rest = "" // "~/**" is home and everything below
			}
			if rest == "" || !hasMeta(rest) || isDirStar(rest) {
				lp := filepath.Join(lit, strings.TrimSuffix(rest, "/**"))
				x.literal(class(c), lp, j)
				if s.CaseInsensitive && (class(c) == classHide || class(c) == classProtect) {
					// check folds case; on a filesystem that does not, the
					// other spellings on disk are other files to fence.
					for _, v := range folded.variants(lp) {
						x.literal(class(c), v, j)
					}
				}
				continue
			}
			m := globMatcher(class(c), lit, rest, s.CaseInsensitive)
			ms = append(ms, m)
			if s.CaseInsensitive && m.prefix != "" && (class(c) == classHide || class(c) == classProtect) {
				// The pattern's literal directories, spelled in another
				// case on disk, are other trees check covers: walk them too.
				for _, v := range folded.variants(m.prefix) {
					mv := m
					mv.prefix = v
					ms = append(ms, mv)
				}
			}
		}
	}
	for _, r := range s.Blocklist {
		name := strings.ToLower(r.Pattern)
		if strings.ContainsAny(name, `[\{`) {
			// path.Match reads a class ("[!x]" is not a negation) and a
			// backslash (an escape) otherwise than decide: no prefilter.
			name = ""
		}
		ms = append(ms, matcher{class: classHide, name: name, fold: true})
	}
	depth, entries := Bounds(set)
	key := cacheKey(s, root, home, depth, entries)
	if wx, ok := loadWalk(cacheDir, key); ok {
		return x.merge(wx), nil
	}
	wx := expansion{stats: Expansion{MaxDepth: depth, MaxEntries: entries}}
	w := walker{x: &wx, j: j, root: root, maxDepth: depth, budget: entries}
	for _, m := range ms {
		switch {
		case m.prefix == "" && m.fold:
			w.folded.add(m)
		case m.prefix == "":
			w.anywhere.add(m)
		default:
			w.anchored = append(w.anchored, m)
		}
	}
	w.run(walkRoots(root, home, w.anchored, writableDirs(s.AllowWrite, root, home)), len(ms) > 0)
	saveWalk(cacheDir, key, &wx)
	return x.merge(wx), nil
}

// restricting are the picket.permissions rules whose level denies
// reading (none, view), as rules of the hide class: the judge, which holds
// every permissions rule, confirms each match, so a higher-priority rule
// that lets a file be read keeps it visible.
func restricting(perms []decide.Permission) []decide.Rule {
	var out []decide.Rule
	for _, pm := range perms {
		if pm.Permission == decide.LevelNone || pm.Permission == decide.LevelView {
			out = append(out, decide.Rule{Pattern: pm.Pattern, Source: pm.Source})
		}
	}
	return out
}

// merge adds what the walk found to the literal rules' paths.
func (x expansion) merge(wx expansion) expansion {
	x.hide = append(x.hide, wx.hide...)
	x.protect = append(x.protect, wx.protect...)
	x.write = append(x.write, wx.write...)
	x.read = append(x.read, wx.read...)
	x.symlinks = wx.symlinks
	x.stats = wx.stats
	x.dirs, x.walkFile = wx.dirs, wx.walkFile
	return x
}

// isDirStar reports whether rest is "dir/**" on a literal dir, which
// decide reads as the literal dir.
func isDirStar(rest string) bool {
	b, ok := strings.CutSuffix(rest, "/**")
	return ok && !hasMeta(b)
}

// caseFolder finds the spellings of a path on disk that differ from it in
// case only, reading each directory once.
type caseFolder struct{ dirs map[string][]string }

// maxCaseVariants bounds the spellings followed for one path.
const maxCaseVariants = 64

// variants returns the existing paths equal to p but for case, p itself
// excluded.
func (f caseFolder) variants(p string) []string {
	cands := []string{"/"}
	for _, comp := range strings.Split(strings.Trim(filepath.Clean(p), "/"), "/") {
		if comp == "" {
			continue
		}
		var next []string
		for _, dir := range cands {
			for _, name := range f.names(dir) {
				// Folded as decide folds (strings.ToLower): EqualFold does
				// not take "İ" for "i", which ToLower does.
				if strings.ToLower(name) == strings.ToLower(comp) && len(next) < maxCaseVariants {
					next = append(next, filepath.Join(dir, name))
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		cands = next
	}
	clean := filepath.Clean(p)
	return slices.DeleteFunc(cands, func(c string) bool { return c == clean })
}

func (f caseFolder) names(dir string) []string {
	if n, ok := f.dirs[dir]; ok {
		return n
	}
	ents, _ := os.ReadDir(dir)
	n := make([]string, len(ents))
	for i, e := range ents {
		n[i] = e.Name()
	}
	f.dirs[dir] = n
	return n
}

// literal adds one literal rule's path.
func (x *expansion) literal(c class, p string, j judges) {
	abs, r, err := decide.Canonicalize(p, "/", "/")
	if err != nil {
		return
	}
	fi, err := os.Lstat(r)
	if err != nil {
		if c == classProtect && os.IsNotExist(err) {
			// A mandatory path or a denyWrite entry that is not there yet:
			// the plan holds a placeholder, so the command cannot create it.
			x.protectMissing = append(x.protectMissing, r)
		}
		return
	}
	if (c == classWrite || c == classRead) && !j.covers(c, abs, r) {
		return // reached through a symlink decide does not follow for an allow rule
	}
	if c == classHide && !j.hides(abs, r, fi.IsDir()) {
		return // a permissions rule of higher priority keeps it readable
	}
	x.add(c, r, fi.IsDir(), j)
	switch c {
	case classHide:
		x.hide[len(x.hide)-1].Literal = true
	case classProtect:
		x.named = append(x.named, r)
	}
}

func (x *expansion) add(c class, r string, dir bool, j judges) {
	switch c {
	case classHide:
		x.hide = append(x.hide, Hidden{Path: r, Dir: dir})
	case classProtect:
		x.protect = append(x.protect, r)
	case classWrite:
		x.write = append(x.write, r)
	case classRead:
		x.read = append(x.read, r)
	}
}

// globMatcher builds the prefilter of one glob pattern: its literal
// directories (resolved) and its last component, "dir/**" read as dir.
func globMatcher(c class, lit, rest string, fold bool) matcher {
	rest = strings.TrimSuffix(rest, "/**")
	m := matcher{class: c, fold: fold}
	if !strings.HasPrefix(rest, "**") {
		dirs := rest
		for hasMeta(dirs) {
			dirs = path.Dir(dirs)
		}
		if dirs == "." { // the glob is in the first component
			dirs = ""
		}
		m.prefix = resolveOr(joinPat(lit, dirs))
	}
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	if fold {
		last = strings.ToLower(last)
	}
	if last != "**" && !strings.ContainsAny(last, `[\{`) && !strings.Contains(last, "**") {
		m.name = last
	}
	return m
}

// walker walks directories breadth-first within its bounds, testing each
// entry against the matchers that apply below its directory.
type walker struct {
	x                *expansion
	j                judges
	root             string
	anywhere, folded nameIndex // "**/" matchers; folded: case-insensitive, by lowercased name
	anchored         []matcher
	maxDepth, budget int
}

// nameIndex holds the "**/" matchers by the names they can match, so an
// entry costs a few map lookups however many rules there are: exact names,
// "*.ext" names, and the few others scanned.
type nameIndex struct {
	exact, ext map[string][]matcher
	scan       []matcher
}

func (ix *nameIndex) add(m matcher) {
	if ix.exact == nil {
		ix.exact, ix.ext = map[string][]matcher{}, map[string][]matcher{}
	}
	switch {
	case m.name != "" && !hasMeta(m.name):
		ix.exact[m.name] = append(ix.exact[m.name], m)
	case strings.HasPrefix(m.name, "*.") && !hasMeta(m.name[2:]) && !strings.Contains(m.name[2:], "."):
		ix.ext[m.name[2:]] = append(ix.ext[m.name[2:]], m)
	default:
		ix.scan = append(ix.scan, m)
	}
}

// candidates calls f with every matcher that could match name (already
// lowercased for an index of case-folding matchers).
func (ix *nameIndex) candidates(name string, f func(matcher)) {
	for _, m := range ix.exact[name] {
		f(m)
	}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		for _, m := range ix.ext[name[dot+1:]] {
			f(m)
		}
	}
	for _, m := range ix.scan {
		if m.match(name) {
			f(m)
		}
	}
}

type dirItem struct {
	path   string
	depth  int
	active []matcher // anchored matchers whose prefix is this dir or above
	done   [nClasses]bool
}

// walkRoots are where the walk starts: the workspace, home, the literal
// directories anchored patterns name, and the literal writable directories
// (/var/tmp under code): after a command, picket looks for the policy files
// it made where the walk looked.
func walkRoots(root, home string, anchored []matcher, writable []string) []string {
	roots := []string{root}
	if home != "" {
		roots = append(roots, resolveOr(home))
	}
	for _, m := range anchored {
		if !under(m.prefix, roots) && m.prefix != "/" {
			roots = append(roots, m.prefix)
		}
	}
	for _, d := range writable {
		if !under(d, roots) && d != "/" {
			roots = append(roots, d)
		}
	}
	return roots
}

// writableDirs are the allowWrite rules without glob characters, resolved,
// that are directories, but /tmp: the sandbox's own /tmp is private.
func writableDirs(rules []decide.Rule, root, home string) []string {
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

// run walks breadth-first in rounds, each with the whole entry budget:
// first the literal directories anchored patterns name (~/.ssh for the
// code template's "~/.ssh/id_*"), then each root in turn. A workspace full
// of node_modules must not use the budget up before the walk reaches home,
// or the few places secrets are named in.
func (w *walker) run(roots []string, globs bool) {
	w.x.stats.Roots = roots
	seen := map[string]bool{}
	budget := w.budget
	w.walk(w.prefixItems(roots, seen, globs), seen, globs)
	for _, r := range roots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && !seen[r] {
			seen[r] = true
			w.budget = budget
			w.walk([]dirItem{{path: r, active: w.activeAt(r, nil)}}, seen, globs)
		}
	}
}

// prefixItems are the first round's directories: each anchored pattern's
// literal directory below one of the two big roots (the workspace and
// home), judged as an entry of its parent first, as the second round
// would have, and walked unless that hides it whole.
func (w *walker) prefixItems(roots []string, seen map[string]bool, globs bool) []dirItem {
	var items []dirItem
	for _, m := range w.anchored {
		p := m.prefix
		if seen[p] || p == "/" || slices.Contains(roots[:min(2, len(roots))], p) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			continue
		}
		seen[p] = true
		parent := dirItem{path: filepath.Dir(p), active: w.activeAt(filepath.Dir(p), nil)}
		done := w.visit(parent, p, fs.FileInfoToDirEntry(fi), globs)
		if !done[classHide] {
			items = append(items, dirItem{path: p, active: w.activeAt(p, parent.active), done: done})
		}
	}
	return items
}

// walk reads the queue's directories and those below them, breadth-first,
// until the budget runs out.
func (w *walker) walk(queue []dirItem, seen map[string]bool, globs bool) {
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		f, err := os.Open(d.path)
		if err != nil {
			continue
		}
		fi, statErr := f.Stat()
		ents, _ := f.ReadDir(-1)
		f.Close()
		if statErr == nil {
			w.x.dirs = append(w.x.dirs, stampOf(d.path, fi, ents))
		}
		for _, e := range ents {
			if w.budget == 0 {
				w.x.stats.Truncated = true
				return
			}
			w.budget--
			w.x.stats.Entries++
			p := d.path + "/" + e.Name()
			if d.path == "/" {
				p = "/" + e.Name()
			}
			if seen[p] {
				continue
			}
			done := w.visit(d, p, e, globs)
			if e.IsDir() && !done[classHide] && d.depth+1 < w.maxDepth {
				seen[p] = true
				queue = append(queue, dirItem{path: p, depth: d.depth + 1, active: w.activeAt(p, d.active), done: done})
			}
		}
	}
}

// activeAt adds the anchored matchers whose prefix is dir, or above it.
// A case-folding matcher's prefix is compared folded: check reads
// "~/proj/*.dat" as covering ~/Proj/b.dat.
func (w *walker) activeAt(dir string, inherited []matcher) []matcher {
	out := inherited
	lower := strings.ToLower(dir)
	for _, m := range w.anchored {
		under := isUnder(dir, m.prefix)
		if m.fold {
			under = isUnder(lower, strings.ToLower(m.prefix))
		}
		if under && !containsMatcher(inherited, m) {
			out = append(out[:len(out):len(out)], m)
		}
	}
	return out
}

func containsMatcher(ms []matcher, m matcher) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// visit tests one entry and returns which classes are settled below it.
func (w *walker) visit(d dirItem, p string, e fs.DirEntry, globs bool) [nClasses]bool {
	done := d.done
	if e.Type()&fs.ModeSymlink != 0 {
		w.x.symlinks = append(w.x.symlinks, p)
	}
	if e.Type()&fs.ModeSocket != 0 && !isUnder(p, w.root) {
		w.x.hide = append(w.x.hide, Hidden{Path: p})
		return done
	}
	if e.Name() == ".git" && e.Type().IsRegular() {
		// A worktree's or submodule's gitfile: rewritten, it would point
		// git at another directory's config and hooks (decide denies
		// writing it).
		w.x.protect = append(w.x.protect, p)
	}
	if !globs {
		return done
	}
	var cand [nClasses]bool
	mark := func(m matcher) {
		if !done[m.class] {
			cand[m.class] = true
		}
	}
	w.anywhere.candidates(e.Name(), mark)
	w.folded.candidates(strings.ToLower(e.Name()), mark)
	for _, m := range d.active {
		if !done[m.class] && !cand[m.class] && m.match(e.Name()) {
			cand[m.class] = true
		}
	}
	for c := class(0); c < nClasses; c++ {
		if !cand[c] {
			continue
		}
		r, dir := p, e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// Judge the symlink as check does (both spellings), mount its
			// target: that is what the kernel reaches through it.
			_, res, err := decide.Canonicalize(p, "/", "/")
			if err != nil {
				continue
			}
			fi, err := os.Stat(res)
			if err != nil {
				continue
			}
			r, dir = res, fi.IsDir()
		}
		if c == classHide {
			if !w.j.hides(p, r, dir) {
				continue
			}
		} else if !w.j.covers(c, p, r) {
			continue
		}
		switch c {
		case classWrite, classRead:
			// Allow globs match the path itself: a directory is bound
			// whole only when the pattern covers what is below it too.
			if dir && !w.j.covers(c, r+"/"+probeName, r+"/"+probeName) {
				continue
			}
		}
		w.x.add(c, r, dir, w.j)
		done[c] = true
	}
	return done
}

// anchor and joinPat are decide's own, so the sandbox anchors patterns
// exactly as the matcher does.
var (
	anchor  = decide.Anchor
	joinPat = decide.JoinPattern
)

// hasMeta is decide's own reading of glob characters.
func hasMeta(s string) bool { return decide.HasGlob(s) }
