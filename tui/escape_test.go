package tui

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/me/project/main.go", "/home/me/project/main.go"},
		{"/tmp/a b", "/tmp/a b"},
		{"/tmp/\x1b[2J", `/tmp/\x1b[2J`},
		{"/tmp/x\ny", `/tmp/x\ny`},
		{"\r\t\a\b\f\v\x00\x7f", `\r\t\a\b\f\v\x00\x7f`},
		{"/tmp/\xff\xfe", `/tmp/\xff\xfe`},
		{"/tmp/\u0085\u009b2J", `/tmp/\u0085\u009b2J`},
		{"/tmp/\u202egnp.exe", `/tmp/\u202egnp.exe`},
		{"/tmp/zero\u200bwidth", `/tmp/zero\u200bwidth`},
		{"/tmp/nb\u00a0sp", `/tmp/nb\u00a0sp`},
		{"/tmp/tag\U000e0041", `/tmp/tag\U000e0041`},
		// A backslash is kept, as everywhere picket prints: escaped text
		// escapes to itself.
		{`/tmp/\x1b`, `/tmp/\x1b`},
		{"/tmp/日本語/é", "/tmp/日本語/é"},
		// Runes terminals count differently from the layout: escaped.
		{"/tmp/a\U0001F3FD", `/tmp/a\U0001f3fd`},
		{"/tmp/\U0001F44D", `/tmp/\U0001f44d`},
		{"/tmp/a\u0300", `/tmp/a\u0300`},
		{"/tmp/\U0001F1FA\U0001F1F8", `/tmp/\U0001f1fa\U0001f1f8`},
		{"/tmp/x\uFE0F", `/tmp/x\ufe0f`},
		// Blank runes that forge columns: braille blank, Hangul fillers.
		{"/tmp/a\u2800\u2800->\u2800/b", `/tmp/a\u2800\u2800->\u2800/b`},
		{"/tmp/\u3164\u115f\u1160\uffa0", `/tmp/\u3164\u115f\u1160\uffa0`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscape checks the property the prompt relies on: whatever the input,
// the output is valid UTF-8 made only of printable runes and spaces, so it
// cannot move the cursor or hide text, and beyond ASCII only of letters,
// digits and punctuation, whose columns terminals count as the layout does.
// Text made of those alone passes unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"/tmp/\x1b[2J\n", "\xff", "\u202e", `\x1b`, "a\u0300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q, not valid UTF-8", s, got)
		}
		plain := func(r rune) bool {
			return r == ' ' || r < utf8.RuneSelf && unicode.IsPrint(r) ||
				unicode.IsPrint(r) && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsPunct(r)) &&
					!unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
		}
		for _, r := range got {
			if !plain(r) {
				t.Fatalf("Escape(%q) = %q, contains %U", s, got, r)
			}
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !plain(r) }) && got != s {
			t.Fatalf("Escape(%q) = %q, changed plain text", s, got)
		}
	})
}
