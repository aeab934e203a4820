package decide

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// nameSet is picket.blocklist: name patterns compared, case-insensitively,
// with every component of a path. Exact names and "*.ext" patterns are
// looked up in maps; the rest are scanned.
type nameSet struct {
	exact map[string]Rule
	ext   map[string]Rule // "*.pem" => "pem"
	globs []nameGlob
}

type nameGlob struct {
	rule Rule
	g    matcher
}

func newNameSet(rules []Rule) (*nameSet, error) {
	s := &nameSet{exact: map[string]Rule{}, ext: map[string]Rule{}}
	for _, r := range rules {
		name := strings.ToLower(r.Pattern)
		switch {
		case name == "" || strings.ContainsAny(name, "/\x00"):
			return nil, fmt.Errorf("%s: blocklist entry %q must be a single non-empty name", r.Source, r.Pattern)
		case !hasMeta(name):
			s.exact[name] = r
		case strings.HasPrefix(name, "*.") && !hasMeta(name[1:]) && !strings.Contains(name[2:], "."):
			s.ext[name[2:]] = r
		default:
			g, err := compileGlob(translate(name))
			if err != nil {
				return nil, fmt.Errorf("%s: blocklist entry %q does not compile: %w", r.Source, r.Pattern, err)
			}
			s.globs = append(s.globs, nameGlob{r, g})
		}
	}
	return s, nil
}

// match returns the rule matching any component of p.
func (s *nameSet) match(p string) (Rule, bool) {
	if len(s.exact)+len(s.ext)+len(s.globs) == 0 {
		return Rule{}, false
	}
	for rest := p; rest != ""; {
		name := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if name == "" {
			continue
		}
		name = strings.ToLower(name)
		if r, ok := s.exact[name]; ok {
			return r, true
		}
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			if r, ok := s.ext[name[dot+1:]]; ok {
				return r, true
			}
		}
		for _, ng := range s.globs {
			if ng.g.Match(name) {
				return ng.rule, true
			}
		}
	}
	return Rule{}, false
}

// nameFault says why a blocklist entry cannot be used, or "": it must be
// one path component, and a glob among them must compile (compared with
// names case-folded, so it is checked folded).
func nameFault(name string) string {
	if name == "" || strings.ContainsAny(name, "/\x00") {
		return fmt.Sprintf("blocklist entry %q must be a single non-empty name", name)
	}
	if name == "." || name == ".." {
		return fmt.Sprintf("blocklist entry %q can never match: no component of a resolved path is . or ..", name)
	}
	lower := strings.ToLower(name)
	if !strings.Contains(lower, "[") && utf8.ValidString(lower) {
		return ""
	}
	at := -1
	if len(lower) == len(name) {
		at = 0
	}
	if why := globSyntaxFault(lower, at); why != "" {
		return fmt.Sprintf("blocklist entry %q does not compile: %s", name, why)
	}
	return ""
}
