package decide

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Rule is one pattern as written and the policy file that contributed it
// (or "builtin:<name>").
type Rule struct {
	Pattern string `json:"pattern"`
	Source  string `json:"source"`
}

// Rules is shorthand for a list of rules from one source.
func Rules(source string, patterns ...string) []Rule {
	out := make([]Rule, len(patterns))
	for i, p := range patterns {
		out[i] = Rule{Pattern: p, Source: source}
	}
	return out
}

// Level is a picket.permissions level.
type Level string

// The permission levels, from hidden to writable.
const (
	LevelNone  Level = "none"  // invisible: every access fails as if the path did not exist
	LevelView  Level = "view"  // list only
	LevelRead  Level = "read"  // list and read
	LevelWrite Level = "write" // everything
)

var levelRank = map[Level]int{LevelNone: 0, LevelView: 1, LevelRead: 2, LevelWrite: 3}

func (l Level) allows(a Access) bool {
	switch a {
	case List:
		return levelRank[l] >= 1
	case Read:
		return levelRank[l] >= 2
	}
	return l == LevelWrite
}

// Permission is one picket.permissions rule. Type is "glob" (default),
// "directory" (the path and everything below) or "file" (that path only).
type Permission struct {
	Pattern    string `json:"pattern"`
	Permission Level  `json:"permission"`
	Priority   int    `json:"priority,omitempty"`
	Type       string `json:"type,omitempty"`
	Source     string `json:"source,omitempty"`
}

// WriteGuards limit what a write may leave behind.
type WriteGuards struct {
	MaxBytes       int64    `json:"maxBytes,omitempty"` // 0: no limit
	DenyExtensions []string `json:"denyExtensions,omitempty"`
	ReadBeforeEdit bool     `json:"readBeforeEdit,omitempty"`
	// ExtensionSources names the policy file that listed each entry of
	// DenyExtensions, for the Decision's source; one missing falls back
	// to Sources["picket.writeGuards"].
	ExtensionSources map[string]string `json:"-"`
}

// Spec is a policy as plain values: what a policy file chain resolves to,
// or what a test or an embedding server writes in one line. [Compile] turns
// it into a [Policy].
type Spec struct {
	Root string // workspace root, absolute
	Home string // the user's home, for "~" in patterns
	Mode Mode

	AllowRead, DenyRead, AllowWrite, DenyWrite      []Rule
	DefaultDenyRead, StrictDenyRead, AllowGitConfig bool

	Blocklist       []Rule
	Permissions     []Permission
	WriteGuards     WriteGuards
	CaseInsensitive bool

	// Mandatory are the non-overridable write denies; [Load] fills them
	// from [MandatoryRules]. A test may leave them empty.
	Mandatory []Rule

	// Sources names the file that set each scalar field, keyed by its
	// dotted name ("filesystem.defaultDenyRead", "picket.mode"), and the
	// file that turned on readBeforeEdit by [RuleReadBeforeEdit], which the
	// hook's deny names.
	Sources map[string]string
	// Origin is the file a person would edit: the nearest file of the
	// chain, or "builtin:<template>".
	Origin string
}

// Policy is a compiled, immutable [Spec]. Copies are cheap and share the
// compiled index; [Policy.WithMode] gives a session its own mode without
// touching anyone else's.
type Policy struct {
	spec Spec
	mode Mode
	c    *compiled
}

type compiled struct {
	mandatory, allowRead, allowWrite, denyRead, denyWrite, system lazySet
	blocklist                                                     *nameSet
	perms                                                         *ruleSet
	perm                                                          map[*pattern]Permission
	denyExt                                                       map[string]string // ".zip" => the entry as written (".ZIP")
	root                                                          string
}

// lazySet is one list of rules. Compile checks every rule as written at
// once, so a bad pattern is an error naming it and no rule is ever dropped;
// the index, with the resolved spelling of each literal directory (an lstat
// walk apiece), is built when a decision first needs the list. A hook
// process deciding a read never looks at the write lists.
type lazySet struct {
	once  sync.Once
	build func() *ruleSet
	set   *ruleSet
}

