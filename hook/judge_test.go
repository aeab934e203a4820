package hook

import "testing"

// TestOneLine guards the deny reason's first line, which Claude Code shows
// to the person: anything picket's escaping rule escapes quotes the field,
// C1 controls, bidi overrides and zero-width runes included.
func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/me/proj/main.go", "/home/me/proj/main.go"},
		{"/home/me/My Documents/a", "/home/me/My Documents/a"},
		{"/tmp/x\nforged", `"/tmp/x\nforged"`},
		{"/tmp/\x1b[2J", `"/tmp/\x1b[2J"`},
		{"/tmp/\u009b2J", `"/tmp/\u009b2J"`},
		{"/tmp/evil\u202etxt.exe", `"/tmp/evil\u202etxt.exe"`},
		{"/tmp/zero\u200bwidth", `"/tmp/zero\u200bwidth"`},
		{"/tmp/a\u2800->\u3164/b c", `"/tmp/a\u2800->\u3164/b c"`},
		{"/tmp/\xff", `"/tmp/\xff"`},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
