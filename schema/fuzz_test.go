package schema

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzValidate checks that any input, however malformed, yields problems
// that point inside the file, in order, and never a panic.
func FuzzValidate(f *testing.F) {
	for _, tt := range validateTests {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(positionSrc))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := bytes.Count(src, []byte("\n")) + 1
		problems := Validate("f", src)
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
