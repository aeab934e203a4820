package hook

import (
	"path"
	"slices"
	"strings"
	"unicode"
)

// reachable reports whether the tool's filter lets it reach the entry
// spelled p (or, for a directory, anything below it). Both tools hand
// their globs to ripgrep's --glob, which reads them as gitignore lines: a
// glob without a slash matches a base name at any depth, and one with a
// slash is anchored, at ripgrep's working directory rather than at the
// searched path (a peer review's differential against Claude Code
// 2.1.197's ripgrep found both). Which directory that is differs by tool
// and agent, so an anchored glob is tried from every directory above p: it
// may reach more than ripgrep will, never less.
func (w *walker) reachable(p string, dir bool) bool {
	if w.filter == "" {
		return true
	}
	sets := [][]string{{w.filter}}
	if w.grep {
		// Claude Code splits Grep's glob on spaces and commas; Pi hands it
		// to ripgrep whole. Unless the call is known to be Claude Code's
		// (split), either may be what runs.
		split := grepGlobs(w.filter)
		if len(split) == 0 {
			return true // no --glob at all: grep reaches everything
		}
		sets = [][]string{split}
		if !w.split {
			sets = append(sets, []string{w.filter})
		}
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if w.plain {
		// fd's --glob (Pi's find) reads the pattern as one glob, as it
		// is: no gitignore line, so "!" and "#" are literal names and
		// nothing negates.
		alts, ok := expandBraces(w.filter)
		if !ok {
			return true
		}
		for _, g := range alts {
			if w.mayMatch(g, p, segs, dir) {
				return true
			}
		}
		return false
	}
	for _, globs := range sets {
		if w.reachableBy(globs, p, segs, dir) {
			return true
		}
	}
	return false
}

// reachableBy reports whether ripgrep given these --glob lines may reach p:
// not when a negation after the last positive glob surely names it (of the
// globs that match an entry, ripgrep obeys the last), and with positive
// globs, only when one may match it. Braces expand first, over the whole
// glob: "{a/b,secrets/*}" is two globs, each with its own slashes.
func (w *walker) reachableBy(globs []string, p string, segs []string, dir bool) bool {
	var pos, neg []string
	last := 0 // neg[last:] come after every positive glob
	for _, g := range globs {
		g, ok := gitignoreLine(g)
		if !ok {
			continue // a comment or blank: ripgrep adds no glob for it
		}
		if n, ok := strings.CutPrefix(g, "!"); ok {
			if strings.Contains(strings.TrimSuffix(n, "/"), "/") {
				// ripgrep anchors the whole glob when a slash is anywhere
				// in it but at its end, inside braces too: "{secrets,x/y}"
				// names only a top-level secrets, and "{secrets/,x}" no
				// directory at all. Kept whole, it names nothing here.
				neg = append(neg, n)
			} else {
				alts, ok := expandBraces(n)
				if !ok {
					return true // assume the worst
				}
				neg = append(neg, alts...)
			}
		} else {
			alts, ok := expandBraces(g)
			if !ok {
				return true
			}
			pos = append(pos, alts...)
			last = len(neg)
		}
		if len(pos)+len(neg) > maxAlternatives {
			return true // assume the worst
		}
	}
	for _, n := range neg[last:] {
		if excludes(n, segs[len(segs)-1], dir) {
			return false
		}
	}
	if len(pos) == 0 {
		return true
	}
	for _, g := range pos {
		if w.mayMatch(g, p, segs, dir) {
			return true
		}
	}
	return false
}

// mayMatch reports whether one positive glob may match p (or, for a
// directory, something below it).
func (w *walker) mayMatch(g, p string, segs []string, dir bool) bool {
	g = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/"), "/")
	if !strings.Contains(g, "/") {
		// A base-name glob can match any file below a directory.
		return dir || strings.Contains(g, "**") || segMatch(g, segs[len(segs)-1])
	}
	pat := strings.Split(g, "/")
	if slices.Contains(pat, "..") {
		return false // no path ripgrep walks has one; a tool that resolves it is scanned at the target (globTargets)
	}
	// A search from above ripgrep's working directory (anchor) has the
	// glob anchored below its root: the way down is reachable.
	if dir && w.anchor != "" && isUnder(w.anchor, p) {
		return true
	}
	// Pi's find puts "**/" before a pattern holding a slash (unless it
	// starts with "/" or "**/"), so fd matches it from any directory: from
	// one below a directory too ("src/*" lists secrets/src/t.txt).
	if dir && w.plain && !strings.HasPrefix(w.filter, "/") {
		return true
	}
	for k := range segs {
		if globMayMatch(pat, segs[k:], dir) {
			return true
		}
		if w.plain {
			continue // fd matches whole names of the absolute path
		}
		// ripgrep strips its working directory from a path by bytes, not
		// by name: run in /w/src, it matches /w/src2/.env as "2/.env".
		for i := 1; i < len(segs[k]); i++ {
			if globMayMatch(pat, append([]string{segs[k][i:]}, segs[k+1:]...), dir) {
				return true
			}
		}
	}
	// The whole path, as absolute: ripgrep matches a path outside its
	// working directory unstripped, and fd's --full-path matches the
	// absolute path always, so the empty name before the first slash
	// is there to match ("*/w/p/.env" reaches /w/p/.env).
	return globMayMatch(pat, append([]string{""}, segs...), dir)
}

// excludes reports whether a negated glob surely names an entry with base
// name base: only a glob without a slash is judged (a trailing slash names
// directories alone), case and all, as ripgrep matches it; any other,
// "./.env" included (ripgrep excludes nothing with it), counts as naming
// nothing, the cautious side.
func excludes(n, base string, dir bool) bool {
	dirOnly := strings.HasSuffix(n, "/")
	n = strings.TrimSuffix(n, "/")
	if n == "" || strings.Contains(n, "/") || strings.Contains(n, "**") || dirOnly && !dir {
		return false
	}
	// ripgrep matches bytes: "?" or a class takes one byte, so it does not
	// take an "é". A backslash, or a class beside such a character, is
	// not judged ("\\[!x]" names "[!x]", not "[^x]").
	if strings.Contains(n, "\\") || strings.Contains(n, "[") && !isASCII(n) {
		return false
	}
	ok, err := path.Match(bytewise(shellClasses(n)), bytewise(base))
	return err == nil && ok
}

// bytewise spells each byte of s as one rune, so that path.Match matches
// bytes as ripgrep's globs do.
func bytewise(s string) string {
	if isASCII(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// shellClasses spells a shell class negation "[!...]" as path.Match does,
// "[^...]", where a class starts: not after an escape, not inside a class.
func shellClasses(p string) string {
	b := []byte(p)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			i = classEnd(string(b), i)
		}
	}
	return string(b)
}

// gitignoreLine reads one --glob value as ripgrep does, as a gitignore
// line: one starting with "#" is a comment, trailing white space (Rust's,
// NBSP and newline included) is dropped unless escaped, and what is left
// empty adds nothing. ok is false when the line adds no glob.
func gitignoreLine(g string) (string, bool) {
	if strings.HasPrefix(g, "#") {
		return "", false
	}
	if !strings.HasSuffix(g, "\\ ") {
		g = strings.TrimRightFunc(g, unicode.IsSpace)
	}
	return g, g != ""
}

// grepGlobs splits Grep's glob parameter as Claude Code does before passing
// each part to ripgrep's --glob: on white space (JavaScript's, U+FEFF
// included), then on commas unless the part holds braces.
func grepGlobs(filter string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(filter, isJSSpace) {
		if strings.Contains(f, "{") && strings.Contains(f, "}") {
			out = append(out, f)
			continue
		}
		for _, g := range strings.Split(f, ",") {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

// globMayMatch reports whether a slash-separated glob can match the path
// segs, or, when dir, some path below it. "**" spans any number of
// segments; a malformed pattern counts as a match.
func globMayMatch(pat, segs []string, dir bool) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if len(segs) == 0 {
		// Below a directory, any remaining pattern may still match.
		return dir || len(pat) == 1 && pat[0] == "**"
	}
	switch {
	case pat[0] == "**" && dir:
		// Spanning the rest reaches below a directory, whatever follows:
		// tried first, it answers without matching a name.
		return globMayMatch(pat, segs[1:], dir) || globMayMatch(pat[1:], segs, dir)
	case pat[0] == "**":
		return globMayMatch(pat[1:], segs, dir) || globMayMatch(pat, segs[1:], dir)
	case strings.Contains(pat[0], "**"):
		return true // "a**b" spans segments: assume the worst
	case !segMatch(pat[0], segs[0]):
		return false
	}
	return globMayMatch(pat[1:], segs[1:], dir)
}

// maxAlternatives bounds a filter's brace expansion; past it, the filter
// counts as reaching everything.
const maxAlternatives = 256

// segMatch matches one segment; braces expand ("*.{js,ts}") as the agents'
// glob libraries do, and case is ignored (fd, Pi's find, matches an
// all-lowercase pattern so; matching more is the cautious side). A
// malformed pattern counts as a match.
func segMatch(pat, seg string) bool {
	// As ripgrep matches it: bytes, case and all ("??" takes an "é",
	// "[Z-a]" an "_", which neither does lowered and by rune).
	alts, ok := expandBraces(pat)
	if !ok {
		return true
	}
	for _, alt := range alts {
		if ok, err := path.Match(bytewise(shellClasses(alt)), bytewise(seg)); err != nil || ok {
			return true
		}
	}
	// As fd matches an all-lowercase pattern: ASCII case folded, bytes
	// matched ("??" takes the "é" of ".ENV.é").
	alts, _ = expandBraces(asciiLower(pat))
	for _, alt := range alts {
		if ok, err := path.Match(bytewise(shellClasses(alt)), bytewise(asciiLower(seg))); err != nil || ok {
			return true
		}
	}
	// Shell globs negate a class with "[!...]"; path.Match spells it "[^...]".
	pat = strings.ToLower(strings.ReplaceAll(pat, "[!", "[^"))
	seg = strings.ToLower(seg)
	alts, _ = expandBraces(pat)
	for _, alt := range alts {
		if ok, err := path.Match(alt, seg); err != nil || ok {
			return true
		}
	}
	return false
}

// asciiLower lowers ASCII letters only, as a regex folds case without
// Unicode: every other byte stays as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// expandBraces expands the first brace group of p, and the rest in turn,
// as globset reads one: a backslash escapes the next character ("\{" and
// "\," are literal), a comma or brace inside a [...] class is literal, and
// a "{" without its "}" is literal.
// Past maxAlternatives it stops, and ok is false: each group doubles the
// work at least, and a caller must then assume the worst.
func expandBraces(p string) (alts []string, ok bool) {
	return alts, expandInto(p, &alts)
}

func expandInto(p string, out *[]string) bool {
	open, end, commas := braceGroup(p)
	if open < 0 {
		*out = append(*out, p)
		return len(*out) <= maxAlternatives
	}
	from := open + 1
	for _, c := range append(commas, end) {
		if !expandInto(p[:open]+p[from:c]+p[end+1:], out) {
			return false
		}
		from = c + 1
	}
	return true
}

// classEnd returns the index of the "]" that closes the class opening at
// p[i], or len(p) or more when none does. A class runs to the first "]"
// after its first character (and after a leading negation); a backslash
// escapes the character after it.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) && p[j] != ']' {
		if p[j] == '\\' {
			j++
		}
		j++
	}
	return j
}

// braceGroup finds the first brace group of p not escaped or in a class:
// the indexes of its "{", its "}" and the commas between that split it.
// open is -1 when there is none.
func braceGroup(p string) (open, end int, commas []int) {
	open = -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++ // the next character is literal
		case '[':
			if j := classEnd(p, i); j < len(p) {
				i = j // a "[" without its "]" is literal
			}
		case '{':
			if open < 0 {
				open = i
				commas = nil
			}
		case ',':
			if open >= 0 {
				commas = append(commas, i)
			}
		case '}':
			if open >= 0 {
				return open, i, commas
			}
		}
	}
	return -1, -1, nil
}

