package lint

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/picketdev/picket/decide"
)

// The anchors a pattern can have, as decide anchors them.
const (
	homeAnchor     = "~"
	absAnchor      = "/"
	anywhereAnchor = "**"
	relativeAnchor = "."
)

// split returns a pattern's anchor and the text after it: "~/x" is home and
// "x", "/x" is "/" and "x", "**/x" is anywhere and the whole pattern, and
// anything else is relative to the workspace root.
func split(p string) (anchor, text string) {
	switch {
	case p == "~":
		return homeAnchor, ""
	case strings.HasPrefix(p, "~/"):
		return homeAnchor, p[2:]
	case strings.HasPrefix(p, "/"):
		return absAnchor, p[1:]
	case p == "**" || strings.HasPrefix(p, "**/"):
		return anywhereAnchor, p
	case p == "." || p == "./":
		return relativeAnchor, ""
	}
	return relativeAnchor, strings.TrimPrefix(p, "./")
}

// base is the literal directory an anchor stands for ("" for anywhere).
func (t *target) base(anchor string) string {
	switch anchor {
	case homeAnchor:
		return t.spec.Home
	case absAnchor:
		return "/"
	case relativeAnchor:
		return t.spec.Root
	}
	return ""
}

// hasMeta is decide's reading of a glob character, so lint never disagrees
// with the matcher.
var hasMeta = decide.HasGlob

// literalParts splits a pattern's text into the components before the
// first one with a glob character and the rest.
func literalParts(text string) (lit, glob []string) {
	if text == "" {
		return nil, nil
	}
	parts := strings.Split(text, "/")
	for i, part := range parts {
		if hasMeta(part) {
			return parts[:i], parts[i:]
		}
	}
	return parts, nil
}

// everything names the patterns that match all of their anchor.
var everything = map[string]bool{"": true, "**": true, "*": true, "**/*": true, "**/**": true}

// checkTopGlobstar warns on allowRead and allowWrite entries that cover
// the whole filesystem or the whole home directory.
func checkTopGlobstar(t *target) []Warning {
	var out []Warning
	for _, e := range t.entries(fieldAllowRead, fieldAllowWrite) {
		anchor, text := split(e.rule.Pattern)
		if !everything[strings.TrimSuffix(text, "/")] {
			continue
		}
		what := ""
		switch anchor {
		case homeAnchor:
			what = "your whole home directory, credentials included"
		case absAnchor, anywhereAnchor:
			what = "every path on the machine"
		default:
			continue // the workspace itself: checkWorkspace judges the root
		}
		out = append(out, t.warn(e, CodeTopGlobstar, "%s entry %q matches %s; list the directories the agent needs instead", e.field, e.rule.Pattern, what))
	}
	return out
}

// checkBraces warns on "{a,b}" in any pattern: picket and fence read braces
// literally, so the rule names one path spelled with braces.
func checkBraces(t *target) []Warning {
	var out []Warning
	for _, e := range t.entries(allFields...) {
		alts, ok := expandFirstBrace(e.rule.Pattern)
		if !ok {
			continue
		}
		out = append(out, t.warn(e, CodeBrace,
			"%s entry %q uses braces, which picket and fence read literally (no brace expansion): it names one path spelled with braces; write one entry per alternative: %s",
			e.field, e.rule.Pattern, quoteList(alts)))
	}
	return out
}

// expandFirstBrace expands the first "{a,b,...}" group of p.
func expandFirstBrace(p string) ([]string, bool) {
	for i := 0; i < len(p); i++ {
		if p[i] != '{' {
			continue
		}
		end := strings.IndexAny(p[i+1:], "{}")
		if end < 0 || p[i+1+end] != '}' {
			continue
		}
		inner := p[i+1 : i+1+end]
		if !strings.Contains(inner, ",") {
			continue
		}
		var alts []string
		for _, a := range strings.Split(inner, ",") {
			alts = append(alts, p[:i]+a+p[i+2+end:])
		}
		return alts, true
	}
	return nil, false
}

