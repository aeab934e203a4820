package escape

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile holds what has reached a terminal raw before: escape sequences,
// C1 controls, bidi and zero-width format characters, blank runes that forge
// columns, and stacks of combining marks.
var hostile = []struct{ in, text, field string }{
	{"/home/me/project/main.go", "/home/me/project/main.go", "/home/me/project/main.go"},
	{"/tmp/日本語/é", "/tmp/日本語/é", "/tmp/日本語/é"},
	{"", "", ""},
	{"My Documents", "My Documents", `"My Documents"`},
	{`"quoted"`, `"quoted"`, `"\"quoted\""`},
	{`/tmp/\x1b`, `/tmp/\x1b`, `"/tmp/\\x1b"`},
	{"/x/{a,b}\x1b]0;PWNED\a\x1b[2J\x1b[H", `/x/{a,b}\x1b]0;PWNED\a\x1b[2J\x1b[H`, `"/x/{a,b}\x1b]0;PWNED\a\x1b[2J\x1b[H"`},
	{"a\nb\r\t\v\f\b\x00\x7f", `a\nb\r\t\v\f\b\x00\x7f`, `"a\nb\r\t\v\f\b\x00\x7f"`},
	{"\xff\xfe", `\xff\xfe`, `"\xff\xfe"`},
	{"\u009b2J\u0085", `\u009b2J\u0085`, `"\u009b2J\u0085"`},
	{"evil\u202etxt.exe", `evil\u202etxt.exe`, `"evil\u202etxt.exe"`},
	{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`, `"zero\u200bwidth\ufeff"`},
	{"nb\u00a0sp\u3000", `nb\u00a0sp\u3000`, `"nb\u00a0sp\u3000"`},
	{"/p/notes\u2800\u2800->\u2800/home/me/.ssh/id_rsa", `/p/notes\u2800\u2800->\u2800/home/me/.ssh/id_rsa`, `"/p/notes\u2800\u2800->\u2800/home/me/.ssh/id_rsa"`},
	{"a\u3164b\u115f\u1160\uffa0", `a\u3164b\u115f\u1160\uffa0`, `"a\u3164b\u115f\u1160\uffa0"`},
	{"a\u0301\u0301\u0301", `a\u0301\u0301\u0301`, `"a\u0301\u0301\u0301"`},
	{"x\ufe0f\U000e0041", `x\ufe0f\U000e0041`, `"x\ufe0f\U000e0041"`},
	{"/tmp/\U0001F44D\U0001F3FD", `/tmp/\U0001f44d\U0001f3fd`, `"/tmp/\U0001f44d\U0001f3fd"`},
	{"\ufffd", `\ufffd`, `"\ufffd"`},
	{"\u2028\u2029", `\u2028\u2029`, `"\u2028\u2029"`},
}

func TestText(t *testing.T) {
	for _, tt := range hostile {
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %s, want %s", tt.in, got, tt.text)
		}
	}
}

func TestField(t *testing.T) {
	for _, tt := range hostile {
		if got := Field(tt.in); got != tt.field {
			t.Errorf("Field(%q) = %s, want %s", tt.in, got, tt.field)
		}
	}
}

// FuzzEscape checks what every caller relies on: Text and Field give valid
// UTF-8 made of shown runes and spaces only; Text changes nothing it need
// not and is idempotent; Field is a bare word or a Go literal that unquotes
// to its input.
func FuzzEscape(f *testing.F) {
	for _, tt := range hostile {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, field := Text(s), Field(s)
		for _, out := range []string{text, field} {
			if !utf8.ValidString(out) {
				t.Fatalf("escaping %q gave %q, not valid UTF-8", s, out)
			}
			for _, r := range out {
				if r != ' ' && !Shown(r) {
					t.Fatalf("escaping %q gave %q, which holds %U", s, out, r)
				}
			}
		}
		if Text(text) != text {
			t.Fatalf("Text(Text(%q)) = %q, want %q", s, Text(text), text)
		}
		plain := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r != ' ' && !Shown(r) })
		if plain && text != s {
			t.Fatalf("Text(%q) = %q, changed plain text", s, text)
		}
		if field == s {
			if strings.ContainsAny(s, " \"\\") || !plain {
				t.Fatalf("Field(%q) left it bare", s)
			}
			return
		}
		if u, err := strconv.Unquote(field); err != nil || u != s {
			t.Fatalf("strconv.Unquote(Field(%q) = %s) = %q, %v", s, field, u, err)
		}
	})
}
