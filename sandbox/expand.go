package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
)

// expansion is what the filesystem walk found.
type expansion struct {
	read, write, protect []string
	hide                 []Hidden
	named                []string // protected paths a literal rule names (see Plan.structure)
	protectMissing       []string // protected paths a literal rule names that do not exist yet
	symlinks             []Link   // met on the walk, with their resolved targets: an empty root recreates those leading somewhere visible
	stats                Expansion
	dirs                 []dirStamp // every directory the walk read, for the quarantine
	walkFile             string     // the file the walk is kept in, "" when none
	keeper               *keeperRef // the keeper that answered, nil when the walk was done here
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
	depth  int    // the levels below prefix it matches at; 0: any
	name   string // the last component as a path.Match pattern; "" matches every name
	fold   bool
	loose  bool // see prefilterName
}

func (m matcher) match(name string) bool {
	if m.name == "" || m.loose && !utf8.ValidString(name) {
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

// expand resolves the literal rules and walks the workspace, home and the
// other roots (see walk.go) to expand the glob ones.
func expand(s decide.Spec, set decide.SandboxSettings, root, home string, o walkOptions) (expansion, error) {
	ws, err := setUp(s, root, home)
	if err != nil {
		return expansion{}, err
	}
	running := false
	if o.keeper != "" && o.cacheDir != "" {
		rep, ok, up := ask(o.cacheDir, ws.key, keeperRequest{Op: "plan", Links: o.links, Budget: o.budget})
		if ok {
			wx := fromReply(rep)
			wx.walkFile = cacheFile(o.cacheDir, ws.key)
			wx.keeper = &keeperRef{dir: o.cacheDir, key: ws.key, id: rep.ID, gen: rep.Gen}
			// A sandboxed command could not talk to it (another PID
			// namespace), nor even see it.
			wx.hide = append(wx.hide, Hidden{Path: sockName(o.cacheDir)})
			return ws.x.merge(wx), nil
		}
		running = up
	}
	prev := loadCache(o.cacheDir, ws.key)
	lim := limits{entries: set.ExpandMaxEntries, system: set.ExpandMaxEntries}
	if lim.system <= 0 {
		lim.system = DefaultSystemEntries
	}
	if o.budget > 0 {
		lim.deadline = time.Now().Add(o.budget)
	}
	w := newWalker(ws.j, root, ws.ms, ws.roots, hiddenDirs(ws.x.hide), lim, prev, len(ws.ms) > 0)
	recs := w.run()
	wx := results(recs, ws.roots)
	unwalked := len(wx.stats.Unwalked) > 0
	told := prev != nil && prev.told && unwalked
	wx.stats.Report = unwalked && !told
	wx.stats.Read = len(w.reread)
	if prev == nil && o.cacheDir != "" {
		pruneWalks(o.cacheDir)
	}
	if len(w.reread) > 0 || prev == nil || prev.told != unwalked || relinked(prev, recs) {
		wx.walkFile = saveCache(o.cacheDir, ws.key, unwalked, recs)
	} else {
		wx.walkFile = cacheFile(o.cacheDir, ws.key)
	}
	if o.keeper != "" && wx.walkFile != "" {
		startKeeper(o.keeper, o.cacheDir, ws.key, specOf(s, root, home, set), running)
	}
	return ws.x.merge(wx), nil
}

// walkSetup is what a walk needs before it reads anything: the literal
// rules' paths, the glob rules' prefilters, the roots and the key the walk
// is kept under.
type walkSetup struct {
	x     expansion
	j     judges
	ms    []matcher
	roots []walkRoot
	key   string
}

func setUp(s decide.Spec, root, home string) (walkSetup, error) {
	var x expansion
	j, err := newJudges(s)
	if err != nil {
		return walkSetup{}, err
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
		name, loose := prefilterName(strings.ToLower(r.Pattern))
		ms = append(ms, matcher{class: classHide, name: name, fold: true, loose: loose})
	}
	roots := walkRoots(root, home, ms, literalDirs(s.AllowWrite, root, home), literalDirs(s.AllowRead, root, home))
	return walkSetup{x: x, j: j, ms: ms, roots: roots, key: cacheKey(s, root, home, roots)}, nil
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

// KeptWalk reports what the last walk for l's policy, kept in cacheDir,
// left hidden or uncovered, without walking; ok is false when there is
// none.
func KeptWalk(l *decide.Loaded, cacheDir string) (x Expansion, ok bool) {
	spec := l.Policy.Spec()
	ws, err := setUp(spec, resolveOr(spec.Root), l.Env.Home)
	if err != nil {
		return x, false
	}
	c := loadCache(cacheDir, ws.key)
	if c == nil {
		return x, false
	}
	return results(c.recs, ws.roots).stats, true
}

// walkOptions are where a walk is kept and how long it may take.
type walkOptions struct {
	cacheDir string        // "" walks every time
	budget   time.Duration // for the trees other than the workspace; 0: none
	keeper   string        // picket's executable, to ask or start a keeper (see keeper.go); "" for none
	links    bool          // the plan needs the symlinks the walk met (an empty root)
}

// relinked reports whether a volatile symlink was judged otherwise than
// in the kept walk, which is then rewritten.
func relinked(prev *walkCache, recs []dirRec) bool {
	if prev == nil || len(prev.recs) != len(recs) {
		return true
	}
	for i := range recs {
		a, b := recs[i].Found, prev.recs[i].Found
		if len(a) != len(b) {
			return true
		}
		for k := range a {
			if a[k] != b[k] {
				return true
			}
		}
	}
	return false
}

// maxUnwalked bounds the directories hidden one by one because the walk
// did not reach them: past it, their parents are hidden instead.
const maxUnwalked = 256

// results turns the walk's records into mounts: what each directory's
// entries need, and an empty directory over each tree the walk did not
// read in time (but for system directories, which are only reported).
func results(recs []dirRec, roots []walkRoot) expansion {
	return resultsOf(func(yield func(*dirRec)) {
		for i := range recs {
			yield(&recs[i])
		}
	}, len(recs), roots, true)
}

// resultsOf is results over the records each yields, of n in all; stamps
// says whether to list the directories for the quarantine.
func resultsOf(each func(yield func(*dirRec)), n int, roots []walkRoot, stamps bool) expansion {
	var x expansion
	var unwalked []string
	dirs := n
	each(func(r *dirRec) {
		switch {
		case r.Flags&recStale != 0:
			dirs--
			return
		case r.Flags&recPending != 0:
			dirs--
			if roots[r.Root].Kind == rootSystem {
				x.stats.Truncated = append(x.stats.Truncated, roots[r.Root].Path)
			} else {
				unwalked = append(unwalked, r.Path)
			}
			return
		}
		if r.Flags&recUnreadable != 0 {
			if roots[r.Root].Kind != rootSystem {
				x.hide = append(x.hide, Hidden{Path: r.Path, Dir: true})
			}
			return
		}
		if stamps && r.Flags&recGone == 0 {
			x.dirs = append(x.dirs, dirStamp{Path: r.Path, Ino: r.Ino, Git: r.Flags&recGit != 0})
		}
		for _, f := range r.Found {
			x.addFound(join(r.Path, f.Name), f)
		}
	})
	x.stats.Dirs = dirs
	x.stats.Truncated = sortedUnique(x.stats.Truncated)
	x.stats.Unwalked = collapse(unwalked, maxUnwalked)
	for _, u := range x.stats.Unwalked {
		x.hide = append(x.hide, Hidden{Path: u, Dir: true, Unwalked: true})
	}
	for _, r := range roots {
		x.stats.Roots = append(x.stats.Roots, r.Path)
	}
	return x
}

// addFound adds the mounts one entry needs.
func (x *expansion) addFound(p string, f found) {
	switch {
	case f.Kinds&kindSocket != 0:
		x.hide = append(x.hide, Hidden{Path: p})
	case f.Kinds&kindGitfile != 0:
		x.protect = append(x.protect, p)
	}
	if f.Kinds&kindSymlink != 0 {
		x.symlinks = append(x.symlinks, Link{Path: p, Target: f.Target})
	}
	r := p
	if f.Target != "" {
		r = f.Target
	}
	for c := class(0); c < nClasses; c++ {
		if f.Kinds&classBit(c) != 0 {
			x.add(c, r, f.Dir)
		}
	}
}

// collapse returns dirs, or, when there are more than limit, their
// parents (and so on), so that few mounts cover them all.
func collapse(dirs []string, limit int) []string {
	dirs = dropUnder(sortedUnique(dirs), nil)
	for len(dirs) > limit {
		deepest := 0
		for _, d := range dirs {
			deepest = max(deepest, strings.Count(d, "/"))
		}
		if deepest <= 1 {
			break
		}
		for i, d := range dirs {
			if strings.Count(d, "/") == deepest {
				dirs[i] = dirOf(d)
			}
		}
		dirs = dropUnder(sortedUnique(dirs), nil)
	}
	return dirs
}

// merge adds what the walk found to the literal rules' paths.
func (x expansion) merge(wx expansion) expansion {
	x.hide = append(x.hide, wx.hide...)
	x.protect = append(x.protect, wx.protect...)
	x.write = append(x.write, wx.write...)
	x.read = append(x.read, wx.read...)
	x.symlinks = wx.symlinks
	x.stats = wx.stats
	x.dirs, x.walkFile, x.keeper = wx.dirs, wx.walkFile, wx.keeper
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
	x.add(c, r, fi.IsDir())
	switch c {
	case classHide:
		x.hide[len(x.hide)-1].Literal = true
	case classProtect:
		x.named = append(x.named, r)
	}
}

func (x *expansion) add(c class, r string, dir bool) {
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
// directories (resolved), how many levels below them it reaches, and its
// last component, "dir/**" read as dir.
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
		if !strings.Contains(rest, "**") {
			// "~/.gitconfi[g]" names an entry of home, not of every
			// directory below it.
			m.depth = strings.Count(rest, "/") + 1
			if dirs != "" {
				m.depth -= strings.Count(dirs, "/") + 1
			}
		}
	}
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	if fold {
		last = strings.ToLower(last)
	}
	if !strings.Contains(last, "**") {
		m.name, m.loose = prefilterName(last)
	}
	return m
}

// prefilterName turns a pattern's last component, in decide's syntax, into
// a path.Match pattern that matches at least what decide's does: a class
// becomes "?" (one character, as the class is), and what decide reads as
// literal text ("\", an unclosed "[", "[]") is escaped. loose is set when
// a class was replaced: a name that is not UTF-8 then always passes, as
// path.Match and decide may count its characters differently.
func prefilterName(p string) (name string, loose bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			switch {
			case end < 0:
				b.WriteString(`\[`)
			case end == 0:
				b.WriteString(`\[\]`)
				i++
			default:
				b.WriteByte('?')
				loose = true
				i += end + 1
			}
		case '\\', ']':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), loose
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
	case m.name != "" && !strings.ContainsAny(m.name, `*?[\`):
		ix.exact[m.name] = append(ix.exact[m.name], m)
	case strings.HasPrefix(m.name, "*.") && !strings.ContainsAny(m.name[2:], `*?[\.`):
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

// anchor and joinPat are decide's own, so the sandbox anchors patterns
// exactly as the matcher does.
var (
	anchor  = decide.Anchor
	joinPat = decide.JoinPattern
)

// hasMeta is decide's own reading of glob characters.
func hasMeta(s string) bool { return decide.HasGlob(s) }
