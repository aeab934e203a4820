package sandbox

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
)

// Plan is what the sandbox mounts and restricts, as plain values. Every path
// is absolute and resolved (no symlinks), so a mount covers each spelling
// the kernel resolves to it. [NewPlan] computes one from a policy; a test
// writes one in a few lines.
type Plan struct {
	Cwd string // where the command starts

	// Root is how the filesystem starts: RootReadOnly (the host, read-only),
	// RootEmpty (defaultDenyRead: nothing but what the lists below mount) or
	// RootWritable (full mode).
	Root RootMode

	Read      []string // visible read-only on an empty root
	Links     []Link   // symlinks recreated on an empty root
	Write     []string // bound writable
	Structure []string // bound on themselves: mount points cannot be renamed
	Protect   []string // bound read-only on top of what is writable
	named     []string // the Protect paths a literal rule names, and placeholders
	Hide      []Hidden // covered by an empty directory or file nobody may open
	TmpBinds  []string // host files bound writable through the private /tmp
	Sockets   []string // unix sockets bound through the hidden socket dirs

	// Through holds the workspace when it lies below a directory the
	// sandbox makes private (/tmp, /run): bound from the host over the
	// private one, so the command starts there and its writes land on the
	// host, while the rest of /tmp and /run stays private.
	Through []string
	// TmpDirs are the writable directories the policy names below the
	// private /tmp (a TMPDIR of /tmp/user/1000): made, empty, in it, so
	// programs that write there find them.
	TmpDirs []string

	// SocketDirs are covered by an empty tmpfs (/run): they hold the host's
	// unix sockets. Empty when network.allowAllUnixSockets is set.
	SocketDirs []string
	// Listen are loopback addresses the first process opens in the
	// sandbox's network namespace (its own, always: loopback only) and
	// hands to picket over [HandoffFD] before the command starts: the
	// filtering proxy's ports, when a network section is in force (see
	// package egress). Empty: the command has no network at all.
	Listen []string

	// EmptyFile is a host file with mode 0 and no content, mounted over
	// hidden files.
	EmptyFile string
	// Exe is picket's own executable: it runs first inside the sandbox to
	// apply Landlock, then starts the command.
	Exe string

	Landlock  Landlock
	Expansion Expansion

	// stamps are the directories the walk read, as they were: [Run] looks
	// in those that changed for policy files the command created. walkFile
	// is the cached walk that holds them, for a check left pending.
	stamps   []dirStamp
	walkFile string
	keeper   *keeperRef // the keeper that answered the walk, asked again what changed
}

// RootMode is how the sandbox's root filesystem starts.
type RootMode int

// The root modes.
const (
	RootReadOnly RootMode = iota
	RootEmpty
	RootWritable
)

// Link is a symlink recreated on an empty root, so a path spelled through
// it still reaches the mounted target.
type Link struct{ Path, Target string }

// Hidden is one path covered so that it cannot be read or listed.
type Hidden struct {
	Path string
	Dir  bool
	// Literal: hidden by a rule that names this path (not a name or glob
	// the walk matched); moving a directory above it would carry it out
	// from under the rule, so those directories are kept in place.
	Literal bool `json:"literal,omitempty"`
	// Unwalked: hidden because the walk did not read it in time.
	Unwalked bool `json:"unwalked,omitempty"`
}

// Landlock is the second layer, applied inside the sandbox by picket
// itself before it starts the command.
type Landlock struct {
	Write []string // the only hierarchies writes may reach
	// Sockets are the unix sockets connect(2) may reach outside Write
	// (Landlock ABI 9 and later).
	Sockets []string
}

// Expansion reports how glob patterns were expanded when the plan was made.
type Expansion struct {
	Roots []string // where the walk started
	Dirs  int      // directories the plan covers
	Read  int      // directories read on this walk (the others were unchanged since the kept one)
	// Unwalked are the trees the walk could not read within its budget:
	// they are hidden (fail closed) until a later walk reads them.
	Unwalked []string
	// Truncated are the system directories (see [Budget]) whose walk
	// stopped at its bound: glob matches below are not covered.
	Truncated []string
	// Report: Unwalked is not empty and was not reported before (it is
	// said once, not on every command).
	Report bool `json:"-"`
}

