package decide

import "strings"

// ruleSet is one list of compiled patterns, indexed so that the cost of a
// lookup follows the depth of the path, not the number of rules:
//   - patterns with a literal directory prefix, by that prefix (a path looks
//     up each of its ancestors);
//   - "**/name..." patterns, by name (a path looks up each component);
//   - "**/*.ext..." patterns, by extension;
//   - the few other "**/" patterns, scanned.
type ruleSet struct {
	byPrefix map[string][]*pattern
	byName   map[string][]*pattern
	byExt    map[string][]*pattern
	scan     []*pattern
	n        int
	// below names, for each directory above a byPrefix key, the entry of
	// it on the way to that key: an entry not named there has no rule
	// indexed at or below its path (see [Dir]).
	below map[string]map[string]bool
}

func newRuleSet(pts []*pattern) *ruleSet {
	s := &ruleSet{byPrefix: map[string][]*pattern{}, byName: map[string][]*pattern{}, byExt: map[string][]*pattern{},
		below: map[string]map[string]bool{}}
	for _, pt := range pts {
		s.add(pt)
	}
	return s
}

func (s *ruleSet) add(pt *pattern) {
	s.n++
	switch {
	case !pt.anywhere:
		s.byPrefix[pt.prefix] = append(s.byPrefix[pt.prefix], pt)
		for k := pt.prefix; k != "/" && strings.HasPrefix(k, "/"); k = parent(k) {
			dir := parent(k)
			if s.below[dir] == nil {
				s.below[dir] = map[string]bool{}
			}
			s.below[dir][k[strings.LastIndexByte(k, '/')+1:]] = true
		}
	case pt.first != "":
		s.byName[pt.first] = append(s.byName[pt.first], pt)
	case pt.ext != "":
		s.byExt[pt.ext] = append(s.byExt[pt.ext], pt)
	default:
		s.scan = append(s.scan, pt)
	}
}

// candidates calls f with every pattern that could match p or an ancestor
// of p, stopping when f returns true. It reports whether f did.
func (s *ruleSet) candidates(p string, f func(*pattern) bool) bool {
	if s == nil || s.n == 0 {
		return false
	}
	if each(s.byPrefix["/"], f) {
		return true
	}
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if each(s.byPrefix[p[:i]], f) {
				return true
			}
		}
	}
	if len(s.byName) > 0 || len(s.byExt) > 0 {
		for rest := p; rest != ""; {
			var name string
			rest = strings.TrimLeft(rest, "/")
			name, rest, _ = strings.Cut(rest, "/")
			if name == "" {
				continue
			}
			if each(s.byName[name], f) {
				return true
			}
			if dot := strings.LastIndexByte(name, '.'); dot >= 0 && each(s.byExt[name[dot+1:]], f) {
				return true
			}
		}
	}
	return each(s.scan, f)
}

func each(pts []*pattern, f func(*pattern) bool) bool {
	for _, pt := range pts {
		if f(pt) {
			return true
		}
	}
	return false
}

// firstUnder returns the first pattern matching p or an ancestor of p.
func (s *ruleSet) firstUnder(p string) *pattern {
	var hit *pattern
	s.candidates(p, func(pt *pattern) bool {
		if pt.matchUnder(p) {
			hit = pt
			return true
		}
		return false
	})
	return hit
}

// firstExact returns the first pattern matching p itself.
func (s *ruleSet) firstExact(p string) *pattern {
	var hit *pattern
	s.candidates(p, func(pt *pattern) bool {
		if pt.matchExact(p) {
			hit = pt
			return true
		}
		return false
	})
	return hit
}