func (l *lazySet) get() *ruleSet {
	l.once.Do(func() { l.set, l.build = l.build(), nil })
	return l.set
}

// prepare checks rules and arranges for their index to be built on first
// use.
func (l *lazySet) prepare(rules []Rule, root, home string, fold, deny bool, observe func(string)) error {
	written := make([]*pattern, len(rules))
	for i, r := range rules {
		pt, err := writtenPattern(r, root, home, fold)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Source, err)
		}
		pt.deny = deny
		written[i] = pt
	}
	l.build = func() *ruleSet {
		canon := newCanonCache(observe)
		resolveDir := canon.dir
		if !deny {
			resolveDir = canon.allowDir(root)
		}
		pts := written
		for _, r := range rules {
			rp, dir, err := resolvedPattern(r, root, home, resolveDir, fold)
			if err != nil {
				// Cannot happen (see resolvedPattern); should it, a deny
				// covers the whole resolved directory, an allow drops it.
				if !deny {
					continue
				}
				if fold {
					dir = strings.ToLower(dir)
				}
				rp = &pattern{rule: r, abs: dir, prefix: dir, literal: true}
			}
			if rp != nil {
				rp.deny = deny
				pts = append(pts[:len(pts):len(pts)], rp)
			}
		}
		return newRuleSet(pts)
	}
	return nil
}

// Spec returns the plain values the policy was compiled from.
func (p Policy) Spec() Spec { return p.spec }

// Mode returns the mode decisions use.
func (p Policy) Mode() Mode { return p.mode }

// WithMode returns a copy of p that decides under mode m.
func (p Policy) WithMode(m Mode) Policy {
	if m == "" {
		m = WorkspaceWrite
	}
	p.mode = m
	return p
}

// Compile checks and compiles s. Literal leading directories of patterns are
// canonicalized against the filesystem, so a rule on a symlinked directory
// also matches the resolved path. A pattern that cannot compile is an error
// naming it: no rule is ever dropped.
func Compile(s Spec) (Policy, error) { return compile(s, func(string) {}) }

// compile is Compile telling observe of each path it resolves, now or
// when a list is first needed (see [Env.Observe]).
func compile(s Spec, observe func(string)) (Policy, error) {
	if !filepath.IsAbs(s.Root) {
		return Policy{}, fmt.Errorf("workspace root %q is not absolute", s.Root)
	}
	mode, err := ParseMode(string(s.Mode))
	if err != nil {
		return Policy{}, err
	}
	s.Mode = mode
	canon := newCanonCache(observe)
	root := canon.dir(s.Root)
	c := &compiled{root: root, perm: map[*pattern]Permission{}, denyExt: map[string]string{}}
	if s.CaseInsensitive {
		c.root = strings.ToLower(root)
	}
	sets := []struct {
		dst   *lazySet
		rules []Rule
		field string
		deny  bool
	}{
		{&c.mandatory, s.Mandatory, "mandatory", true},
		{&c.allowRead, s.AllowRead, "filesystem.allowRead", false},
		{&c.allowWrite, s.AllowWrite, "filesystem.allowWrite", false},
		{&c.denyRead, s.DenyRead, "filesystem.denyRead", true},
		{&c.denyWrite, s.DenyWrite, "filesystem.denyWrite", true},
	}
	if s.DefaultDenyRead && !s.StrictDenyRead {
		sets = append(sets, struct {
			dst   *lazySet
			rules []Rule
			field string
			deny  bool
		}{&c.system, systemReadRules(s.Home), "system", false})
	} else {
		c.system.prepare(nil, root, s.Home, false, false, observe)
	}
	for _, set := range sets {
		if err := set.dst.prepare(set.rules, root, s.Home, s.CaseInsensitive, set.deny, observe); err != nil {
			return Policy{}, fmt.Errorf("%s: %w", set.field, err)
		}
	}
	if c.blocklist, err = newNameSet(s.Blocklist); err != nil {
		return Policy{}, fmt.Errorf("picket.blocklist: %w", err)
	}
	if c.perms, err = compilePerms(s.Permissions, root, s.Home, s.CaseInsensitive, c.perm, canon); err != nil {
		return Policy{}, fmt.Errorf("picket.permissions: %w", err)
	}
	for _, e := range s.WriteGuards.DenyExtensions {
		if ext := strings.ToLower("." + strings.TrimPrefix(e, ".")); c.denyExt[ext] == "" {
			c.denyExt[ext] = e
		}
	}
	return Policy{spec: s, mode: mode, c: c}, nil
}