// Budget is how far the walk goes: the workspace whole; home, the temp
// dirs and the directories allowWrite and allowRead name whole within
// WalkBudget, or SystemEntries entries each when picket.sandbox.
// expandMaxEntries sets it (what is left is hidden); the other directories
// anchored patterns name (system directories) SystemEntries entries each
// (what is left is not covered).
func Budget(s decide.SandboxSettings) (walk time.Duration, systemEntries int) {
	systemEntries = s.ExpandMaxEntries
	if systemEntries <= 0 {
		systemEntries = DefaultSystemEntries
	}
	return DefaultWalkBudget, systemEntries
}

// Options are what a plan needs beyond the policy.
type Options struct {
	Cwd       string   // the command's working directory ("" = the policy's)
	Exe       string   // picket's executable, bound read-only and run first
	EmptyFile string   // see [Plan.EmptyFile]; [NewPlan] creates it when missing
	BindTmp   []string // globs of /tmp files the command line names, bound through
	ExtraRead []string // paths kept readable under defaultDenyRead (e.g. the agent's shell snapshots)
	Command   []string // the command, searched for BindTmp matches
	// CacheDir keeps the last walk per policy; the next one reads again
	// only the directories that changed. "" walks every time.
	CacheDir string
	// WalkBudget bounds the walk of the trees other than the workspace
	// (see [Budget]); 0 is [DefaultWalkBudget].
	WalkBudget time.Duration
	// NoKeeper walks in this process only, starting no keeper (see
	// keeper.go); without Exe and CacheDir there is none either.
	NoKeeper bool
}

// NewPlan computes the plan for l: it resolves every literal path, walks the
// workspace and home (bounded) to expand glob patterns, and finds the unix
// sockets there. It reads the filesystem but changes nothing except
// creating o.EmptyFile.
func NewPlan(l *decide.Loaded, o Options) (Plan, error) {
	spec := l.Policy.Spec()
	home := l.Env.Home
	cwd := o.Cwd
	if cwd == "" {
		cwd = l.Env.Cwd
	}
	p := Plan{Cwd: resolveOr(cwd), Exe: o.Exe, EmptyFile: o.EmptyFile}
	if err := ensureEmptyFile(o.EmptyFile); err != nil {
		return Plan{}, err
	}
	mode := l.Policy.Mode()
	switch {
	case mode == decide.Full:
		p.Root = RootWritable
	case spec.DefaultDenyRead:
		p.Root = RootEmpty
	}
	root := resolveOr(spec.Root)
	if mode == decide.WorkspaceWrite {
		p.Write = append(p.Write, root)
	}
	net := network(l.Raw)
	if egress.InForce(l.Raw) {
		pol, err := egress.FromRaw(l.Raw, spec.Sources["network"])
		if err != nil {
			return Plan{}, err
		}
		for _, ln := range pol.Listeners() {
			p.Listen = append(p.Listen, ln.Addr)
		}
	}
	if !net.allowAll {
		p.SocketDirs = socketDirs()
	}
	for _, s := range net.allowSockets {
		if r := resolveExisting(expandHome(s, home)); r != "" {
			p.Sockets = append(p.Sockets, r)
		}
	}
	p.Through = throughDirs([]string{root, p.Cwd}, root, p.SocketDirs)

	budget := o.WalkBudget
	if budget == 0 {
		budget = DefaultWalkBudget
	}
	wo := walkOptions{cacheDir: o.CacheDir, budget: budget, links: p.Root == RootEmpty}
	if !o.NoKeeper {
		wo.keeper = o.Exe
	}
	x, err := expand(spec, l.Settings.Sandbox, root, home, wo)
	if err != nil {
		return Plan{}, err
	}
	p.Expansion, p.walkFile, p.keeper = x.stats, x.walkFile, x.keeper
	if mode == decide.WorkspaceWrite {
		p.Write = append(p.Write, x.write...)
	}
	if p.Root == RootEmpty {
		p.Read = append(p.Read, x.read...)
		if mode != decide.WorkspaceWrite {
			// Not writable in this mode, but readable, as check reads
			// allowWrite under defaultDenyRead: where check reads what a
			// directory holds ("**/build" names the directory alone).
			for _, w := range x.write {
				if decide.Check(l.Policy, decide.Read, filepath.Join(w, "x"), root, -1).Allow {
					p.Read = append(p.Read, w)
				}
			}
		}
		// The workspace is readable where check lets it be read: in
		// read-only mode with defaultDenyRead only what allowRead names.
		if decide.Check(l.Policy, decide.Read, root, root, -1).Allow {
			p.Read = append(p.Read, root)
		}
		if !spec.StrictDenyRead {
			for _, r := range decide.SystemReadRules(home) {
				if rp := resolveExisting(expandHome(r.Pattern, home)); rp != "" {
					p.Read = append(p.Read, rp)
				}
			}
		}
		for _, e := range o.ExtraRead {
			if rp := resolveExisting(expandHome(e, home)); rp != "" {
				p.Read = append(p.Read, rp)
			}
		}
		p.Links = links(append(append([]string{spec.Root, cwd, home}, rulePaths(spec.AllowRead, spec.AllowWrite, root, home)...), systemPaths(spec, home)...))
	}
	p.Hide = x.hide
	p.Protect = x.protect
	p.named = x.named
	p.TmpBinds = tmpBinds(o.BindTmp, o.Command)
	p.normalize(x.protectMissing)
	if p.Root == RootEmpty {
		// The walk meets the symlinks the rules name too: each is made
		// once, as bubblewrap refuses a second --symlink at one path.
		p.Links = uniqueLinks(append(p.Links, p.visibleLinks(x.symlinks)...))
	}
	p.Landlock = Landlock{Write: p.landlockWrite(), Sockets: p.Sockets}
	// Only a writable directory can change while the command runs: those
	// are where the quarantine looks.
	for _, d := range x.dirs {
		if p.writable(d.Path) {
			p.stamps = append(p.stamps, d)
		}
	}
	return p, nil
}

