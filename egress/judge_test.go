package egress

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func entries(t testing.TB, ss ...string) []Entry {
	t.Helper()
	var out []Entry
	for _, s := range ss {
		e, err := ParseEntry(s)
		if err != nil {
			t.Fatalf("ParseEntry(%q): %v", s, err)
		}
		out = append(out, e)
	}
	return out
}

func host(t testing.TB, s string) Host {
	t.Helper()
	h, err := ParseHost(s)
	if err != nil {
		t.Fatalf("ParseHost(%q): %v", s, err)
	}
	return h
}

func TestParseEntry(t *testing.T) {
	good := map[string]string{
		"example.com": "example.com", "Example.COM": "example.com", "*.example.com": "*.example.com",
		"*": "*", "localhost": "localhost", "registry.example.com:443": "registry.example.com",
		"203.0.113.7": "203.0.113.7", "203.0.113.7:8080": "203.0.113.7", "2001:db8::1": "2001:db8::1",
		"[2001:db8::1]": "2001:db8::1", "[2001:db8::1]:443": "2001:db8::1", "::ffff:203.0.113.7": "203.0.113.7",
		"*:443": "*", "_acme.example.com": "_acme.example.com", "xn--bcher-kva.example": "xn--bcher-kva.example",
	}
	for in, want := range good {
		e, err := ParseEntry(in)
		if err != nil {
			t.Errorf("ParseEntry(%q): %v", in, err)
			continue
		}
		if e.Host() != want {
			t.Errorf("ParseEntry(%q).Host() = %q, want %q", in, e.Host(), want)
		}
	}
	bad := []string{
		"", "*.com", "com", "registry", "http://example.com", "example.com/x", "user@example.com",
		"example.com:", "example.com:0", "example.com:65536", "example.com:08", "example.com:+1",
		"a.*.example.com", "*example.com", "**.example.com", "example.com.", "exa mple.com",
		"-bad.example.com", "bad-.example.com", "bücher.example", "127.1", "1.2.3", "0x7f.0.0.1",
		"10.0.0.300", "fe80::1%eth0", "[2001:db8::1", "[2001:db8::1]443", "*.", ".example.com",
		"example..com", strings.Repeat("a", 64) + ".com", "*.*", "example.com:443:1",
	}
	for _, in := range bad {
		if e, err := ParseEntry(in); err == nil {
			t.Errorf("ParseEntry(%q) = %q, want an error", in, e.Host())
		}
	}
}

func TestParseHost(t *testing.T) {
	good := map[string]string{
		"Example.COM": "example.com", "example.com.": "example.com", "203.0.113.7": "203.0.113.7",
		"[2001:db8::1]": "2001:db8::1", "2001:db8::1": "2001:db8::1", "::ffff:127.0.0.1": "127.0.0.1",
		"localhost": "localhost", "a_b.example": "a_b.example",
	}
	for in, want := range good {
		if h, err := ParseHost(in); err != nil || h.String() != want {
			t.Errorf("ParseHost(%q) = %q, %v; want %q", in, h.String(), err, want)
		}
	}
	for _, in := range []string{"", "127.1", "2130706433", "0x7f000001", "0x7f.1", "017.0.0.1", "a..b", "a.b..",
		"exa mple.com", "fe80::1%25eth0", "[::1", "example.com\x00.evil", "ex\u00e4mple.com", "[1.2.3.4]", "-a.com"} {
		if h, err := ParseHost(in); err == nil {
			t.Errorf("ParseHost(%q) = %q, want an error", in, h.String())
		}
	}
}

func TestJudge(t *testing.T) {
	p := Policy{
		Allow: entries(t, "example.com", "*.example.org", "registry.example.net:443", "203.0.113.7", "[2001:db8::7]:443", "localhost"),
		Deny:  entries(t, "bad.example.org", "*.evil.example.com", "203.0.113.9"),
	}
	cases := []struct {
		host string
		port int
		want Outcome
		rule string
	}{
		{"example.com", 443, Allowed, RuleAllowed},
		{"EXAMPLE.com.", 80, Allowed, RuleAllowed},
		{"www.example.com", 443, Unlisted, ""},
		{"example.org", 443, Unlisted, ""}, // "*." names what is below, not the name itself
		{"a.example.org", 443, Allowed, RuleAllowed},
		{"a.b.example.org", 22, Allowed, RuleAllowed},
		{"notexample.org", 443, Unlisted, ""},
		{"bad.example.org", 443, Denied, RuleDenied},
		{"x.evil.example.com", 443, Denied, RuleDenied},
		{"registry.example.net", 443, Allowed, RuleAllowed},
		{"registry.example.net", 80, Unlisted, ""},
		{"203.0.113.7", 80, Allowed, RuleAllowed},
		{"203.0.113.8", 80, Unlisted, ""},
		{"203.0.113.9", 80, Denied, RuleDenied},
		{"::ffff:203.0.113.9", 80, Denied, RuleDenied},
		{"2001:db8::7", 443, Allowed, RuleAllowed},
		{"2001:db8::7", 80, Unlisted, ""},
		{"localhost", 5432, Allowed, RuleAllowed},
	}
	for _, c := range cases {
		v := p.Judge(host(t, c.host), c.port)
		if v.Outcome != c.want || v.Rule != c.rule {
			t.Errorf("Judge(%s:%d) = %v %q, want %v %q", c.host, c.port, v.Outcome, v.Rule, c.want, c.rule)
		}
	}
	all := Policy{Allow: entries(t, "*"), Deny: entries(t, "evil.example")}
	for h, want := range map[string]Outcome{"anything.example": Allowed, "evil.example": Denied, "198.51.100.1": Unlisted, "2001:db8::1": Unlisted} {
		if v := all.Judge(host(t, h), 443); v.Outcome != want {
			t.Errorf("with \"*\": Judge(%s) = %v, want %v", h, v.Outcome, want)
		}
	}
	denyAll := Policy{Allow: entries(t, "198.51.100.1", "example.com"), Deny: entries(t, "*")}
	for _, h := range []string{"198.51.100.1", "example.com"} {
		if v := denyAll.Judge(host(t, h), 443); v.Outcome != Denied {
			t.Errorf("deny \"*\": Judge(%s) = %v, want Denied", h, v.Outcome)
		}
	}
}

