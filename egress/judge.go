package egress

import (
	"fmt"
	"net/netip"
)

// Outcome is what the policy says of a destination by its name.
type Outcome int

// The outcomes of [Policy.Judge].
const (
	// Denied: a deniedDomains entry names it, or it cannot be judged.
	// Final: no prompt, no upstream proxy.
	Denied Outcome = iota
	// Allowed: an allowedDomains entry names it. Its addresses are judged
	// next ([Policy.Permit]).
	Allowed
	// Unlisted: no entry names it. A person may be asked, or the upstream
	// proxy takes it (defaultAction "proxy"); otherwise it is denied.
	Unlisted
)

// The rules a decision names, as the audit log and the block messages
// spell them.
const (
	RuleDenied    = "network.deniedDomains"
	RuleAllowed   = "network.allowedDomains"
	RuleLocal     = "network.allowLocalOutbound"
	RuleDefault   = "network.defaultAction"
	RuleGrant     = "grant"
	RuleMalformed = "network"
)

// Verdict is the decision on a destination before its name is resolved.
type Verdict struct {
	Outcome Outcome
	Rule    string // RuleDenied, RuleAllowed, or "" when Unlisted
	Entry   string // the entry that decided, as written
}

// Judge decides host h at port by the two lists. It is pure. A deny entry
// always wins: whatever Allow holds, a host a Deny entry names is Denied.
// An IP address is Allowed only by an entry that is that address ("*"
// names every domain name, never an address).
func (p Policy) Judge(h Host, port int) Verdict {
	for _, e := range p.Deny {
		if e.matchesHost(h, port, true) {
			return Verdict{Outcome: Denied, Rule: RuleDenied, Entry: e.Text}
		}
	}
	for _, e := range p.Allow {
		if e.matchesHost(h, port, false) {
			return Verdict{Outcome: Allowed, Rule: RuleAllowed, Entry: e.Text}
		}
	}
	return Verdict{Outcome: Unlisted}
}

// Refusal is why an address a name resolved to is not connected to.
type Refusal struct {
	Addr  netip.Addr
	Class Class  // the address's class, when that is the reason
	Rule  string // RuleDenied (an entry names the address) or RuleLocal
	Entry string // the deny entry
}

// Reason is the refusal as one clause: "203.0.113.9 is listed in
// network.deniedDomains (\"203.0.113.9\")", "127.0.0.1 is a loopback
// address".
func (r Refusal) Reason() string {
	if r.Rule == RuleDenied {
		return fmt.Sprintf("%s is named by network.deniedDomains entry %q", r.Addr, r.Entry)
	}
	return fmt.Sprintf("%s is a %s address", r.Addr, r.Class)
}

// Permit sorts the addresses a destination resolved to (or the address
// it is) into those the command may connect to and the refused ones, in
// order. It is pure. An address a deny entry names is refused; a
// loopback, private, unique-local, link-local or other non-public address
// is refused unless an allowedDomains entry lists that very address (at
// this port), or, for loopback, private and unique-local ones,
// allowLocalOutbound is on.
func (p Policy) Permit(port int, addrs []netip.Addr) (ok []netip.Addr, refused []Refusal) {
	for _, a := range addrs {
		a = a.Unmap()
		if r, bad := p.refuse(port, a); bad {
			refused = append(refused, r)
			continue
		}
		ok = append(ok, a)
	}
	return ok, refused
}

func (p Policy) refuse(port int, a netip.Addr) (Refusal, bool) {
	for _, e := range p.Deny {
		if e.portMatches(port) && e.matchesAddr(a, true) {
			return Refusal{Addr: a, Rule: RuleDenied, Entry: e.Text}, true
		}
	}
	c := ClassOf(a)
	if c == ClassPublic {
		return Refusal{}, false
	}
	for _, e := range p.Allow {
		if e.kind == kindAddr && e.portMatches(port) && e.addr == a {
			return Refusal{}, false
		}
	}
	if p.LocalOutbound && liftedByLocalOutbound(c) {
		return Refusal{}, false
	}
	return Refusal{Addr: a, Class: c, Rule: RuleLocal}, true
}