// throughDirs returns those of dirs that lie strictly below /tmp or a
// socket dir and are the workspace root or inside it (the walk covers
// nothing else there): bound from the host, so a workspace in /tmp or
// /run/user/<uid> works as it does elsewhere. The private directory itself
// is never bound through: a workspace that is /tmp stays private.
func throughDirs(dirs []string, root string, socketDirs []string) []string {
	private := append([]string{"/tmp"}, socketDirs...)
	var out []string
	for _, d := range dirs {
		if d == "" || !isUnder(d, root) {
			continue
		}
		for _, pd := range private {
			if d != pd && isUnder(d, pd) {
				out = append(out, d)
			}
		}
	}
	return dropUnder(sortedUnique(out), nil)
}

// private reports whether q is under /tmp, which is private in the
// sandbox, and not in a directory bound through it.
func (p *Plan) private(q string) bool { return isTmp(q) && !under(q, p.Through) }

// privateDir reports whether d is the private /tmp, a hidden socket dir,
// or a directory in them that is not bound through.
func (p *Plan) privateDir(d string) bool {
	return (isTmp(d) || under(d, p.SocketDirs)) && !under(d, p.Through)
}

// dropPrivate keeps the paths of ps the private /tmp does not cover.
func (p *Plan) dropPrivate(ps []string) []string {
	var out []string
	for _, q := range ps {
		if !p.private(q) {
			out = append(out, q)
		}
	}
	return out
}

// normalize drops what other mounts already cover, adds placeholders for
// the missing protected paths (mandatory or denyWrite, named literally)
// inside writable directories, and the structure binds that keep
// protected paths' directories from being renamed.
func (p *Plan) normalize(protectMissing []string) {
	for _, w := range p.Write {
		if p.private(w) && w != "/tmp" {
			p.TmpDirs = append(p.TmpDirs, w)
		}
	}
	p.TmpDirs = sortedUnique(p.TmpDirs)
	p.Write = dropUnder(sortedUnique(p.dropPrivate(p.Write)), nil)
	// A writable directory at or below a protected path (allowWrite
	// "~/**/node_modules/**" reaching into ~/.claude/skills) stays
	// read-only: in decide the deny, mandatory or denyWrite, wins.
	var w []string
	for _, q := range p.Write {
		if under(q, p.Protect) {
			p.Read = append(p.Read, q)
		} else {
			w = append(w, q)
		}
	}
	p.Write = w
	p.Hide = uniqueHidden(p.Hide)
	hidden := hiddenDirs(p.Hide)
	p.Write = dropUnder(p.Write, hidden)
	if p.Root == RootEmpty {
		p.Read = dropUnder(sortedUnique(p.dropPrivate(p.Read)), append(hidden, p.Write...))
	} else {
		p.Read = nil
	}
	for _, m := range protectMissing {
		if ph := placeholderFor(m); ph != "" && p.writable(ph) && !under(ph, hidden) {
			p.Protect = append(p.Protect, ph)
			p.named = append(p.named, ph)
		}
	}
	var prot []string
	for _, q := range sortedUnique(p.dropPrivate(p.Protect)) {
		if p.writable(q) && !under(q, hidden) && !under(q, prot) {
			prot = append(prot, q)
		}
	}
	p.Protect = prot
	var hide []Hidden
	for _, h := range p.Hide {
		if !p.private(h.Path) && !under(h.Path, hiddenDirs(hide)) && p.visible(h.Path) {
			hide = append(hide, h)
		}
	}
	p.Hide = hide
	p.Structure = p.structure()
	p.Sockets = sortedUnique(p.Sockets)
	p.TmpBinds = sortedUnique(p.TmpBinds)
}

