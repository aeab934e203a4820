package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Entry is one network.allowedDomains or network.deniedDomains entry.
//
// fence's forms: "example.com" (that name only), "*.example.com" (every
// name below example.com, not example.com itself), "*" (everything), and
// "localhost". picket adds a ":port" suffix, as Claude Code's sandbox
// does ("registry.example.com:443"; without one an entry matches every
// port), and reads an entry that is an IP address ("203.0.113.7",
// "2001:db8::1", "[2001:db8::1]:443") as that address.
type Entry struct {
	Text string // as written
	kind entryKind
	name string     // kindName: the name; kindSuffix: what follows "*."
	addr netip.Addr // kindAddr
	Port int        // 0: every port
}

type entryKind int

const (
	kindAll    entryKind = iota // "*"
	kindSuffix                  // "*.example.com"
	kindName                    // "example.com"
	kindAddr                    // "203.0.113.7"
)

// ParseEntry reads one entry. The stricter reading wins where fence's own
// rules leave room: a name needs a dot (or is "localhost"), a "*." wildcard
// needs two labels after it ("*.com" is refused, as fence refuses it),
// labels are ASCII (write an internationalized name in its xn-- form), and
// no scheme, path, user or trailing dot.
func ParseEntry(s string) (Entry, error) {
	e := Entry{Text: s}
	if err := e.parse(s); err != nil {
		return Entry{}, fmt.Errorf("entry %q: %w", s, err)
	}
	return e, nil
}

func (e *Entry) parse(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/@") {
		return errors.New("a domain entry takes no scheme, user or path")
	}
	hostPart, err := e.cutPort(s)
	if err != nil {
		return err
	}
	switch {
	case hostPart == "*":
		e.kind = kindAll
		return nil
	case strings.HasPrefix(hostPart, "*."):
		e.kind, e.name = kindSuffix, strings.ToLower(hostPart[2:])
		if err := checkName(e.name); err != nil {
			return err
		}
		if !strings.Contains(e.name, ".") {
			return errors.New("wildcard too broad: \"*.\" needs a name of two labels or more after it")
		}
		return nil
	case strings.Contains(hostPart, "*"):
		return errors.New("the only wildcards are \"*\" alone and a leading \"*.\"")
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(hostPart, "["), "]")); err == nil {
		if a.Zone() != "" {
			return errors.New("an address takes no zone")
		}
		e.kind, e.addr = kindAddr, a.Unmap()
		return nil
	}
	if strings.HasSuffix(hostPart, ".") {
		return errors.New("write the name without its trailing dot")
	}
	e.kind, e.name = kindName, strings.ToLower(hostPart)
	if err := checkName(e.name); err != nil {
		return err
	}
	if !strings.Contains(e.name, ".") && e.name != "localhost" {
		return errors.New("a name needs a dot (\"localhost\" is the one exception, as in fence)")
	}
	return nil
}

// cutPort splits a ":port" suffix off s. An IPv6 address with a port is
// written in brackets; one without brackets has no port.
func (e *Entry) cutPort(s string) (string, error) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return "", errors.New("unclosed '['")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, nil
		}
		p, ok := strings.CutPrefix(rest, ":")
		if !ok {
			return "", errors.New("only a :port may follow ']'")
		}
		port, err := ParsePort(p)
		e.Port = port
		return host, err
	}
	if strings.Count(s, ":") != 1 {
		return s, nil // no port, or a bare IPv6 address
	}
	host, p, _ := strings.Cut(s, ":")
	port, err := ParsePort(p)
	e.Port = port
	return host, err
}

// IsAll reports whether the entry is "*" (with or without a port).
func (e Entry) IsAll() bool { return e.kind == kindAll }

// Addr returns the address an address entry names.
func (e Entry) Addr() (netip.Addr, bool) { return e.addr, e.kind == kindAddr }

// Host is the entry's host part as a lower-case name, "*", "*.name" or an
// address: what a person reads.
func (e Entry) Host() string {
	switch e.kind {
	case kindAll:
		return "*"
	case kindSuffix:
		return "*." + e.name
	case kindAddr:
		return e.addr.String()
	}
	return e.name
}

func (e Entry) portMatches(port int) bool { return e.Port == 0 || e.Port == port }

// matchesHost reports whether the entry names h at port. "*" names every
// domain name, but an address only in a deny list (deny is true): an
// address is allowed only where an entry lists it.
func (e Entry) matchesHost(h Host, port int, deny bool) bool {
	if !e.portMatches(port) {
		return false
	}
	if h.IsAddr() {
		return e.matchesAddr(h.Addr, deny)
	}
	switch e.kind {
	case kindAll:
		return true
	case kindSuffix:
		return len(h.Name) > len(e.name) && strings.HasSuffix(h.Name, e.name) && h.Name[len(h.Name)-len(e.name)-1] == '.'
	case kindName:
		return h.Name == e.name
	}
	return false
}

// matchesAddr reports whether the entry names address a: an address
// entry equal to it, or, in a deny list, "*".
func (e Entry) matchesAddr(a netip.Addr, deny bool) bool {
	switch e.kind {
	case kindAddr:
		return e.addr == a.Unmap()
	case kindAll:
		return deny
	}
	return false
}

// EntryFor is the allowedDomains entry a grant of h writes: the host alone,
// which (as fence reads it) matches every port.
func EntryFor(h Host) string { return h.String() }
