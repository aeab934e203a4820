package patch

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op is what a patch does to a path.
type Op string

// The operations. A move writes both ends: MoveFrom is removed, MoveTo
// written.
const (
	Add      Op = "add"
	Update   Op = "update"
	Delete   Op = "delete"
	MoveFrom Op = "move-from"
	MoveTo   Op = "move-to"
)

// Target is one path a patch writes.
type Target struct {
	Op   Op
	Path string // as written in the patch
	Line int    // 1-based line of the patch text (after trimming) that names it
}

// Abs is the path the patch writes when applied in dir: the path as
// written when absolute, else joined to dir. A leading "~" is a directory
// name here, as the apply_patch tools read it (none of them expands it),
// so do not hand a relative path to something that would (decide.Check
// reads "~" as the home). ".." is kept for decide.Check to judge both
// readings (Codex folds it by text).
func (t Target) Abs(dir string) string {
	if strings.HasPrefix(t.Path, "/") {
		return t.Path
	}
	return strings.TrimSuffix(dir, "/") + "/" + t.Path
}

// MaxSize bounds the patch text Parse reads, in bytes. A larger patch is an
// error (denied): the hook must answer within its deadline.
const MaxSize = 32 << 20

// The markers, as Codex spells them.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	deleteMarker = "*** Delete File: "
	updateMarker = "*** Update File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
)

// ErrEmpty is the error for a patch without a hunk.
var ErrEmpty = errors.New("the patch changes no file")

// Parse returns every path the patch text writes, in the order the patch
// names them, each path once. Any error means the caller
// must deny the call.
func Parse(text string) ([]Target, error) {
	if len(text) > MaxSize {
		return nil, fmt.Errorf("the patch is %d bytes, over picket's limit of %d", len(text), MaxSize)
	}
	lines := splitLines(strings.TrimSpace(text))
	body, first, err := boundaries(lines)
	if err != nil {
		return nil, err
	}
	var out []Target
	for i := 0; i < len(body); {
		ts, n, err := hunk(body[i:], first+i)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
		i += n
	}
	if len(out) == 0 {
		return nil, ErrEmpty
	}
	out = append(out, headerLike(lines)...)
	return dedupe(out), nil
}

// splitLines splits as Rust's str::lines does: at "\n", dropping one "\r"
// before it. text is trimmed, so it ends in neither.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// boundaries checks the Begin and End markers (after trimming each line)
// and returns the lines between them with the 1-based number of the first.
// Failing that, it takes off a heredoc wrapper as Codex's lenient mode
// does, and checks again.
func boundaries(lines []string) (body []string, first int, err error) {
	err = strictBoundaries(lines)
	if err == nil {
		return lines[1 : len(lines)-1], 2, nil
	}
	if n := len(lines); n >= 4 && isHeredocStart(lines[0]) && strings.HasSuffix(lines[n-1], "EOF") {
		inner := lines[1 : n-1]
		if err := strictBoundaries(inner); err != nil {
			return nil, 0, err
		}
		return inner[1 : len(inner)-1], 3, nil
	}
	return nil, 0, err
}

func isHeredocStart(l string) bool {
	return l == "<<EOF" || l == "<<'EOF'" || l == `<<"EOF"`
}

func strictBoundaries(lines []string) error {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker {
		return fmt.Errorf("the first line of the patch must be %q", beginMarker)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return fmt.Errorf("the last line of the patch must be %q", endMarker)
	}
	return nil
}