// visibleLinks returns the symlinks, found where an empty root shows
// nothing, that lead to something visible: check follows them, so the
// sandbox recreates them. found holds each link's resolved target, "" when
// it leads nowhere.
func (p *Plan) visibleLinks(found []Link) []Link {
	var out []Link
	hidden := hiddenDirs(p.Hide)
	for _, l := range found {
		if l.Target == "" || p.visible(l.Path) || !p.visible(l.Target) || under(l.Target, hidden) {
			continue
		}
		if target, err := os.Readlink(l.Path); err == nil {
			out = append(out, Link{Path: l.Path, Target: target})
		}
	}
	return out
}

// uniqueLinks keeps the first link at each path.
func uniqueLinks(ls []Link) []Link {
	var out []Link
	seen := map[string]bool{}
	for _, l := range ls {
		if !seen[l.Path] {
			seen[l.Path] = true
			out = append(out, l)
		}
	}
	return out
}

// writable reports whether q is inside a writable bind.
func (p *Plan) writable(q string) bool {
	return p.Root == RootWritable || under(q, p.Write)
}

// visible reports whether q can be seen at all before hiding.
func (p *Plan) visible(q string) bool {
	return p.Root != RootEmpty || under(q, p.Read) || under(q, p.Write)
}

// structure returns the directories between a writable bind and a
// protected or hidden path: each is bound on itself, so it is a mount
// point and rename(2) answers EBUSY ("mv .git .git2 && mkdir .git" fails,
// and so does "mv ~/.config/gh ~/.config/gh.bak", which would carry a
// hidden file out from under the rule that names it).
func (p *Plan) structure() []string {
	var out []string
	// Only paths a literal rule names are held in place, gitfiles (a new
	// one in a moved directory would point git elsewhere) and policy
	// files (moving a subdirectory's fence.jsonc away with its directory
	// and making the directory again would put the looser policy above
	// in force there). A name or glob match is still matched wherever a
	// move takes it (within the walk's bounds), and binding its parents
	// would only make renames across them fail (EXDEV: git mv in a
	// monorepo with backend/.env).
	var fixed []string
	for _, q := range p.Protect {
		if slices.Contains(p.named, q) || filepath.Base(q) == ".git" || policyNames[filepath.Base(q)] {
			fixed = append(fixed, q)
		}
	}
	for _, h := range p.Hide {
		if h.Literal && p.writable(h.Path) {
			fixed = append(fixed, h.Path)
		}
	}
	// A directory at or below a protected path is read-only already, and
	// one in a hidden directory is not the host's: a writable bind there
	// would open what the read-only mount or the hiding closed.
	closed := append(slices.Clone(p.Protect), hiddenDirs(p.Hide)...)
	for _, q := range fixed {
		top := "/"
		if p.Root != RootWritable {
			top = deepestAncestor(q, p.Write)
		}
		for d := filepath.Dir(q); d != top && strings.HasPrefix(d, top); d = filepath.Dir(d) {
			if p.privateDir(d) {
				break // a bind there would show the host's /tmp or /run again
			}
			if !under(d, closed) {
				out = append(out, d)
			}
			if d == "/" {
				break
			}
		}
	}
	return sortedUnique(out)
}

// landlockWrite is the writable set as Landlock sees it: every writable
// bind, the private /tmp, /dev (for /dev/null and the terminal) and the
// files bound through /tmp.
func (p *Plan) landlockWrite() []string {
	if p.Root == RootWritable {
		return []string{"/"}
	}
	w := append([]string{"/dev", "/tmp"}, p.Write...)
	return sortedUnique(w)
}

// placeholderFor returns the first missing component of m: creating an
// empty directory there is enough to stop m from being created.
func placeholderFor(m string) string {
	for d := m; d != "/"; d = filepath.Dir(d) {
		parent := filepath.Dir(d)
		if _, err := os.Lstat(parent); err == nil {
			if fi, err := os.Lstat(d); err == nil || !os.IsNotExist(err) {
				_ = fi
				return "" // exists (or cannot be judged): mounted as it is
			}
			return d
		}
	}
	return ""
}