// quoteList quotes each of ss as %q does, so an alternative cannot end its
// quotes early or smuggle a line break into the message.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// checkFusedGlobstar warns on a "**" that shares a path component with
// other characters: often a typo for "*", and read differently by
// different matchers (picket's crosses directories).
func checkFusedGlobstar(t *target) []Warning {
	var out []Warning
	for _, e := range t.entries(allFields...) {
		for _, part := range strings.Split(e.rule.Pattern, "/") {
			if strings.Contains(part, "**") && part != "**" {
				out = append(out, t.warn(e, CodeFusedGlobstar,
					"%s entry %q fuses \"**\" with other characters in %q: picket's matcher lets it cross directories (\"a**\" matches \"a/b/c\") where other glob matchers read it as \"*\"; use \"*\" within a name, or \"**\" as a whole path component",
					e.field, e.rule.Pattern, part))
				break
			}
		}
	}
	return out
}

var allFields = []string{fieldAllowRead, fieldDenyRead, fieldAllowWrite, fieldDenyWrite, fieldBlocklist, fieldPermissions}

// pathFields are the lists of path patterns (the blocklist holds names).
var pathFields = []string{fieldAllowRead, fieldDenyRead, fieldAllowWrite, fieldDenyWrite, fieldPermissions}

// checkReach warns on path patterns that can never match, and on patterns
// whose ".." climbs above "/".
func checkReach(t *target) []Warning {
	var out []Warning
	for _, e := range t.entries(pathFields...) {
		if w, ok := t.reach(e); ok {
			out = append(out, w)
		}
	}
	return out
}

func (t *target) reach(e entry) (Warning, bool) {
	p := e.rule.Pattern
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return t.warn(e, CodeNeverMatches, "%s entry %q is empty or holds a NUL byte: it never matches", e.field, p), true
	}
	anchor, text := split(p)
	lit, glob := literalParts(text)
	if anchor == anywhereAnchor {
		lit, glob = nil, strings.Split(text, "/")
	}
	for _, part := range glob {
		what := ""
		switch part {
		case ".", "..":
			what = `"` + part + `"`
		case "":
			what = `an empty component ("//" or a trailing "/")`
		default:
			continue
		}
		return t.warn(e, CodeNeverMatches,
			"%s entry %q has %s after a glob: the paths picket judges are resolved and never hold one, so the entry never matches; write the path without it",
			e.field, p, what), true
	}
	if anchor == anywhereAnchor {
		return Warning{}, false
	}
	depth := strings.Count(strings.Trim(t.base(anchor), "/"), "/") + 1
	if t.base(anchor) == "/" {
		depth = 0
	}
	rel, out := 0, false // depth below the anchor; whether it went above it
	for _, part := range lit {
		switch part {
		case "", ".":
		case "..":
			depth--
			rel--
		default:
			depth++
			rel++
		}
		if depth < 0 {
			return t.warn(e, CodeAboveRoot,
				"%s entry %q climbs above \"/\" with \"..\" (from %s): it is read as if the extra \"..\" were not there; write the absolute path it should name",
				e.field, p, t.base(anchor)), true
		}
		out = out || rel < 0
	}
	if out && anchor == relativeAnchor {
		names := filepath.Join(t.spec.Root, strings.Join(lit, "/"))
		if len(glob) > 0 {
			names = decide.JoinPattern(names, strings.Join(glob, "/"))
		}
		return t.warn(e, CodeEscapesRoot,
			"%s entry %q climbs out of the workspace root with \"..\": picket reads it as %s (from the root %s), but the root is CLAUDE_PROJECT_DIR, else the git top level, else the working directory, so in another session the entry names another path; write the absolute or ~/ path it should name",
			e.field, p, names, t.spec.Root), true
	}
	return Warning{}, false
}

// accessOf is the access an allow or deny list governs.
func accessOf(field string) decide.Access {
	if field == fieldAllowWrite || field == fieldDenyWrite {
		return decide.Write
	}
	return decide.Read
}
