package decide

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"github.com/gobwas/glob/syntax"
)

// A pattern is one compiled rule pattern. Patterns are anchored to absolute
// form before compiling: "~/" on home, "/" as is, "**/" anywhere, anything
// else on the workspace root.
type pattern struct {
	rule     Rule
	abs      string    // anchored absolute pattern (case-folded when folding)
	literal  bool      // no glob characters: covers abs and everything below
	src      string    // the gobwas source of a glob pattern
	baseSrc  string    // for "x/**": the source matching x itself
	lazy     *lazyGlob // the matchers, built on first use
	deny     bool      // a deny rule: an unusable matcher counts as a match
	prefix   string    // literal leading directories ("" for "**/" patterns)
	anywhere bool      // starts with "**/"
	first    string    // anywhere: the first name after "**/" when literal
	ext      string    // anywhere: the extension of a "*.ext" first name
	seg      lazySeg   // the last segment's matcher (see [pattern.lastSeg])
}

// isMeta reports whether c has a glob meaning in picket patterns. Braces
// are literal: fence's matcher has no brace expansion.
func isMeta(c byte) bool { return c == '*' || c == '?' || c == '[' }

// HasGlob reports whether a pattern component has a glob character, as
// picket reads patterns: "*", "?", or a "[" with a "]" after it. Braces are
// literal. lint and the shell sandbox use it to read patterns the way the
// matcher does.
func HasGlob(s string) bool { return hasMeta(s) }