// hunk reads one hunk at the start of lines (numbered from line) and
// returns its targets and the number of lines it takes.
func hunk(lines []string, line int) ([]Target, int, error) {
	head := strings.TrimSpace(lines[0])
	if p, ok := strings.CutPrefix(head, addMarker); ok {
		n := 1
		for n < len(lines) && strings.HasPrefix(lines[n], "+") {
			n++
		}
		return []Target{{Op: Add, Path: p, Line: line}}, n, nil
	}
	if p, ok := strings.CutPrefix(head, deleteMarker); ok {
		return []Target{{Op: Delete, Path: p, Line: line}}, 1, nil
	}
	p, ok := strings.CutPrefix(head, updateMarker)
	if !ok {
		return nil, 0, fmt.Errorf("line %d: %q is not a hunk header (want %q, %q or %q followed by a path)",
			line, clip(head), strings.TrimSpace(addMarker), strings.TrimSpace(deleteMarker), strings.TrimSpace(updateMarker))
	}
	out := []Target{{Op: Update, Path: p, Line: line}}
	n := 1
	// The move line is matched as it stands, not trimmed (as Codex does).
	if n < len(lines) {
		if q, ok := strings.CutPrefix(lines[n], moveMarker); ok {
			if q == "" {
				return nil, 0, fmt.Errorf("line %d: %q names no path", line+n, strings.TrimSpace(moveMarker))
			}
			out = []Target{{Op: MoveFrom, Path: p, Line: line}, {Op: MoveTo, Path: q, Line: line + n}}
			n++
		}
	}
	chunks := 0
	for n < len(lines) {
		l := lines[n]
		if strings.TrimSpace(l) == "" {
			n++
			continue
		}
		if strings.HasPrefix(l, "*") {
			break
		}
		c, err := chunk(lines[n:], line+n, chunks == 0)
		if err != nil {
			return nil, 0, err
		}
		chunks++
		n += c
	}
	if chunks == 0 {
		return nil, 0, fmt.Errorf("line %d: the update of %q has no change", line, clip(p))
	}
	return out, n, nil
}

// chunk reads one change chunk: an optional "@@" context line (required
// but for the first chunk), then context, removed and added lines, and
// optionally "*** End of File". It returns the number of lines taken.
func chunk(lines []string, line int, first bool) (int, error) {
	start := 0
	switch {
	case lines[0] == "@@" || strings.HasPrefix(lines[0], "@@ "):
		start = 1
	case !first:
		return 0, fmt.Errorf("line %d: a change must start with \"@@\", not %q", line, clip(lines[0]))
	}
	if start >= len(lines) {
		return 0, fmt.Errorf("line %d: the change has no line", line+1)
	}
	n := 0
	for _, l := range lines[start:] {
		if l == eofMarker {
			if n == 0 {
				return 0, fmt.Errorf("line %d: the change has no line", line+1)
			}
			n++
			break
		}
		if l != "" && !strings.ContainsRune(" +-", rune(l[0])) {
			if n == 0 {
				return 0, fmt.Errorf("line %d: %q is not a change line (want \" \", \"-\" or \"+\" first)", line+start, clip(l))
			}
			break // the next chunk or hunk
		}
		n++
	}
	return start + n, nil
}

// headerMarkers are the markers that name a path, as the looser
// implementations match them (no space needed after the colon).
var headerMarkers = []struct {
	marker string
	op     Op
}{
	{"*** Add File:", Add},
	{"*** Delete File:", Delete},
	{"*** Update File:", Update},
	{"*** Move to:", MoveTo},
}

// headerLike returns a target for every line that another apply_patch
// implementation could read as naming a path (see the package doc): split
// at any line break, matched after white space, each path in every
// spelling those implementations leave. It reads every line, a heredoc
// wrapper's included.
func headerLike(lines []string) []Target {
	var out []Target
	for i, l := range lines {
		parts := []string{l}
		if strings.IndexFunc(l, isLineBreak) >= 0 {
			parts = append(parts, strings.FieldsFunc(l, isLineBreak)...)
		}
		for _, part := range parts {
			for _, h := range headerMarkers {
				rest, ok := strings.CutPrefix(strings.TrimLeftFunc(part, isAnySpace), h.marker)
				if !ok {
					continue
				}
				for _, p := range []string{strings.TrimPrefix(rest, " "), strings.TrimSpace(rest), strings.TrimFunc(rest, isJSSpace), strings.TrimFunc(rest, isAnySpace)} {
					if p != "" {
						out = append(out, Target{Op: h.op, Path: p, Line: i + 1})
					}
				}
			}
		}
	}
	return out
}

// isLineBreak reports the runes some implementation may split lines at:
// Python's str.splitlines set, which holds JavaScript's and Rust's.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// isJSSpace is JavaScript's WhiteSpace and LineTerminator, what
// String.prototype.trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// isAnySpace is white space to Rust, Go or JavaScript.
func isAnySpace(r rune) bool {
	return unicode.IsSpace(r) || isJSSpace(r)
}

// dedupe keeps the first target of each path.
func dedupe(ts []Target) []Target {
	seen := make(map[string]bool, len(ts))
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t.Path] {
			seen[t.Path] = true
			out = append(out, t)
		}
	}
	return out
}

// clip shortens a line quoted in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