// isUnder reports whether p is dir or below it.
func isUnder(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == '/'
}

// reaches reports whether the tool may reach the entry spelled p, rel
// below the root: by its ripgrep or fd reading of the filter, or, for a
// tool that may run git grep or GNU grep instead, by theirs.
func (w *walker) reaches(p, rel string, dir bool) bool {
	return w.reachable(p, dir) || w.fnmatch && fnmatchReaches(w.filter, rel, dir)
}

// fnmatchReaches reports whether git grep given the pathspec pat, or GNU
// grep given --include=pat, both run in the root, may reach rel (or, for
// a directory, something below it). git matches the whole path with
// wildmatch and no WM_PATHNAME ("*" and "?" span "/"), and a pathspec
// that matches a directory takes all below it; grep matches the base name
// and walks every directory. Neither expands braces. Case is folded
// (ASCII), the cautious side. A pathspec picket does not read (magic
// ":(…)", an absolute one, ".." or "." among its names) reaches
// everything.
func fnmatchReaches(pat, rel string, dir bool) bool {
	if pat == "" {
		return true
	}
	for strings.HasPrefix(pat, "./") {
		pat = pat[2:]
	}
	pat = strings.TrimSuffix(pat, "/")
	if pat == "" || strings.HasPrefix(pat, ":") || strings.HasPrefix(pat, "/") || strings.Contains(pat, "//") {
		return true
	}
	for _, seg := range strings.Split(pat, "/") {
		if seg == ".." || seg == "." {
			return true
		}
	}
	if !strings.Contains(pat, "/") {
		if dir {
			return true // grep walks every directory for a base name
		}
		if mayWildmatch(pat, rel[strings.LastIndexByte(rel, '/')+1:]) {
			return true
		}
	}
	// git: rel, or a directory above it, matched.
	for i := 0; i <= len(rel); i++ {
		if (i == len(rel) || rel[i] == '/') && mayWildmatch(pat, rel[:i]) {
			return true
		}
	}
	if !dir {
		return false
	}
	// Below a directory: the pattern's literal head must agree with it.
	head := asciiLower(pat)
	if i := strings.IndexAny(head, "*?[\\"); i >= 0 {
		head = head[:i]
	}
	rel = asciiLower(rel)
	return strings.HasPrefix(rel+"/", head) || strings.HasPrefix(head, rel+"/")
}