// hasMeta reports whether s has a glob character outside a well-formed
// class; an unclosed "[" is literal.
func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// LiteralPattern returns a pattern that names the absolute path p and no
// other: each glob character is quoted as a one-character class ("*" as
// "[*]", "?" as "[?]", "[" as "[[]"), since picket patterns have no escape
// character. A persisted grant is written with it, so a file named "*"
// does not become a rule for its whole directory. A path without glob
// characters comes back as is, and as a literal it also covers what is
// below it; a quoted one, being a glob, does so in deny lists only (allow
// globs match exactly).
func LiteralPattern(p string) string {
	if !strings.ContainsAny(p, "*?[") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ExactPattern returns a pattern that names the absolute path p and nothing
// else, not even what is below it: a persisted grant is written with it. It
// is [LiteralPattern], except that a path with no glob character to quote
// gets one of its characters quoted as a class all the same ("/a/notes.tx[t]"):
// a literal allow entry also covers everything below its path, so a grant
// for a file not yet created would open a whole tree once the agent made
// it a directory, while an allow glob matches exactly. ok is false when p
// has no letter, digit, "." or "_" to quote that way.
func ExactPattern(p string) (pat string, ok bool) {
	if q := LiteralPattern(p); q != p {
		return q, true
	}
	for i := len(p) - 1; i >= 0; i-- {
		if c := p[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' {
			return p[:i] + "[" + p[i:i+1] + "]" + p[i+1:], true
		}
	}
	return p, false
}

// Anchor splits a pattern as written into a literal absolute base (home or
// the workspace root, never read as a glob) and the pattern text after it,
// as the matcher anchors it; the shell sandbox expands patterns with it.
func Anchor(p, root, home string) (lit, rest string) { return anchor(p, root, home) }

// JoinPattern joins an anchored pattern's literal base and its text.
func JoinPattern(lit, rest string) string { return joinPat(lit, rest) }

// anchor is [Anchor].
func anchor(p, root, home string) (lit, rest string) {
	switch {
	case p == "~":
		return home, ""
	case strings.HasPrefix(p, "~/"):
		return home, p[2:]
	case strings.HasPrefix(p, "/"):
		return "", p
	case p == "**" || strings.HasPrefix(p, "**/"):
		return "", p
	case p == "." || p == "./":
		return root, ""
	}
	return root, strings.TrimPrefix(p, "./")
}

// joinPat joins a literal base and pattern text.
func joinPat(lit, rest string) string {
	switch {
	case lit == "":
		return rest
	case rest == "":
		return lit
	}
	return strings.TrimSuffix(lit, "/") + "/" + strings.TrimPrefix(rest, "/")
}

// splitLiteral returns the literal leading directories of an absolute
// pattern and the rest, which starts at the first component with a glob
// character.
func splitLiteral(abs string) (prefix, rest string) {
	for start := 0; start <= len(abs); {
		end := strings.IndexByte(abs[start:], '/')
		if end < 0 {
			end = len(abs)
		} else {
			end += start
		}
		if hasMeta(abs[start:end]) {
			if start == 0 {
				return "", abs
			}
			return abs[:start-1], abs[start:]
		}
		start = end + 1
	}
	return abs, ""
}

// translate rewrites a picket glob into gobwas syntax: braces, commas and
// backslashes become literal, "[^" negation becomes "[!", and an unclosed
// "[" is literal.
func translate(p string) string {
	src, _ := translateMap(p, false)
	return src
}

// translateMap is translate that, when mapped, also gives for each byte
// of the result, and for its end, the offset in p it came from, so a
// syntax error's offset can name a place in the pattern as written.
func translateMap(p string, mapped bool) (string, []int) {
	var b strings.Builder
	var from []int
	put := func(s string, at int) {
		b.WriteString(s)
		if mapped {
			for range len(s) {
				from = append(from, at)
			}
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '{', '}', ',', '\\':
			put(`\`+p[i:i+1], i)
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				put(`\[`, i)
				continue
			}
			if end == 0 {
				// "[]" is not a class in gobwas; treat it as literal text.
				put(`\[\]`, i)
				i++
				continue
			}
			put("[", i)
			for j := i + 1; j <= i+end; j++ {
				switch {
				case j == i+1 && p[j] == '^':
					put("!", j)
				case p[j] == '\\':
					put(`\\`, j)
				default:
					put(p[j:j+1], j)
				}
			}
			put("]", i+end+1)
			i += end + 1
		default:
			put(p[i:i+1], i)
		}
	}
	if mapped {
		from = append(from, len(p))
	}
	return b.String(), from
}

var compiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// compilePattern anchors, canonicalizes the literal prefix of and compiles
// one rule pattern. canon resolves a literal directory (nil: keep it as
// written). fold lowercases for case-insensitive matching. A pattern whose
// literal prefix goes through a symlink compiles to two spellings.
func compilePattern(r Rule, root, home string, canon func(string) string, fold bool) ([]*pattern, error) {
	pt, err := writtenPattern(r, root, home, fold)
	if err != nil {
		return nil, err
	}
	out := []*pattern{pt}
	if canon != nil {
		rp, _, err := resolvedPattern(r, root, home, canon, fold)
		if err != nil {
			return nil, err
		}
		if rp != nil {
			out = append(out, rp)
		}
	}
	return out, nil
}

// writtenPattern compiles a rule's pattern as written (anchored, not
// resolved). Every error a pattern can have shows here.
func writtenPattern(r Rule, root, home string, fold bool) (*pattern, error) {
	if r.Pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if strings.IndexByte(r.Pattern, 0) >= 0 {
		return nil, fmt.Errorf("pattern %q has a NUL byte", r.Pattern)
	}
	if (r.Pattern == "~" || strings.HasPrefix(r.Pattern, "~/")) && !filepath.IsAbs(home) {
		return nil, fmt.Errorf("pattern %q needs a home directory, and none is set", r.Pattern)
	}
	lit, rest := anchor(r.Pattern, root, home)
	return newPattern(r, lit, rest, fold)
}

// resolvedPattern is the second spelling of a pattern whose literal
// leading directories go through a symlink (canon resolves them to dir),
// or nil when they do not. Only the literal prefix differs from the
// written spelling, and it is quoted in the glob, so this compiles
// whenever writtenPattern did.
func resolvedPattern(r Rule, root, home string, canon func(string) string, fold bool) (pt *pattern, dir string, err error) {
	lit, rest := anchor(r.Pattern, root, home)
	if lit == "" && strings.HasPrefix(rest, "**") {
		return nil, "", nil // "**/x" has no directory to resolve; "~/**/x" has home
	}
	dirs, globRest := splitLiteral(rest)
	prefix := joinPat(lit, dirs)
	c := canon(prefix)
	if c == "" || c == filepath.Clean(prefix) {
		return nil, "", nil
	}
	pt, err = newPattern(r, c, globRest, fold)
	return pt, c, err
}

func newPattern(r Rule, lit, rest string, fold bool) (*pattern, error) {
	if fold {
		lit, rest = strings.ToLower(lit), strings.ToLower(rest)
	}
	if rest == "**" && lit != "" {
		rest = "" // "~/**" is home and everything below
	}
	if b, ok := strings.CutSuffix(rest, "/**"); ok && !hasMeta(b) {
		rest = b // "dir/**" on a literal dir is the literal dir
	}
	pt := &pattern{rule: r}
	if !hasMeta(rest) {
		pt.abs = cleanAbs(joinPat(lit, rest))
		pt.literal = true
		pt.prefix = pt.abs
		return pt, nil
	}
	pt.abs = joinPat(lit, rest)
	if lit == "" && (rest == "**" || strings.HasPrefix(rest, "**/")) {
		pt.anywhere = true
		first, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(rest, "**"), "/"), "/")
		switch {
		case first != "" && !hasMeta(first):
			pt.first = first
		case strings.HasPrefix(first, "*.") && !hasMeta(first[1:]):
			pt.ext = first[strings.LastIndexByte(first, '.')+1:]
		}
		return pt, pt.compile("", rest)
	}
	dirs, globRest := splitLiteral(rest)
	pt.prefix = cleanAbs(joinPat(lit, dirs))
	return pt, pt.compile(pt.prefix, globRest)
}

// compile records the glob source from a literal prefix (quoted, so a
// workspace named "a[1]" stays literal) and the pattern text after it. The
// matcher itself is built on first use (see [pattern.load]): a hook process
// judges one path against a policy of many rules, and most of them are
// never candidates for it.
//
// Only a character class or invalid UTF-8 can make the source invalid:
// translate escapes every brace, comma and backslash, and an unclosed "["
// (FuzzTranslate holds gobwas to that). So such a pattern is built now,
// which checks a class's form and ranges ("[z-a]"), and is an error at
// load time.
func (pt *pattern) compile(prefix, globRest string) error {
	src := translate(globRest)
	if prefix != "" {
		src = strings.TrimSuffix(quoteMeta(prefix), "/") + "/" + src
	}
	pt.src = src
	if b, ok := strings.CutSuffix(src, "/**"); ok && b != "" {
		pt.baseSrc = b
	}
	pt.lazy = &lazyGlob{}
	// A class can be malformed: check it now, so the policy is an error
	// naming it. picket's own mandatory rules are known good, and a hook
	// call would otherwise build a dozen matchers it never uses.
	if pt.rule.Source != MandatorySource && (strings.Contains(globRest, "[") || !utf8.ValidString(src)) {
		if err := pt.load().err; err != nil {
			return fmt.Errorf("pattern %q does not compile: %w", pt.rule.Pattern, err)
		}
	}
	return nil
}

// lazyGlob holds a pattern's matchers once built; a compiled Policy is
// shared by goroutines, hence the sync.Once.
type lazyGlob struct {
	once    sync.Once
	g, base matcher
	err     error
}

// load builds the matchers on first use.
func (pt *pattern) load() *lazyGlob {
	l := pt.lazy
	l.once.Do(func() {
		if l.g, l.err = compileGlob(pt.src); l.err != nil {
			return
		}
		if pt.baseSrc != "" {
			l.base, l.err = compileGlob(pt.baseSrc)
		}
	})
	return l
}

// cleanAbs cleans a literal absolute path; "" stays "/".
// quoteMeta is glob.QuoteMeta, without its two allocations for the
// common literal prefix that has nothing to quote (a hook call quotes the
// prefix of every rule it loads).
func quoteMeta(s string) string {
	for i := 0; i < len(s); i++ {
		if syntax.IsSpecial(s[i]) {
			return glob.QuoteMeta(s)
		}
	}
	return s
}

func cleanAbs(p string) string {
	if p == "" {
		return "/"
	}
	return filepath.Clean(p)
}

// matchExact reports whether the pattern matches p itself (not an ancestor).
func (pt *pattern) matchExact(p string) bool {
	if pt.literal {
		return p == pt.abs || strings.HasPrefix(p, pt.abs) && (pt.abs == "/" || p[len(pt.abs)] == '/')
	}
	l := pt.load()
	if l.err != nil {
		return pt.deny // unreachable (see compile); fail closed for denies
	}
	return l.g.Match(p) || l.base != nil && l.base.Match(p)
}

// matchUnder reports whether the pattern matches p or any ancestor of p.
func (pt *pattern) matchUnder(p string) bool {
	if pt.literal {
		return pt.matchExact(p)
	}
	for q := p; ; q = parent(q) {
		if pt.matchExact(q) {
			return true
		}
		if q == "/" || (!pt.anywhere && len(q) < len(pt.prefix)) {
			return false
		}
	}
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
