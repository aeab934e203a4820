package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/picketdev/picket/egress"
)

// route is where a decided connection goes: one of addrs, in order, or
// the upstream proxy.
type route struct {
	addrs    []netip.Addr
	upstream bool
	d        Decision // the decision so far; dial fills in the address
}

// resolveTimeout bounds a name's lookup.
const resolveTimeout = 10 * time.Second

// decide judges a connection to h at port: the lists, then the addresses
// the name resolves to, then, for a host no entry names, a session grant
// or a person. A refusal is audited here; a route is audited by dial,
// once the address connected to is known.
func (s *Server) decide(ctx context.Context, via string, h egress.Host, port int) (route, Decision, bool) {
	p := s.o.Policy
	d := Decision{Via: via, Host: h, Port: port}
	v := p.Judge(h, port)
	d.Rule, d.Entry = v.Rule, v.Entry
	switch {
	case v.Outcome == egress.Denied:
		d.Reason = fmt.Sprintf("network.deniedDomains entry %q names %s", v.Entry, h)
		d.fix = denyFix(v.Entry, p.Source)
		return s.block(d)
	case v.Outcome == egress.Unlisted && p.DefaultAction == "proxy" && p.Upstream != nil:
		d.Rule, d.Outcome = egress.RuleDefault, "allow"
		d.Reason = "no entry names it: forwarded to network.upstreamProxy " + p.Upstream.Host
		return route{upstream: true, d: d}, d, true
	}
	granted := ""
	if v.Outcome == egress.Unlisted {
		if granted = s.ask.granted(h); granted == "" && s.o.Person == nil {
			d.Reason = fmt.Sprintf("no network.allowedDomains entry names %s, and no person can be asked here", h)
			d.fix = s.addFix(h)
			return s.block(d)
		}
	}
	ok, d, good := s.addresses(ctx, d)
	if !good {
		return route{}, d, false
	}
	if v.Outcome == egress.Unlisted {
		if d, good = s.grant(ctx, d, ok, granted); !good {
			return s.block(d)
		}
	}
	return route{addrs: ok, d: d}, d, true
}

// addresses resolves d's host and keeps the addresses the policy permits.
// When none is left, the refusal is audited and good is false.
func (s *Server) addresses(ctx context.Context, d Decision) (ok []netip.Addr, _ Decision, good bool) {
	addrs, err := s.lookup(ctx, d.Host)
	if err != nil {
		d.Outcome, d.Reason = "error", err.Error()
		s.audit(d)
		s.notice.say(d, "")
		return nil, d, false
	}
	ok, refused := s.o.Policy.Permit(d.Port, addrs)
	if len(ok) == 0 {
		r := refused[0]
		d.Addr, d.Rule, d.Entry = netip.AddrPortFrom(r.Addr, uint16(d.Port)), r.Rule, r.Entry
		d.Reason = refusalReason(d.Host, r)
		d.fix = s.localFix(r, d.Port)
		_, d, _ = s.block(d)
		return nil, d, false
	}
	return ok, d, true
}

// grant lets a host no entry names through when granted says why (an
// earlier answer, a session grant) or the person says so; good is false
// when it stays refused.
func (s *Server) grant(ctx context.Context, d Decision, addrs []netip.Addr, granted string) (Decision, bool) {
	if granted != "" {
		d.Rule, d.Reason = egress.RuleGrant, granted
		return d, true
	}
	a := s.ask.ask(ctx, Question{Via: d.Via, Host: d.Host, Port: d.Port, Addrs: addrs})
	d.Rule, d.Outcome, d.Prompted = egress.RuleGrant, a.outcome, a.prompted
	if !a.allow {
		d.Rule, d.Reason = egress.RuleAllowed, a.reason
		d.fix = s.addFix(d.Host)
	}
	return d, a.allow
}

// lookup returns the addresses of h: the address itself, or what the
// resolver says of the name.
func (s *Server) lookup(ctx context.Context, h egress.Host) ([]netip.Addr, error) {
	if h.IsAddr() {
		return []netip.Addr{h.Addr}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := s.o.Resolver.LookupNetIP(ctx, "ip", h.Name)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, fmt.Errorf("%s does not resolve", h)
		}
		return nil, fmt.Errorf("failed to resolve %s: %w", h, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", h)
	}
	return addrs, nil
}

// dial connects r: to its addresses in order, or through the upstream
// proxy, and audits the decision with the address it reached.
func (s *Server) dial(ctx context.Context, r route) (net.Conn, Decision, error) {
	d := r.d
	if d.Outcome == "" {
		d.Outcome = "allow"
	}
	var c net.Conn
	var err error
	if r.upstream {
		c, err = s.dialUpstream(ctx, d.Host.HostPort(d.Port))
		if err == nil {
			d.Addr, _ = netip.ParseAddrPort(c.RemoteAddr().String())
		}
	} else {
		dialer := net.Dialer{Timeout: s.o.DialTimeout}
		for _, a := range r.addrs {
			d.Addr = netip.AddrPortFrom(a, uint16(d.Port))
			if c, err = dialer.DialContext(ctx, "tcp", d.Addr.String()); err == nil {
				break
			}
		}
	}
	if err != nil {
		d.Reason = joinReason(d.Reason, "connect failed: "+err.Error())
	}
	s.audit(d)
	if err != nil {
		s.notice.say(Decision{Host: d.Host, Port: d.Port, Outcome: "error", Reason: d.Reason}, "")
	}
	return c, d, err
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// block audits a refusal and says it once on the command's stderr.
func (s *Server) block(d Decision) (route, Decision, bool) {
	d.Outcome = "block"
	s.audit(d)
	s.notice.say(d, d.fix)
	return route{}, d, false
}

func refusalReason(h egress.Host, r egress.Refusal) string {
	if h.IsAddr() {
		return r.Reason()
	}
	return fmt.Sprintf("%s resolves to %s", h, r.Reason())
}

// addFix is what to add to allow h.
func (s *Server) addFix(h egress.Host) string {
	return fmt.Sprintf("add %q to network.allowedDomains%s", egress.EntryFor(h), s.where(s.o.PolicyFile))
}

// localFix is what to change to reach a refused address.
func (s *Server) localFix(r egress.Refusal, port int) string {
	if r.Rule == egress.RuleDenied {
		return denyFix(r.Entry, s.o.Policy.Source)
	}
	entry := r.Addr.String()
	if r.Addr.Is6() {
		entry = "[" + entry + "]"
	}
	entry += ":" + strconv.Itoa(port)
	fix := fmt.Sprintf("add %q to network.allowedDomains%s", entry, s.where(s.o.PolicyFile))
	switch r.Class {
	case egress.ClassLoopback, egress.ClassPrivate, egress.ClassUniqueLocal:
		fix += ", or set network.allowLocalOutbound"
	}
	return fix
}

// denyFix says that a deny entry is final: no allow entry and no prompt
// lifts it.
func denyFix(entry, source string) string {
	fix := fmt.Sprintf("take %q out of network.deniedDomains", entry)
	if source != "" {
		fix += " (the network section of " + source + ")"
	}
	return fix + "; a deny entry outranks every allow entry and prompt"
}

func (s *Server) where(file string) string {
	if file == "" {
		return ""
	}
	return " in " + file
}