// mayWildmatch reports whether wildmatch may match name, as it is or with
// ASCII case folded, or cannot tell.
func mayWildmatch(pat, name string) bool {
	m, ok := wildmatch(pat, name)
	if m || !ok {
		return true
	}
	m, ok = wildmatch(asciiLower(pat), asciiLower(name))
	return m || !ok
}

// wildmatch matches name against pat as git's wildmatch does without
// WM_PATHNAME: "*" any bytes, "/" included, "?" one byte, "[...]" one
// byte of a class ("!" or "^" negates, ranges, "\" escapes), "\" the
// next byte as it is. ok is false for a pattern it does not read (a
// "[:name:]" class, an unclosed class, a trailing "\"): the caller
// assumes the worst.
func wildmatch(pat, name string) (match, ok bool) {
	px, nx := 0, 0
	star, starN := -1, 0
	for nx < len(name) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				star, starN = px, nx
				px++
				continue
			case '?':
				px++
				nx++
				continue
			case '[':
				in, n, ok := classMatch(pat[px:], name[nx])
				if !ok {
					return false, false
				}
				if in {
					px += n
					nx++
					continue
				}
			case '\\':
				if px+1 == len(pat) {
					return false, false
				}
				if pat[px+1] == name[nx] {
					px += 2
					nx++
					continue
				}
			default:
				if c == name[nx] {
					px++
					nx++
					continue
				}
			}
		}
		if star < 0 {
			return false, true
		}
		starN++
		px, nx = star+1, starN
	}
	for px < len(pat) && pat[px] == '*' {
		px++
	}
	return px == len(pat), true
}

// classMatch reads the class at the start of pat ("[...]") and reports
// whether c is in it and how long the class is; ok is false for one it
// does not read.
func classMatch(pat string, c byte) (in bool, n int, ok bool) {
	i := 1
	negate := i < len(pat) && (pat[i] == '!' || pat[i] == '^')
	if negate {
		i++
	}
	for first := true; ; first = false {
		if i >= len(pat) {
			return false, 0, false
		}
		lo := pat[i]
		switch {
		case lo == ']' && !first:
			return in != negate, i + 1, true
		case lo == '[' && i+1 < len(pat) && pat[i+1] == ':':
			return false, 0, false
		case lo == '\\':
			if i+1 >= len(pat) {
				return false, 0, false
			}
			i++
			lo = pat[i]
		}
		hi := lo
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			hi = pat[i+2]
			if hi == '\\' {
				if i+3 >= len(pat) {
					return false, 0, false
				}
				hi = pat[i+3]
				i++
			}
			i += 2
		}
		if lo <= c && c <= hi {
			in = true
		}
		i++
	}
}
