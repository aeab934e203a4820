package lint

import (
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
)

// checkEnvOpened warns at a picket.permissions rule of the policy's own
// files that grants reading (read, write) and so makes readable a .env
// file below its literal directory that a built-in template hides: the
// template's .env rules sit below every rule a project writes, so
// "vendor/**" at level read opens vendor/.env too. A rule whose own
// pattern names a .env file is taken as meant.
func checkEnvOpened(t *target) []Warning {
	var out []Warning
	for _, pm := range t.spec.Permissions {
		if strings.HasPrefix(pm.Source, "builtin:") || (pm.Permission != decide.LevelRead && pm.Permission != decide.LevelWrite) {
			continue
		}
		if strings.HasPrefix(filepath.Base(pm.Pattern), ".env") {
			continue
		}
		probe := filepath.Join(t.envProbeDir(pm.Pattern), ".env")
		if !t.readable(probe) || t.readableWithout(pm, probe) {
			continue
		}
		e := entry{rule: decide.Rule{Pattern: pm.Pattern, Source: pm.Source}, field: fieldPermissions}
		out = append(out, t.warn(e, CodeEnvOpened,
			"picket.permissions rule %q (%s) also lets agents read %s, which the built-in template hides: add a \"view\" rule of a higher priority for the .env files below it, or name the one you mean",
			pm.Pattern, pm.Permission, t.home(probe)))
	}
	return out
}

// envProbeDir is a directory a rule's pattern reaches into: its literal
// directory, or for a "**/" rule the workspace with the literal names
// that follow ("**/gen/**" reaches <root>/gen).
func (t *target) envProbeDir(pattern string) string {
	if dir, ok := t.literalPath(pattern); ok {
		return dir
	}
	parts := []string{t.spec.Root}
	for _, c := range strings.Split(strings.TrimPrefix(pattern, "**/"), "/") {
		if decide.HasGlob(c) {
			break
		}
		parts = append(parts, c)
	}
	return filepath.Join(parts...)
}

// readable reports whether the policy lets agents read p.
func (t *target) readable(p string) bool {
	return decide.Decide(t.loaded.Policy, decide.Request{Access: decide.Read, Path: p, Resolved: t.resolve(p), Size: -1}).Allow
}

// readableWithout reports whether p is readable with the permissions rule
// pm taken out of the policy.
func (t *target) readableWithout(pm decide.Permission, p string) bool {
	s := t.spec
	s.Permissions = nil
	for _, x := range t.spec.Permissions {
		if x != pm {
			s.Permissions = append(s.Permissions, x)
		}
	}
	pol, err := decide.Compile(s)
	if err != nil {
		return true
	}
	pol = pol.WithMode(t.loaded.Policy.Mode())
	return decide.Decide(pol, decide.Request{Access: decide.Read, Path: p, Resolved: t.resolve(p), Size: -1}).Allow
}
