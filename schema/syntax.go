package schema

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// MaxNesting is how deeply objects and arrays may nest in a policy file.
// picket's own sections need four levels. The limit is checked before the
// file is parsed, so a hostile file can neither exhaust the recursive
// parser nor reach encoding/json's own depth limit after hujson accepted it.
const MaxNesting = 100

// tooDeep returns the offset of the first "[" or "{" that opens a level
// deeper than MaxNesting, skipping strings and comments as hujson reads
// them. A malformed file may confuse the count; hujson then reports it.
func tooDeep(src []byte) (int, bool) {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			i = skipString(src, i)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = skipUntil(src, i+2, "\n")
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i = skipUntil(src, i+2, "*/")
		case c == '[' || c == '{':
			if depth++; depth > MaxNesting {
				return i, true
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return 0, false
}

// skipString returns the offset of the quote closing the string opened at
// i, or the end of src.
func skipString(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(src)
}

// skipUntil returns the offset of the last byte of the first end at or
// after i, or the end of src.
func skipUntil(src []byte, i int, end string) int {
	if j := strings.Index(string(src[i:]), end); j >= 0 {
		return i + j + len(end) - 1
	}
	return len(src)
}

// Syntax error messages never quote the file: a policy may extend, or be a
// symlink to, a file holding a secret (~/.vault-token), and these messages
// reach the terminal and the model's deny reason. They say where parsing
// stopped and what it expected, from a fixed set of words.
var (
	// invalidCharWhere are the places hujson names after "invalid character
	// 'x'"; the character itself is dropped.
	invalidCharWhere = []string{
		"after top-level value", "at start of object name", "after object name",
		"after object value (expecting ',' or '}')", "at start of value",
		"after array value (expecting ',' or ']')", "in line comment",
	}
	// eofWhile are the contexts hujson gives an unexpected end of file.
	eofWhile = []string{
		"parsing value", "parsing object after name", "parsing object after value",
		"parsing array after value", "parsing string", "parsing comment",
	}
)

// syntaxError takes the position hujson adds to its errors ("hujson: line
// %d, column %d: %w") and returns it with a message that says what was
// expected without quoting src.
func syntaxError(src []byte, err error) (line, col int, msg string) {
	line, col = 1, 1
	if _, scanErr := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &line, &col); scanErr != nil {
		line, col = 1, 1
	}
	line, col = max(line, 1), max(col, 1)
	return line, col, "syntax error: " + syntaxCause(src, err, line, col)
}

func syntaxCause(src []byte, err error, line, col int) string {
	cause := err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		cause = inner.Error()
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		for _, w := range eofWhile {
			if strings.HasPrefix(cause, w+":") {
				return "unexpected end of file while " + w
			}
		}
		return "unexpected end of file"
	case strings.HasPrefix(cause, "invalid character "):
		for _, w := range invalidCharWhere {
			if strings.HasSuffix(cause, " "+w) {
				return "unexpected character " + w
			}
		}
	case strings.HasPrefix(cause, "invalid literal"):
		if off := offsetOf(src, line, col); off < len(src) && src[off] == '"' {
			return "invalid string: a bad escape or a control character"
		}
		return "invalid value: want a string in double quotes, a number, true, false, null, an object or an array"
	case cause == "invalid UTF-8 in comment":
		return cause
	}
	return "not valid JSONC"
}

// offsetOf turns a 1-based line and byte column back into an offset.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(string(src[off:]), '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+col-1, len(src))
}

// invalidUTF8 reports every string, member name or value, holding bytes
// that are not UTF-8. encoding/json turns them into U+FFFD, so a pattern
// holding them would silently match nothing.
func invalidUTF8(v *hujson.Value, ptr string) []finding {
	var found []finding
	switch comp := v.Value.(type) {
	case *hujson.Object:
		for i := range comp.Members {
			m := &comp.Members[i]
			name := m.Name.Value.(hujson.Literal)
			child := ptr + "/" + escapeToken(name.String())
			if !utf8.Valid(name) {
				found = append(found, finding{at: spot{ptr: child, key: true}, msg: prefix(ptr) + "a key is not valid UTF-8; policy files must be UTF-8"})
				continue
			}
			found = append(found, invalidUTF8(&m.Value, child)...)
		}
	case *hujson.Array:
		for i := range comp.Elements {
			found = append(found, invalidUTF8(&comp.Elements[i], fmt.Sprintf("%s/%d", ptr, i))...)
		}
	case hujson.Literal:
		if comp.Kind() == '"' && !utf8.Valid(comp) {
			found = append(found, finding{at: spot{ptr: ptr}, msg: prefix(ptr) + "not valid UTF-8; policy files must be UTF-8"})
		}
	}
	return found
}
