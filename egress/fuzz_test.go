package egress

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// refMatch is an independent reading of an entry: it compares labels from
// the right instead of strings, so a matcher that let "evilexample.com"
// pass for "*.example.com", or "example.com.evil" for "example.com", is
// caught.
func refMatch(entryText string, h Host, port int, deny bool) bool {
	text := entryText
	p := 0
	if strings.HasPrefix(text, "[") {
		end := strings.Index(text, "]")
		if rest := text[end+1:]; rest != "" {
			p, _ = ParsePort(rest[1:])
		}
		text = text[1:end]
	} else if strings.Count(text, ":") == 1 {
		var ps string
		text, ps, _ = strings.Cut(text, ":")
		p, _ = ParsePort(ps)
	}
	if p != 0 && p != port {
		return false
	}
	if a, err := netip.ParseAddr(text); err == nil {
		return h.IsAddr() && a.Unmap() == h.Addr
	}
	if text == "*" {
		return !h.IsAddr() || deny
	}
	if h.IsAddr() {
		return false
	}
	want := strings.Split(strings.ToLower(text), ".")
	got := strings.Split(h.Name, ".")
	if want[0] == "*" {
		want = want[1:]
		if len(got) <= len(want) {
			return false
		}
		got = got[len(got)-len(want):]
	}
	return slices.Equal(want, got)
}

func splitEntries(s string) []Entry {
	var out []Entry
	for _, part := range strings.Split(s, ",") {
		if e, err := ParseEntry(part); err == nil {
			out = append(out, e)
		}
	}
	return out
}

func addJudgeSeeds(f *testing.F) {
	seeds := []struct{ allow, deny, host string }{
		{"example.com,*.example.org", "bad.example.org", "a.example.org"},
		{"*", "evil.example", "evil.example"},
		{"*.example.com", "", "evilexample.com"},
		{"example.com", "", "example.com.evil"},
		{"*.example.com", "*.a.example.com", "b.a.example.com"},
		{"203.0.113.7,*", "", "203.0.113.7"},
		{"*", "203.0.113.7", "::ffff:203.0.113.7"},
		{"registry.example.net:443", "", "registry.example.net"},
		{"[2001:db8::1]:443", "2001:db8::1", "[2001:db8::1]"},
		{"localhost", "*:22", "localhost"},
		{"EXAMPLE.COM", "", "example.com."},
	}
	for _, s := range seeds {
		for _, port := range []uint16{443, 80, 22} {
			f.Add(s.allow, s.deny, s.host, port)
		}
	}
}

// FuzzJudge: a deny entry never loses to an allow entry, adding one never
// turns a deny into anything else, and no host is allowed or denied by an
// entry that does not name it (checked against refMatch).
func FuzzJudge(f *testing.F) {
	addJudgeSeeds(f)
	f.Fuzz(func(t *testing.T, allowText, denyText, hostText string, port uint16) {
		h, err := ParseHost(hostText)
		if err != nil || port == 0 {
			return
		}
		p := Policy{Allow: splitEntries(allowText), Deny: splitEntries(denyText)}
		v := p.Judge(h, int(port))
		denied := slices.ContainsFunc(p.Deny, func(e Entry) bool { return refMatch(e.Text, h, int(port), true) })
		allowed := slices.ContainsFunc(p.Allow, func(e Entry) bool { return refMatch(e.Text, h, int(port), false) })
		switch {
		case denied && v.Outcome != Denied:
			t.Fatalf("Judge(%s:%d) = %v though a deny entry of %q names it", h, port, v.Outcome, denyText)
		case !denied && v.Outcome == Denied:
			t.Fatalf("Judge(%s:%d) = Denied by %q, which does not name it", h, port, v.Entry)
		case !denied && allowed && v.Outcome != Allowed:
			t.Fatalf("Judge(%s:%d) = %v though allow entry of %q names it", h, port, v.Outcome, allowText)
		case !allowed && v.Outcome == Allowed:
			t.Fatalf("Judge(%s:%d) = Allowed by %q, which does not name it", h, port, v.Entry)
		}
		if v.Outcome == Denied || v.Outcome == Allowed {
			if !refMatch(v.Entry, h, int(port), v.Outcome == Denied) {
				t.Fatalf("Judge(%s:%d) names entry %q, which does not name it", h, port, v.Entry)
			}
		}
		// One more deny entry, any: a Denied stays Denied, and nothing
		// becomes Allowed that was not.
		more := p
		more.Deny = append(slices.Clone(p.Deny), splitEntries(hostText)...)
		w := more.Judge(h, int(port))
		if v.Outcome == Denied && w.Outcome != Denied || w.Outcome == Allowed && v.Outcome != Allowed {
			t.Fatalf("adding deny %q turned %v into %v for %s:%d", hostText, v.Outcome, w.Outcome, h, port)
		}
	})
}

// FuzzParseHost: a parsed host prints as a host that parses to itself, is
// lower case, and is never both a name and an address; a name never ends
// in a numeric label.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"example.com", "EXAMPLE.com.", "127.1", "0x7f.1", "[::1]", "::ffff:1.2.3.4", "a_b.c", "1.2.3.4.example", "fe80::1%1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHost(s)
		if err != nil {
			return
		}
		if h.IsAddr() == (h.Name != "") {
			t.Fatalf("ParseHost(%q) = %+v: both or neither", s, h)
		}
		again, err := ParseHost(h.String())
		if err != nil || again != h {
			t.Fatalf("ParseHost(%q) = %q, which reparses as %+v, %v", s, h, again, err)
		}
		if h.Name != strings.ToLower(h.Name) {
			t.Fatalf("ParseHost(%q) = %q: not lower case", s, h)
		}
		if !h.IsAddr() {
			labels := strings.Split(h.Name, ".")
			if numeric(labels[len(labels)-1]) {
				t.Fatalf("ParseHost(%q) = %q: ends in a numeric label", s, h)
			}
		}
	})
}

// FuzzParseEntry: an entry that parses names its own host (unless it is
// an address written with a port, or "*"), and its host part parses as
// an entry again.
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com", "*", "a.b:443", "[::1]:80", "203.0.113.7", "*.com", "x.y."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEntry(s)
		if err != nil {
			return
		}
		if _, err := ParseEntry(e.Host()); err != nil {
			t.Fatalf("ParseEntry(%q).Host() = %q, which does not parse: %v", s, e.Host(), err)
		}
		if e.kind == kindName || e.kind == kindAddr {
			h, err := ParseHost(e.Host())
			if err != nil || !e.matchesHost(h, max(e.Port, 1), false) {
				t.Fatalf("entry %q does not name its own host %q (%v)", s, e.Host(), err)
			}
		}
	})
}
