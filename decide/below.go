package decide

import (
	"strings"
	"sync"
)

// Dir holds what is left to decide for the entries of one directory once
// the directory itself is allowed: deny rules hold for everything below a
// path they match, so a rule that did not match the directory can deny an
// entry only by matching the entry itself, and for most rules the entry's
// name alone shows that it cannot. A recursive search (Grep over 100,000
// files) judges each entry with [Dir.Clear] and calls [Decide] only for
// the few it does not clear; the answer is Decide's either way.
//
// A Dir is for reads and lists. The zero Dir clears nothing.
type Dir struct {
	p      Policy
	access Access
	bases  []string        // the directory's spellings, folded, as Decide reads them
	filter []*pattern      // rules that may match an entry: its name must pass their last segment
	sets   []*ruleSet      // denyRead, and the permissions that deny access
	names  map[string]bool // entries that lead to a rule's literal directory
	ok     bool
}

// Below returns the Dir of the directory reached as spelled and resolved
// as resolved, which [Decide] allowed for access (not by a grant): the
// entry name of it is the request {Path: spelled+"/"+name, Resolved:
// resolved+"/"+name}. A directory reached through a link, or one a grant
// let in, must be decided entry by entry.
func (p Policy) Below(access Access, spelled, resolved string) Dir {
	d := Dir{p: p, access: access}
	if p.c == nil || access == Write || !strings.HasPrefix(resolved, "/") || strings.IndexByte(resolved, 0) >= 0 {
		return d
	}
	res, req := p.fold(resolved), p.fold(spelled)
	d.bases = []string{res}
	if req != res && strings.HasPrefix(req, "/") {
		d.bases = append(d.bases, req)
	}
	if !p.boundaryCovers(res) || p.permitsLess(access, d.bases) {
		return d
	}
	d.sets = []*ruleSet{p.c.denyRead.get(), p.c.perms}
	d.names = map[string]bool{}
	for _, b := range d.bases {
		for _, s := range d.sets {
			if !d.gather(s, b) {
				return d
			}
		}
	}
	d.ok = true
	return d
}

// Clear reports whether [Decide] surely allows the entry name: false
// means it must be decided.
func (d Dir) Clear(name string) bool {
	if !d.ok || name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return false
	}
	n := d.p.fold(name)
	if d.names[n] {
		return false
	}
	for _, s := range d.sets {
		if s.byName[n] != nil {
			return false
		}
		if dot := strings.LastIndexByte(n, '.'); dot >= 0 && s.byExt[n[dot+1:]] != nil {
			return false
		}
	}
	for _, pt := range d.filter {
		if pt.lastSeg().Match(n) {
			return false
		}
	}
	_, blocked := d.p.c.blocklist.match(n)
	return !blocked
}

// boundaryCovers reports whether the boundary layer allows every read and
// list below res: it does not apply to them, or res is under the
// workspace (workspace-write) or a literal allow entry, which cover what
// is below them.
func (p Policy) boundaryCovers(res string) bool {
	if !p.spec.DefaultDenyRead && !p.spec.StrictDenyRead || p.mode == Full || p.mode == WorkspaceWrite && p.underRoot(res) {
		return true
	}
	sets := []*ruleSet{p.c.allowWrite.get(), p.c.allowRead.get()}
	if !p.spec.StrictDenyRead {
		sets = append(sets, p.c.system.get())
	}
	for _, s := range sets {
		if s.candidates(res, func(pt *pattern) bool { return pt.literal && pt.matchExact(res) }) {
			return true
		}
	}
	return false
}

// permitsLess reports whether a permission rule whose level does not
// allow access matches a spelling of the directory (a rule of level none,
// also a directory above it in the workspace), though a rule of higher
// priority let the directory itself through: it may match the entries too
// ("x/**" matches what is below x, none covers it), where other rules
// compete, so they are decided one by one.
func (p Policy) permitsLess(access Access, bases []string) bool {
	for _, b := range bases {
		if p.c.perms.candidates(b, func(pt *pattern) bool {
			pm := p.c.perm[pt]
			return !pm.Permission.allows(access) && permMatches(pt, pm, b, p.c.root)
		}) {
			return true
		}
	}
	return false
}

// gather collects what of s could match an entry of the directory b: the
// names of entries on the way to a rule's literal directory, and the glob
// rules indexed under b's own path, whose last segment each entry's name
// must pass. ok is false when an entry's name cannot rule a candidate out.
func (d *Dir) gather(s *ruleSet, b string) (ok bool) {
	if s == nil || s.n == 0 {
		return true
	}
	for n := range s.below[b] {
		d.names[n] = true
	}
	ok = true
	// candidates walks b's ancestors, names and extensions, and the
	// unindexed rules: those an entry shares with b.
	s.candidates(b, func(pt *pattern) bool {
		if s == d.p.c.perms && d.p.c.perm[pt].Permission.allows(d.access) {
			return false // a level that allows access denies nothing
		}
		if pt.literal || pt.lastSeg() == nil {
			ok = false // a literal one would have denied b; a last segment that takes anything
			return true
		}
		d.filter = append(d.filter, pt)
		return false
	})
	return ok
}

// lastSeg is a matcher for the last segment of the paths the pattern can
// match once no directory above them matches it, or nil when that segment
// is not a plain glob of one name (it holds "**", or a class, which may
// match "/"). A "dir/**" pattern matches below a directory only when
// "dir" matched that directory: there the last segment is dir's.
func (pt *pattern) lastSeg() matcher {
	pt.seg.once.Do(func() {
		abs := pt.abs
		if pt.baseSrc != "" {
			abs = strings.TrimSuffix(abs, "/**")
		}
		glob := abs // the part after the literal directories, which are quoted
		if !pt.anywhere && strings.HasPrefix(abs, pt.prefix) {
			glob = abs[len(pt.prefix):]
		}
		seg := abs[strings.LastIndexByte(abs, '/')+1:]
		if strings.Contains(seg, "**") || strings.Contains(glob, "[") || seg == "" {
			return
		}
		if m, err := compileGlob(translate(seg)); err == nil {
			pt.seg.m = m
		}
	})
	return pt.seg.m
}

// lazySeg holds a pattern's last-segment matcher once built.
type lazySeg struct {
	once sync.Once
	m    matcher
}
