package lint

import (
	"path/filepath"
	"strconv"
	"strings"
)

// checkShadowed warns on allow entries whose literal path is denied by the
// policy's denies: deny rules also cover everything below what they match,
// so nothing the entry allows is ever reachable.
func checkShadowed(t *target) []Warning {
	var out []Warning
	for _, e := range t.entries(fieldAllowRead, fieldAllowWrite) {
		path, ok := t.literalPath(e.rule.Pattern)
		if !ok {
			continue
		}
		d, denied := t.denied(accessOf(e.field), path)
		if !denied {
			continue
		}
		by := d.Rule
		if d.Pattern != "" {
			by += " " + strconv.Quote(d.Pattern)
		}
		if d.Source != "" {
			by += " (" + d.Source + ")"
		}
		out = append(out, t.warn(e, CodeShadowed,
			"%s entry %q is fully shadowed: %s denies %s and everything below it; remove the entry or the deny",
			e.field, e.rule.Pattern, by, t.home(path)))
	}
	return out
}

// literalPath is the absolute literal directory (or file) a pattern starts
// with; "**/" patterns have none.
func (t *target) literalPath(p string) (string, bool) {
	anchor, text := split(p)
	base := t.base(anchor)
	if anchor == anywhereAnchor || !filepath.IsAbs(base) {
		return "", false
	}
	lit, _ := literalParts(text)
	return filepath.Join(base, strings.Join(lit, "/")), true
}
