package lint

import (
	"path/filepath"
	"strings"
)

// canary is a path no policy should open up, and the list that must not.
type canary struct {
	path  string // "~/..." is under home
	field string
}

var canaries = []canary{
	{"/etc/passwd", fieldAllowRead},
	{"~/.ssh/id_rsa", fieldAllowRead},
	{"~/.aws/credentials", fieldAllowRead},
	{"~/.bash_history", fieldAllowRead},
	{"/etc/hosts", fieldAllowWrite},
	{"~/.bashrc", fieldAllowWrite},
	{"~/.zshrc", fieldAllowWrite},
}

// checkCanaries tests each allowRead and allowWrite entry against the
// canaries and warns once per entry, naming every canary it opens up. A
// relative entry is left to checkWorkspace when the workspace holds home.
func checkCanaries(t *target) []Warning {
	var out []Warning
	skipRelative := t.rootCoversHome()
	for _, e := range t.entries(fieldAllowRead, fieldAllowWrite) {
		if skipRelative && relative(e.rule.Pattern) {
			continue
		}
		var hit, still []string
		matches := t.matcher(e.field, e.rule)
		for _, c := range canaries {
			p, ok := t.expandHome(c.path)
			if !ok || c.field != e.field || !matches(p) {
				continue
			}
			hit = append(hit, c.path)
			if _, denied := t.denied(accessOf(e.field), p); denied {
				still = append(still, c.path)
			}
		}
		if len(hit) > 0 {
			out = append(out, t.canaryWarning(e, hit, still))
		}
	}
	return out
}

func (t *target) canaryWarning(e entry, hit, still []string) Warning {
	code, verb := CodeCanaryRead, "read"
	if e.field == fieldAllowWrite {
		code, verb = CodeCanaryWrite, "write"
	}
	msg := "%s entry %q lets agents %s %s; narrow it to the paths the agent needs"
	switch {
	case len(still) == len(hit):
		msg += " (another rule still denies it, but this entry is broader than it should be)"
	case len(still) > 0:
		msg += " (another rule still denies " + strings.Join(still, ", ") + ")"
	}
	return t.warn(e, code, msg, e.field, e.rule.Pattern, verb, strings.Join(hit, ", "))
}

// expandHome expands a "~/" path; it needs a home.
func (t *target) expandHome(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p, true
	}
	if !filepath.IsAbs(t.spec.Home) {
		return "", false
	}
	return filepath.Join(t.spec.Home, rest), true
}

// relative reports whether a pattern is anchored on the workspace root.
func relative(p string) bool {
	anchor, _ := split(p)
	return anchor == relativeAnchor
}
