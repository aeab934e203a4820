package hook

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
)

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

// TestBlockMessageJSONIsASCIISafe: the JSON body of a block carries a
// path's bidi overrides, zero-width and C1 characters as \u escapes, and
// still parses to the same value.
func TestBlockMessageJSONIsASCIISafe(t *testing.T) {
	p := "/w/.env\u009b31m\u202egpj\u200b/\u3164x/caf\u00e9/\U0001F600"
	msg := BlockMessage("Read", decide.Decision{Access: decide.Read, Path: p, Resolved: p})
	_, body, _ := strings.Cut(msg, "\n")
	for _, r := range body {
		if r >= utf8.RuneSelf && !escape.Shown(r) {
			t.Errorf("block JSON carries %U raw:\n%s", r, body)
		}
	}
	if !strings.Contains(body, "caf\u00e9") {
		t.Errorf("block JSON escaped a plain letter: %s", body)
	}
	var got struct{ Path string }
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.Path != p {
		t.Errorf("block JSON = %q, %v; want the path back", got.Path, err)
	}
}
