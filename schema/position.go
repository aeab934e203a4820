package schema

import (
	"bytes"
	"strings"

	"github.com/tailscale/hujson"
)

// Position maps an RFC 6901 JSON pointer ("/picket/mode",
// "/filesystem/allowRead/3") into src to the 1-based line and column of that
// value. It returns (1, 1) when src does not parse or the pointer names
// nothing. Columns count bytes, as hujson's own syntax errors do.
func Position(src []byte, pointer string) (line, col int) {
	if _, deep := tooDeep(src); deep {
		return 1, 1
	}
	v, err := hujson.Parse(bytes.Clone(src))
	if err != nil {
		return 1, 1
	}
	return lineCol(src, offset(&v, spot{ptr: pointer}))
}

// spot says where in a parsed file a finding belongs: the value at ptr, or,
// with key set, the name of the nth member (0 = first) of that name in the
// object holding it. Unknown and duplicate keys point at the key, since
// that is what to delete or rename.
type spot struct {
	ptr string
	key bool
	nth int
}

// offset is the one place a pointer becomes a byte offset in the file. It
// returns 0, the start of the file, when the spot names nothing.
func offset(v *hujson.Value, s spot) int {
	if !s.key {
		if found := v.Find(s.ptr); found != nil {
			return found.StartOffset
		}
		return 0
	}
	parent, name := splitPointer(s.ptr)
	obj, ok := findObject(v, parent)
	if !ok {
		return 0
	}
	n := s.nth
	for _, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() != name {
			continue
		}
		if n == 0 {
			return m.Name.StartOffset
		}
		n--
	}
	return 0
}

func findObject(v *hujson.Value, ptr string) (*hujson.Object, bool) {
	found := v.Find(ptr)
	if found == nil {
		return nil, false
	}
	obj, ok := found.Value.(*hujson.Object)
	return obj, ok
}

// lineCol turns a byte offset into a 1-based line and byte column, counted
// as hujson counts them in its syntax errors.
func lineCol(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = 1 + off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return line, col
}

// splitPointer splits an RFC 6901 pointer into its parent pointer and its
// last reference token, unescaped.
func splitPointer(ptr string) (parent, name string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", unescapeToken(ptr)
	}
	return ptr[:i], unescapeToken(ptr[i+1:])
}

// pointerTokens returns the unescaped reference tokens of an RFC 6901
// pointer; the root pointer "" has none.
func pointerTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = unescapeToken(t)
	}
	return toks
}

var (
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
)

func unescapeToken(t string) string { return tokenUnescaper.Replace(t) }

func escapeToken(t string) string { return tokenEscaper.Replace(t) }