func TestClassOf(t *testing.T) {
	cases := map[string]Class{
		"127.0.0.1": ClassLoopback, "127.8.9.10": ClassLoopback, "::1": ClassLoopback, "0.0.0.0": ClassLoopback,
		"::": ClassLoopback, "0.1.2.3": ClassLoopback, "::ffff:127.0.0.1": ClassLoopback,
		"169.254.169.254": ClassLinkLocal, "fe80::1": ClassLinkLocal, "::ffff:169.254.169.254": ClassLinkLocal,
		"64:ff9b::a9fe:a9fe": ClassLinkLocal, "2002:a9fe:a9fe::1": ClassLinkLocal, "::169.254.169.254": ClassLinkLocal,
		"10.1.2.3": ClassPrivate, "172.16.0.1": ClassPrivate, "172.31.255.255": ClassPrivate, "192.168.1.1": ClassPrivate,
		"100.64.0.1": ClassPrivate, "64:ff9b::a00:1": ClassPrivate, "64:ff9b:1::7f00:1": ClassLoopback,
		"fd00::1": ClassUniqueLocal, "fc00::1": ClassUniqueLocal, "fec0::1": ClassUniqueLocal,
		"224.0.0.1": ClassOther, "255.255.255.255": ClassOther, "240.0.0.1": ClassOther, "ff02::1": ClassOther,
		"203.0.113.7": ClassPublic, "198.51.100.1": ClassPublic, "8.8.8.8": ClassPublic, "172.32.0.1": ClassPublic,
		"2001:db8::1": ClassPublic, "64:ff9b::808:808": ClassPublic, "2002:808:808::1": ClassPublic,
	}
	for s, want := range cases {
		if got := ClassOf(netip.MustParseAddr(s)); got != want {
			t.Errorf("ClassOf(%s) = %q, want %q", s, got, want)
		}
	}
}

func TestPermit(t *testing.T) {
	addrs := func(ss ...string) []netip.Addr {
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
	strict := Policy{Allow: entries(t, "example.com", "10.9.9.9", "169.254.169.254:80"), Deny: entries(t, "203.0.113.66")}
	ok, refused := strict.Permit(443, addrs("127.0.0.1", "169.254.169.254", "10.1.1.1", "fd00::1", "203.0.113.66", "203.0.113.7", "10.9.9.9"))
	if want := addrs("203.0.113.7", "10.9.9.9"); !slices.Equal(ok, want) {
		t.Errorf("Permit ok = %v, want %v", ok, want)
	}
	if len(refused) != 5 || refused[0].Class != ClassLoopback || refused[4].Rule != RuleDenied {
		t.Errorf("Permit refused = %+v", refused)
	}
	if ok, _ := strict.Permit(80, addrs("169.254.169.254")); len(ok) != 1 {
		t.Errorf("a listed link-local address at its port is refused")
	}
	local := strict
	local.LocalOutbound = true
	ok, _ = local.Permit(443, addrs("127.0.0.1", "169.254.169.254", "10.1.1.1", "fd00::1", "224.0.0.1"))
	if want := addrs("127.0.0.1", "10.1.1.1", "fd00::1"); !slices.Equal(ok, want) {
		t.Errorf("allowLocalOutbound: Permit ok = %v, want %v (link-local and multicast stay refused)", ok, want)
	}
}

func TestFromRaw(t *testing.T) {
	raw := map[string]any{"network": map[string]any{
		"allowedDomains": []any{"example.com"}, "allowLocalBinding": true,
		"allowLocalOutboundPorts": []any{5432.0, 6379.0}, "httpProxyPort": 8888.0,
		"defaultAction": "proxy", "upstreamProxy": "http://127.0.0.1:8080",
	}}
	p, err := FromRaw(raw, "/p/fence.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	if !p.LocalOutbound || !slices.Equal(p.BridgedPorts(), []int{5432, 6379}) || p.Upstream.Host != "127.0.0.1:8080" {
		t.Errorf("FromRaw = %+v", p)
	}
	if h, s := p.Ports(); h != 8888 || s != DefaultSOCKSPort {
		t.Errorf("Ports() = %d, %d", h, s)
	}
	for _, sec := range []map[string]any{
		{"deniedDomains": []any{"https://evil.example"}},
		{"defaultAction": "proxy"},
		{"upstreamProxy": "socks5://127.0.0.1:1080"},
		{"httpProxyPort": 1080.0},
		{"allowLocalOutbound": true, "allowLocalOutboundPorts": []any{3128.0}},
	} {
		if _, err := FromRaw(map[string]any{"network": sec}, ""); err == nil {
			t.Errorf("FromRaw(%v): no error", sec)
		}
	}
	off := map[string]any{"network": map[string]any{"allowLocalBinding": true, "allowLocalOutbound": false}}
	if p, _ := FromRaw(off, ""); p.LocalOutbound {
		t.Errorf("allowLocalOutbound false does not win over allowLocalBinding")
	}
	if InForce(map[string]any{}) || !InForce(map[string]any{"network": map[string]any{}}) {
		t.Errorf("InForce is wrong")
	}
}