// Placeholders returns the plan's protected paths that a rule names
// literally (and the placeholders for them) that do not exist yet: [Run]
// creates them as empty directories before the sandbox starts. A path the
// walk found that has gone since gets none: a plan made now would not
// have it, and a directory left there would stop the person creating the
// file again (see [protectBind]).
func (p Plan) Placeholders() []string {
	var out []string
	for _, q := range p.Protect {
		if !slices.Contains(p.named, q) {
			continue
		}
		if _, err := os.Lstat(q); os.IsNotExist(err) {
			out = append(out, q)
		}
	}
	return out
}

func deepestAncestor(q string, dirs []string) string {
	best := ""
	for _, d := range dirs {
		if q != d && isUnder(q, d) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

// isUnder reports whether p is dir or below it.
func isUnder(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == '/'
}

func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if isUnder(p, d) {
			return true
		}
	}
	return false
}

// dropUnder keeps the paths of ps not below another of ps nor below any
// of cover; ps must be sorted.
func dropUnder(ps, cover []string) []string {
	var out []string
	for _, q := range ps {
		if !under(q, out) && !under(q, cover) {
			out = append(out, q)
		}
	}
	return out
}

func sortedUnique(ps []string) []string {
	out := slices.Clone(ps)
	slices.Sort(out)
	return slices.Compact(out)
}

func uniqueHidden(hs []Hidden) []Hidden {
	out := slices.Clone(hs)
	slices.SortFunc(out, func(a, b Hidden) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(out, func(a, b Hidden) bool { return a.Path == b.Path })
}

func hiddenDirs(hs []Hidden) []string {
	var out []string
	for _, h := range hs {
		if h.Dir {
			out = append(out, h.Path)
		}
	}
	return out
}

// isTmp reports whether q is under /tmp, which is private in the sandbox.
func isTmp(q string) bool { return isUnder(q, "/tmp") }

// resolveOr returns p with every symlink resolved, or p cleaned when it
// cannot be resolved.
func resolveOr(p string) string {
	if _, r, err := decide.Canonicalize(p, "/", "/"); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// resolveExisting returns the resolved path of p when it exists, else "".
func resolveExisting(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	_, r, err := decide.Canonicalize(p, "/", "/")
	if err != nil {
		return ""
	}
	if _, err := os.Lstat(r); err != nil {
		return ""
	}
	return r
}

func expandHome(p, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	}
	return p
}

// socketDirs are where hosts keep their unix sockets, resolved (/var/run
// is usually a symlink to /run).
func socketDirs() []string {
	var out []string
	for _, d := range []string{"/run", "/var/run"} {
		if r := resolveExisting(d); r != "" {
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				out = append(out, r)
			}
		}
	}
	return sortedUnique(out)
}

// tmpBinds returns the words of the command line that match one of globs:
// files directly in the glob's directory (/tmp, or the temp dir an agent
// writes its cwd file in), regular or not yet created, never a symlink.
func tmpBinds(globs, command []string) []string {
	var out []string
	for _, arg := range command {
		for _, w := range strings.FieldsFunc(arg, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\'' || r == '"' || r == ';' || r == '&' || r == '|' || r == '<' || r == '>' || r == '(' || r == ')'
		}) {
			if !filepath.IsAbs(w) || filepath.Clean(w) != w {
				continue
			}
			for _, g := range globs {
				if filepath.Dir(g) != filepath.Dir(w) || hasMeta(filepath.Dir(g)) {
					continue
				}
				if ok, _ := path.Match(g, w); ok {
					if fi, err := os.Lstat(w); err == nil && !fi.Mode().IsRegular() {
						continue
					}
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// ensureEmptyFile creates the empty, mode-0 file mounted over hidden files.
func ensureEmptyFile(f string) error {
	if f == "" {
		return nil
	}
	fi, err := os.Lstat(f)
	if err == nil {
		if !fi.Mode().IsRegular() || fi.Size() != 0 || fi.Mode().Perm() != 0 {
			return fmt.Errorf("%s must be an empty file with mode 0", f)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d", f, os.Getpid())
	h, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	h.Close()
	if err := os.Chmod(tmp, 0); err != nil {
		return err
	}
	return os.Rename(tmp, f)
}
