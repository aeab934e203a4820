package decide

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Decide judges one request against p. Both spellings of the path are in
// r: Resolved must be what [Canonicalize] returns (absolute; it is cleaned
// again here, and one that is relative or holds a NUL byte is denied), so
// Decide resolves no path of the request and can be called concurrently
// from any number of sessions. It is not quite pure: the first decision
// that needs one of p's rule lists resolves that list's literal
// directories (an lstat each, see [Compile]), once for the life of p.
func Decide(p Policy, r Request) Decision {
	d := Decision{Access: r.Access, Path: r.Path, Resolved: r.Resolved}
	if p.c == nil {
		return deny(d, LayerBoundary, RuleCanonicalize, Rule{}, "picket has no compiled policy", "")
	}
	if !strings.HasPrefix(r.Resolved, "/") || strings.IndexByte(r.Resolved, 0) >= 0 {
		return deny(d, LayerBoundary, RuleCanonicalize, Rule{}, "the path was not resolved", "")
	}
	req, res := p.fold(filepath.Clean(r.Path)), p.fold(filepath.Clean(r.Resolved))
	spellings := []string{res}
	if req != res && strings.HasPrefix(req, "/") {
		spellings = append(spellings, req)
	}
	write := r.Access == Write

	if write {
		if pt := firstUnderAny(p.c.mandatory.get(), spellings); pt != nil {
			return deny(d, LayerMandatory, RuleMandatory, pt.rule,
				"writes here are never allowed: the path is protected by picket itself (non-overridable)", "")
		}
		if p.mode == ReadOnly {
			return deny(d, LayerMode, RuleMode, Rule{Source: p.source("picket.mode")},
				"session mode is read-only: every write is denied",
				"work without writing, or ask the person to switch the session's mode or change picket.mode in the policy")
		}
	}

	if !r.Granted {
		if dd, denied := p.fence(d, spellings, res, r.Access); denied {
			return dd
		}
	}

	if write {
		if dd, denied := p.writeGuard(d, r); denied {
			return dd
		}
	}
	d.Allow = true
	return d
}

// fence applies the boundary and blocklist layers, the ones a grant lifts.
func (p Policy) fence(d Decision, spellings []string, res string, a Access) (Decision, bool) {
	write := a == Write
	// A permissions rule lifts the boundary only where it matches the
	// resolved path, as allow rules are read (else a symlink under
	// "output/**" would carry its writes anywhere); on either spelling it
	// may restrict. Only a level that grants reading (read, write) lifts
	// it: none and view restrict, so the code template's "view" on .env
	// files opens no listing that defaultDenyRead closes.
	if !p.lifts(spellings[:1]) && p.mode != Full {
		if dd, denied := p.boundary(d, res, write); denied {
			return dd, true
		}
	}
	if dd, denied := p.blocklist(d, spellings, write); denied {
		return dd, true
	}
	if perm, havePerm := p.permission(spellings); havePerm && !perm.Permission.allows(a) {
		return p.permissionDeny(d, perm), true
	}
	return d, false
}

// lifts reports whether the picket.permissions rule in force for the
// resolved path replaces the boundary: it grants at least reading.
func (p Policy) lifts(resolved []string) bool {
	pm, ok := p.permission(resolved)
	return ok && (pm.Permission == LevelRead || pm.Permission == LevelWrite)
}

// WouldAllow reports whether adding the resolved path of a denied request
// to allowRead (reads, lists) or allowWrite (writes) would let it through:
// only then can a persisted grant help. A path denied by denyRead,
// denyWrite, picket.blocklist or a permissions rule cannot be fixed by an
// allow entry.
func WouldAllow(p Policy, r Request) (bool, error) {
	s := p.spec
	pat, ok := ExactPattern(r.Resolved) // as persist writes it
	if !ok {
		return false, nil // persist would refuse it
	}
	extra := Rule{Pattern: pat, Source: "persist"}
	if r.Access == Write {
		s.AllowWrite = append(append([]Rule{}, s.AllowWrite...), extra)
	} else {
		s.AllowRead = append(append([]Rule{}, s.AllowRead...), extra)
	}
	q, err := Compile(s)
	if err != nil {
		return false, err
	}
	return Decide(q.WithMode(p.mode), r).Allow, nil
}

func (p Policy) fold(s string) string {
	if p.spec.CaseInsensitive {
		return strings.ToLower(s)
	}
	return s
}