// MustCompile is Compile for tests and fixed policies; it panics on error.
func MustCompile(s Spec) Policy {
	p, err := Compile(s)
	if err != nil {
		panic(err)
	}
	return p
}

func compilePerms(perms []Permission, root, home string, fold bool, into map[*pattern]Permission, canon *canonCache) (*ruleSet, error) {
	var pts []*pattern
	for _, pm := range perms {
		if _, ok := levelRank[pm.Permission]; !ok {
			return nil, fmt.Errorf("%s: pattern %q: unknown permission %q", pm.Source, pm.Pattern, pm.Permission)
		}
		switch pm.Type {
		case "", "glob", "directory", "file":
		default:
			return nil, fmt.Errorf("%s: pattern %q: unknown type %q", pm.Source, pm.Pattern, pm.Type)
		}
		// A level that grants (read, write) lifts the boundary, so it is
		// resolved as an allow rule is.
		resolveDir := canon.dir
		if pm.Permission == LevelRead || pm.Permission == LevelWrite {
			resolveDir = canon.allowDir(root)
		}
		ps, err := compilePattern(Rule{Pattern: pm.Pattern, Source: pm.Source}, root, home, resolveDir, fold)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pm.Source, err)
		}
		for _, pt := range ps {
			pt.deny = pm.Permission != LevelWrite
			if pm.Type == "file" || pm.Type == "directory" {
				if !pt.literal {
					return nil, fmt.Errorf("%s: pattern %q: type %q takes a path without glob characters", pm.Source, pm.Pattern, pm.Type)
				}
			}
			into[pt] = pm
		}
		pts = append(pts, ps...)
	}
	return newRuleSet(pts), nil
}

// canonCache resolves the literal directories of many patterns during one
// Compile, sharing lstat results: most patterns share their leading
// directories (home, the workspace root).
type canonCache struct {
	stats   map[string]lstatResult
	observe func(string) // told of each path before its first lstat
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

func newCanonCache(observe func(string)) *canonCache {
	return &canonCache{stats: map[string]lstatResult{}, observe: observe}
}

func (c *canonCache) lstat(p string) (fs.FileInfo, error) {
	if r, ok := c.stats[p]; ok {
		return r.fi, r.err
	}
	c.observe(p)
	fi, err := os.Lstat(p)
	c.stats[p] = lstatResult{fi, err}
	return fi, err
}

// dir resolves a literal path for pattern anchoring; on any error the path
// is kept as written (the written spelling is matched either way).
// allowDir is dir for an allow rule's literal directory: a symlink inside
// the workspace root is not followed. The agent can make one there
// ("build -> ~" where allowWrite names ./build), and an allow rule must not
// move with it; a symlink outside (/tmp on macOS, a linked ~/src/lib) is
// followed as for any rule. With "/" as the root every symlink is followed.
func (c *canonCache) allowDir(root string) func(string) string {
	return func(p string) string {
		if root == "/" {
			return c.dir(p)
		}
		abs, err := absolute(p, "/", "/")
		if err != nil {
			return filepath.Clean(p)
		}
		return c.allowResolve(filepath.Clean(abs), root)
	}
}

func (c *canonCache) allowResolve(abs, root string) string {
	if abs == "/" {
		return abs
	}
	q := filepath.Join(c.allowResolve(filepath.Dir(abs), root), filepath.Base(abs))
	if strings.HasPrefix(q, root+"/") {
		return q // inside the workspace: taken as written
	}
	return c.dir(q)
}

func (c *canonCache) dir(p string) string {
	abs, err := absolute(p, "/", "/")
	if err != nil {
		return filepath.Clean(p)
	}
	r, err := resolve(abs, c.lstat)
	if err != nil {
		return filepath.Clean(p)
	}
	return r
}
