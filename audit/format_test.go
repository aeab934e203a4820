package audit

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestFormatCannotForgeColumns guards against a path posing as two columns:
// blank runes (braille blank, Hangul fillers), spaces and combining marks
// quote the field, so a forged "-> resolved" column shows inside quotes.
func TestFormatCannotForgeColumns(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, blank := range []string{`\u2800`, `\u3164`, `\u115f`, `\u1160`, `\uffa0`, ` `, `\u00a0`, `\u0301\u0301`} {
		r, err := strconv.Unquote(`"` + blank + `"`)
		if err != nil {
			t.Fatal(err)
		}
		path := "/home/me/proj/notes" + r + r + "->" + r + "/home/me/.ssh/id_rsa"
		got := Format(Entry{TS: ts, Session: "0123456789", Decision: "allow", Tool: "Read", Access: "read", Path: path}, false)
		want := "2026-03-04 05:06:07  01234567  allow          Read       read   " +
			`"/home/me/proj/notes` + blank + blank + "->" + blank + `/home/me/.ssh/id_rsa"`
		if got != want {
			t.Errorf("Format(path %q)\n got %s\nwant %s", path, got, want)
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