func (p Policy) source(field string) string {
	if s := p.spec.Sources[field]; s != "" {
		return s
	}
	return p.spec.Origin
}

func firstUnderAny(s *ruleSet, spellings []string) *pattern {
	for _, sp := range spellings {
		if pt := s.firstUnder(sp); pt != nil {
			return pt
		}
	}
	return nil
}

func deny(d Decision, layer Layer, rule string, r Rule, reason, suggestion string) Decision {
	d.Allow = false
	d.Layer, d.Rule, d.Pattern, d.Source = layer, rule, r.Pattern, r.Source
	d.Reason, d.Suggestion = reason, suggestion
	return d
}

// underRoot reports whether res is the workspace root or below it.
func (p Policy) underRoot(res string) bool {
	root := p.c.root
	return res == root || root == "/" || strings.HasPrefix(res, root) && res[len(root)] == '/'
}

// boundary applies defaultDenyRead to reads and the allowWrite list (plus
// the workspace root in workspace-write mode) to writes.
func (p Policy) boundary(d Decision, res string, write bool) (Decision, bool) {
	c := p.c
	writable := func() bool {
		return p.mode == WorkspaceWrite && p.underRoot(res) || c.allowWrite.get().firstExact(res) != nil
	}
	if write {
		if writable() {
			return d, false
		}
		return deny(d, LayerBoundary, RuleAllowWrite, Rule{Source: p.source("filesystem.allowWrite")},
			"writes outside the workspace and filesystem.allowWrite are denied",
			"write inside the workspace instead; if this path is really needed, ask the person to grant it or to add it to filesystem.allowWrite in "+p.editTarget()), true
	}
	if !p.spec.DefaultDenyRead && !p.spec.StrictDenyRead {
		return d, false
	}
	if writable() || c.allowRead.get().firstExact(res) != nil || !p.spec.StrictDenyRead && c.system.get().firstExact(res) != nil {
		return d, false
	}
	field := "filesystem.defaultDenyRead"
	if p.spec.StrictDenyRead {
		field = "filesystem.strictDenyRead"
	}
	return deny(d, LayerBoundary, RuleDefaultDenyRead, Rule{Source: p.source(field)},
		"reads outside filesystem.allowRead are denied (defaultDenyRead)",
		"read inside the workspace instead; if this path is really needed, ask the person to grant it or to add it to filesystem.allowRead in "+p.editTarget()), true
}

// editTarget names the file a person would change.
func (p Policy) editTarget() string {
	if p.spec.Origin == "" || strings.HasPrefix(p.spec.Origin, "builtin:") {
		return filepath.Join(p.spec.Root, "fence.jsonc")
	}
	return p.spec.Origin
}

// blocklist applies denyRead, denyWrite and picket.blocklist to both
// spellings of the path.
func (p Policy) blocklist(d Decision, spellings []string, write bool) (Decision, bool) {
	if write {
		if pt := firstUnderAny(p.c.denyWrite.get(), spellings); pt != nil {
			return deny(d, LayerBlocklist, RuleDenyWrite, pt.rule,
				fmt.Sprintf("writes matching %q are denied", pt.rule.Pattern),
				"choose another path; only a person can change this rule in "+pt.rule.Source), true
		}
	} else if pt := firstUnderAny(p.c.denyRead.get(), spellings); pt != nil {
		return deny(d, LayerBlocklist, RuleDenyRead, pt.rule,
			fmt.Sprintf("reads matching %q are denied", pt.rule.Pattern),
			"do not read this path; if it is really needed, ask the person to change this rule in "+pt.rule.Source), true
	}
	for _, sp := range spellings {
		if r, ok := p.c.blocklist.match(sp); ok {
			return deny(d, LayerBlocklist, RuleBlocklist, r,
				fmt.Sprintf("names matching %q are blocked in every mode", r.Pattern),
				"this file likely holds secrets; work without it, or ask the person to change picket.blocklist in "+r.Source), true
		}
	}
	return d, false
}

// permission returns the highest-ordered picket.permissions rule matching
// the path; with several spellings, the most restrictive of their levels.
func (p Policy) permission(spellings []string) (Permission, bool) {
	var best Permission
	found := false
	for _, sp := range spellings {
		pm, ok := p.permissionOf(sp)
		if ok && (!found || levelRank[pm.Permission] < levelRank[best.Permission]) {
			best, found = pm, true
		}
	}
	return best, found
}

