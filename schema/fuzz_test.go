package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// syntaxMessages are every message a syntax error may have: a fixed set,
// so none can quote the file.
func syntaxMessages() map[string]bool {
	m := map[string]bool{}
	for _, s := range []string{
		"unexpected end of file", "not valid JSONC", "invalid UTF-8 in comment",
		"invalid string: a bad escape or a control character",
		"invalid value: want a string in double quotes, a number, true, false, null, an object or an array",
		"not valid JSON once comments are removed", fmt.Sprintf("nesting deeper than %d levels", MaxNesting),
		bomMessage,
	} {
		m["syntax error: "+s] = true
	}
	for _, w := range invalidCharWhere {
		m["syntax error: unexpected character "+w] = true
	}
	for _, w := range eofWhile {
		m["syntax error: unexpected end of file while "+w] = true
	}
	return m
}

// FuzzValidate checks that any input, however malformed, yields problems
// that point inside the file, in order, and never a panic; that a syntax
// error's message is one of a fixed set (it never quotes the file); and
// that a file it passes decodes the way the loader decodes it.
func FuzzValidate(f *testing.F) {
	for _, tt := range validateTests {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(positionSrc))
	f.Add([]byte(strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)))
	f.Add([]byte(strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1)))
	f.Add([]byte(`{"picket": {"blocklist": ["\ud800", "\xff"]}}`))
	syntax := syntaxMessages()
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := bytes.Count(src, []byte("\n")) + 1
		problems := Validate("f", src)
		for _, p := range problems {
			if strings.HasPrefix(p.Msg, "syntax error") && !syntax[p.Msg] {
				t.Errorf("Validate(%q) gave %q, not a fixed syntax error message", src, p)
			}
		}
		if len(problems) == 0 && len(bytes.TrimSpace(src)) > 0 {
			std, err := hujson.Standardize(bytes.Clone(src))
			var v any
			if err == nil {
				err = json.Unmarshal(std, &v)
			}
			if err != nil {
				t.Errorf("Validate(%q) passed, but the loader's decoding fails: %v", src, err)
			}
		}
		for _, p := range problems {
			if p.File != "f" || p.Line < 1 || p.Col < 1 || p.Line > lines+1 || p.Msg == "" {
				t.Errorf("Validate(%q) gave %q, outside a %d-line file", src, p, lines)
			}
		}
		less := func(a, b Problem) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		}
		if !slices.IsSortedFunc(problems, less) {
			t.Errorf("Validate(%q) = %q, not sorted by position", src, problems)
		}
		for _, ptr := range []string{"", "/picket/mode", "/filesystem/allowRead/0"} {
			if line, col := Position(src, ptr); line < 1 || col < 1 || line > lines {
				t.Errorf("Position(%q, %q) = %d:%d, outside a %d-line file", src, ptr, line, col, lines)
			}
		}
	})
}
