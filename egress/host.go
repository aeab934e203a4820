package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Host is a destination as a client named it, in canonical form: a domain
// name in lower case without a trailing dot, or an IP address (an IPv4
// address mapped into IPv6 is the IPv4 address).
type Host struct {
	Name string     // "" when the client gave an address
	Addr netip.Addr // valid when the client gave an address
}

// IsAddr reports whether the client named an IP address rather than a name.
func (h Host) IsAddr() bool { return h.Addr.IsValid() }

// String is the host as an allowedDomains entry spells it: the name, or
// the address (an IPv6 one without brackets).
func (h Host) String() string {
	if h.IsAddr() {
		return h.Addr.String()
	}
	return h.Name
}

// HostPort is h and port as a URL authority spells them ("[::1]:443").
func (h Host) HostPort(port int) string {
	if h.IsAddr() {
		return netip.AddrPortFrom(h.Addr, uint16(port)).String()
	}
	return h.Name + ":" + strconv.Itoa(port)
}

// maxName is the longest domain name, in bytes, without its trailing dot.
const maxName = 253

// ParseHost reads a host as a client sends it (an HTTP request's or a
// CONNECT's host without the port, a SOCKS5 domain or address): a domain
// name of letters, digits, '-' and '_' in dot-separated labels, one
// trailing dot allowed, case ignored; or an IPv4 address in dotted-quad
// form; or an IPv6 address, with or without brackets. Anything else is an
// error, and is refused: a name whose last label is numeric ("127.1",
// "0x7f.1", "2130706433") is an address in some resolvers' eyes, so it
// must be written as one.
func ParseHost(s string) (Host, error) {
	if s == "" {
		return Host{}, errors.New("empty host")
	}
	if strings.HasPrefix(s, "[") {
		inner, ok := strings.CutSuffix(s[1:], "]")
		if !ok || !strings.Contains(inner, ":") {
			return Host{}, fmt.Errorf("host %q: malformed IPv6 literal", s)
		}
		s = inner
	}
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" || !a.Is6() {
			return Host{}, fmt.Errorf("host %q: malformed IPv6 address", s)
		}
		return Host{Addr: a.Unmap()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return Host{Addr: a.Unmap()}, nil
	}
	name := strings.ToLower(strings.TrimSuffix(s, "."))
	if err := checkName(name); err != nil {
		return Host{}, fmt.Errorf("host %q: %w", s, err)
	}
	return Host{Name: name}, nil
}

// checkName accepts a lower-case domain name without a trailing dot.
func checkName(name string) error {
	if name == "" || len(name) > maxName {
		return errors.New("not a domain name")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if !validLabel(l) {
			return fmt.Errorf("label %q is not letters, digits, '-' and '_'", l)
		}
	}
	if numeric(labels[len(labels)-1]) {
		return errors.New("a name that ends in a numeric label is an address in some resolvers: write the address as a.b.c.d")
	}
	return nil
}

// validLabel: 1 to 63 of [a-z0-9_-], not starting or ending with '-'.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// numeric reports whether a label could be read as part of an address:
// all digits, or a hex number ("0x7f").
func numeric(l string) bool {
	if h, ok := strings.CutPrefix(l, "0x"); ok {
		l = h
		for i := 0; i < len(l); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(l[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// ParsePort reads a decimal port, 1 to 65535, without sign or leading
// zeros.
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return n, nil
}