func (p Policy) permissionOf(path string) (Permission, bool) {
	var best Permission
	var bestKey [3]int
	found := false
	p.c.perms.candidates(path, func(pt *pattern) bool {
		pm := p.c.perm[pt]
		if !permMatches(pt, pm, path, p.c.root) {
			return false
		}
		key := [3]int{pm.Priority, typeRank(pm.Type), specificity(pt.abs)}
		if !found || less(bestKey, key) || bestKey == key && levelRank[pm.Permission] < levelRank[best.Permission] {
			best, bestKey, found = pm, key, true
		}
		return false
	})
	return best, found
}

// permMatches reports whether a permissions rule covers path. A "none"
// rule also covers what is below a directory it matches in the workspace
// (root), as a directory that does not exist has nothing in it: a
// "**/.env*" that hides .env.d hides .env.d/prod too (it still competes
// with the rules that match the file itself, by priority). The workspace
// itself and the directories above it are not such directories: a project
// in ~/.envs/proj is not hidden by "**/.env*". Other levels match as
// written.
func permMatches(pt *pattern, pm Permission, path, root string) bool {
	switch {
	case pm.Type == "file":
		return path == pt.abs
	case pt.matchExact(path):
		return true
	case pm.Permission != LevelNone:
		return false
	}
	for q := parent(path); q != root && strings.HasPrefix(q, root) && (root == "/" || q[len(root)] == '/'); q = parent(q) {
		if pt.matchExact(q) {
			return true
		}
	}
	return false
}

func typeRank(t string) int {
	switch t {
	case "file":
		return 3
	case "directory":
		return 2
	}
	return 1
}

// specificity counts the literal characters of an anchored pattern, so
// "/secrets/**" outranks "**/*" at equal priority and type.
func specificity(abs string) int {
	n := 0
	for i := 0; i < len(abs); i++ {
		if !isMeta(abs[i]) {
			n++
		}
	}
	return n
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func (p Policy) permissionDeny(d Decision, pm Permission) Decision {
	r := Rule{Pattern: pm.Pattern, Source: pm.Source}
	switch pm.Permission {
	case LevelNone:
		return deny(d, LayerBlocklist, RulePermissions, r, "no such file or directory", "")
	case LevelView:
		suggestion := "list it instead of reading it, or ask the person to raise its picket.permissions level"
		if tmpl, ok := strings.CutPrefix(pm.Source, "builtin:"); ok {
			suggestion = fmt.Sprintf("the %s template keeps this file from agents, as it likely holds secrets; work without it, or ask the person to grant it or to add a picket.permissions rule for it in %s", tmpl, p.editTarget())
		}
		return deny(d, LayerBlocklist, RulePermissions, r, "permission denied: the path may be listed but not read", suggestion)
	}
	return deny(d, LayerBlocklist, RulePermissions, r, "permission denied: the path is read-only",
		"write somewhere else, or ask the person to raise its picket.permissions level")
}

// deniedExt returns the denied extension name ends with, lowercased with a
// leading dot, and the denyExtensions entry as written ("", "" when none):
// each suffix from a dot is one, so ".tar.gz" is denied in "a.tar.gz" as
// ".gz" is.
func (p Policy) deniedExt(name string) (ext, entry string) {
	if len(p.c.denyExt) == 0 {
		return "", ""
	}
	base := strings.ToLower(filepath.Base(name))
	for i := 0; i < len(base); i++ {
		if base[i] == '.' && p.c.denyExt[base[i:]] != "" {
			return base[i:], p.c.denyExt[base[i:]]
		}
	}
	return "", ""
}

// writeGuard applies picket.writeGuards' size and extension limits.
func (p Policy) writeGuard(d Decision, r Request) (Decision, bool) {
	g := p.spec.WriteGuards
	src := Rule{Source: p.source("picket.writeGuards")}
	if g.MaxBytes > 0 && r.Size > g.MaxBytes {
		return deny(d, LayerWriteGuard, RuleMaxBytes, src,
			fmt.Sprintf("the write is %d bytes, over the %d-byte limit", r.Size, g.MaxBytes),
			"write smaller files, or split the content"), true
	}
	if ext, entry := p.deniedExt(r.Resolved); ext != "" {
		src.Pattern = entry
		if f := g.ExtensionSources[entry]; f != "" {
			src.Source = f
		}
		return deny(d, LayerWriteGuard, RuleDenyExtensions, src,
			fmt.Sprintf("writes of %s files are denied", ext),
			"write a text format instead; binaries and archives are not edited by agents"), true
	}
	return d, false
}
