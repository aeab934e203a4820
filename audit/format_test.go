package audit

import (
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/p/.env", "/home/u/p/.env"},
		{"/tmp/résumé.txt", "/tmp/résumé.txt"},
		{"", ""},
		{"a\nb", `"a\nb"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{"x\rblock", `"x\rblock"`},
		{"\xff\xfe", `"\xff\xfe"`},
		{"\u009b2J", `"\u009b2J"`},                   // C1 control sequence introducer
		{"evil\u202etxt.exe", `"evil\u202etxt.exe"`}, // right-to-left override
		{"My Documents", `"My Documents"`},
		{`"quoted"`, `"\"quoted\""`},
		{"tab\there", `"tab\there"`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFormatCannotForgeLines(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.UTC)
	hostile := []string{"\n", "\r", "\x1b[2J", "\x1b]0;title\x07", "\xff", "\u009b31m", "\u2028", "\u202e"}
	for _, h := range hostile {
		e := Entry{
			TS: ts, Session: "s" + h, Agent: h, Decision: "block" + h, Tool: "Read" + h,
			Access: "read" + h, Path: "/p" + h + "2026-03-04 05:06:07  block", Resolved: "/r" + h,
			Layer: h, Rule: h, Pattern: h, Source: h, Reason: h, Command: h, Cwd: h,
		}
		for _, color := range []bool{false, true} {
			got := Format(e, color)
			plain := got
			if color {
				plain = stripSGR(got)
			}
			for _, r := range plain {
				if unicode.IsControl(r) || r == '\u2028' || r == '\u202e' || r == unicode.ReplacementChar {
					t.Errorf("Format(%q, %v) = %q: contains %U", h, color, got, r)
				}
			}
			if color && !strings.Contains(got, "\x1b[") {
				t.Errorf("Format(%q, true) = %q: no colour", h, got)
			}
		}
	}
}

// stripSGR removes the colour sequences Format adds itself; anything else
// beginning with ESC is left for the caller to find.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestFormatPlain(t *testing.T) {
	exit := 1
	tests := []struct {
		e    Entry
		want string
	}{
		{
			Entry{TS: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Session: "0123456789abcdef", Agent: "claude",
				Decision: "block", Tool: "Read", Access: "read", Path: "/p/.env", Resolved: "/p/.env",
				Layer: "blocklist", Rule: "picket.blocklist[0]", Pattern: ".env", Source: "/p/fence.jsonc"},
			"2026-03-04 05:06:07  01234567  block          Read       read   /p/.env  blocklist picket.blocklist[0] pattern=.env (/p/fence.jsonc)",
		},
		{
			Entry{TS: time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600)), Decision: "error", Tool: "Bash",
				Path: "a\nb", Resolved: "/real", Command: "ls", Exit: &exit, Reason: "picket: error: boom"},
			`2026-03-04 04:06:07            error          Bash              "a\nb"  -> /real  command=ls  exit=1  reason="picket: error: boom"`,
		},
	}
	for _, tt := range tests {
		if got := Format(tt.e, false); got != tt.want {
			t.Errorf("Format(%+v, false)\n got %q\nwant %q", tt.e, got, tt.want)
		}
	}
}
