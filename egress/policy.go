package egress

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Policy is fence's network section as egress applies it: plain values, so
// a test builds one in a line.
type Policy struct {
	Allow []Entry // network.allowedDomains
	Deny  []Entry // network.deniedDomains: wins over Allow
	// LocalOutbound is network.allowLocalOutbound (unset: the value of
	// allowLocalBinding, as fence reads it): an allowed name may reach a
	// loopback, private or unique-local address.
	LocalOutbound bool
	// LocalPorts are network.allowLocalOutboundPorts: host loopback TCP
	// ports served on the sandbox's own loopback when LocalOutbound is on.
	LocalPorts []int
	HTTPPort   int // network.httpProxyPort on the sandbox's loopback (0: DefaultHTTPPort)
	SOCKSPort  int // network.socksProxyPort (0: DefaultSOCKSPort)
	// Upstream is network.upstreamProxy: an http:// proxy that receives
	// what no list names when DefaultAction is "proxy".
	Upstream      *url.URL
	DefaultAction string // "deny" (or "") or "proxy"
	// Source is the policy file that last set the network section, for
	// the audit log and the block messages.
	Source string
}

// The proxy's ports on the sandbox's loopback when the policy names none.
// The sandbox has a network namespace of its own, so they are free.
const (
	DefaultHTTPPort  = 3128
	DefaultSOCKSPort = 1080
)

// InForce reports whether the merged policy document has a network
// section: then every sandboxed command reaches the network through the
// filtering proxy only. Without one it has no network at all.
func InForce(raw map[string]any) bool {
	_, ok := raw["network"].(map[string]any)
	return ok
}

// FromRaw reads the network section of the merged policy document (the
// schema has checked its shape; FromRaw checks every entry again, so a
// deny entry that would match nothing is an error, never a silent
// allow). source names the file that set it.
func FromRaw(raw map[string]any, source string) (Policy, error) {
	sec, _ := raw["network"].(map[string]any)
	p := Policy{Source: source}
	var errs []error
	for _, l := range []struct {
		key string
		dst *[]Entry
	}{{"allowedDomains", &p.Allow}, {"deniedDomains", &p.Deny}} {
		for _, s := range strs(sec[l.key]) {
			e, err := ParseEntry(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("network.%s: %w", l.key, err))
				continue
			}
			*l.dst = append(*l.dst, e)
		}
	}
	binding, _ := sec["allowLocalBinding"].(bool)
	p.LocalOutbound = binding
	if v, ok := sec["allowLocalOutbound"].(bool); ok {
		p.LocalOutbound = v
	}
	for _, v := range anys(sec["allowLocalOutboundPorts"]) {
		if n, ok := v.(float64); ok && n >= 1 && n <= 65535 && n == float64(int(n)) && !slices.Contains(p.LocalPorts, int(n)) {
			p.LocalPorts = append(p.LocalPorts, int(n))
		}
	}
	p.HTTPPort, p.SOCKSPort = port(sec["httpProxyPort"]), port(sec["socksProxyPort"])
	p.DefaultAction, _ = sec["defaultAction"].(string)
	if u, _ := sec["upstreamProxy"].(string); u != "" {
		up, err := ParseUpstream(u)
		if err != nil {
			errs = append(errs, fmt.Errorf("network.upstreamProxy: %w", err))
		}
		p.Upstream = up
	}
	if p.DefaultAction == "proxy" && p.Upstream == nil {
		errs = append(errs, errors.New("network.defaultAction \"proxy\" needs network.upstreamProxy"))
	}
	if err := p.checkPorts(); err != nil {
		errs = append(errs, err)
	}
	return p, errors.Join(errs...)
}

// ParseUpstream accepts fence's upstream proxy form: http://host:port.
func ParseUpstream(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		return nil, fmt.Errorf("%q has no scheme: write http://host:port", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	if strings.ToLower(u.Scheme) != "http" {
		return nil, fmt.Errorf("%q: only http:// upstream proxies are supported, as in fence", s)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host", s)
	}
	return u, nil
}

// Ports are the loopback ports the proxy listens on inside the sandbox.
func (p Policy) Ports() (httpPort, socksPort int) {
	return cmpOr(p.HTTPPort, DefaultHTTPPort), cmpOr(p.SOCKSPort, DefaultSOCKSPort)
}

// BridgedPorts are the host loopback ports served inside the sandbox:
// allowLocalOutboundPorts, when allowLocalOutbound is on.
func (p Policy) BridgedPorts() []int {
	if !p.LocalOutbound {
		return nil
	}
	return p.LocalPorts
}

// checkPorts refuses two listeners on one port of the sandbox's loopback.
func (p Policy) checkPorts() error {
	h, s := p.Ports()
	if h == s {
		return fmt.Errorf("network.httpProxyPort and socksProxyPort are both %d", h)
	}
	for _, b := range p.BridgedPorts() {
		if b == h || b == s {
			return fmt.Errorf("network.allowLocalOutboundPorts lists %d, the proxy's own port inside the sandbox (set httpProxyPort or socksProxyPort to another)", b)
		}
	}
	return nil
}

func strs(v any) []string {
	var out []string
	for _, x := range anys(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anys(v any) []any {
	l, _ := v.([]any)
	return l
}

func port(v any) int {
	n, _ := v.(float64)
	if n < 1 || n > 65535 || n != float64(int(n)) {
		return 0
	}
	return int(n)
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
