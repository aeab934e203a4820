package egress

import (
	"net/netip"
	"strconv"
	"strings"
)

// Listener is one loopback address opened inside the sandbox's network
// namespace and served by picket outside it.
type Listener struct {
	Addr string // "127.0.0.1:3128", "[::1]:5432"
	Kind string // "http", "socks" or "bridge"
	Port int    // for a bridge, the host loopback port it reaches
}

// Listeners are the addresses the sandbox opens for p, in a fixed order:
// the HTTP proxy, the SOCKS5 proxy, then each bridged port on 127.0.0.1
// and ::1.
func (p Policy) Listeners() []Listener {
	h, s := p.Ports()
	out := []Listener{
		{Addr: loopback4(h), Kind: "http"},
		{Addr: loopback4(s), Kind: "socks"},
	}
	for _, b := range p.BridgedPorts() {
		out = append(out,
			Listener{Addr: loopback4(b), Kind: "bridge", Port: b},
			Listener{Addr: netip.AddrPortFrom(netip.IPv6Loopback(), uint16(b)).String(), Kind: "bridge", Port: b})
	}
	return out
}

func loopback4(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// proxyVars are the variables ProxyEnv sets, and takes out of the
// environment first in any case: C's getenv returns the first of two
// entries, so a host's own proxy setting must not stay beside picket's.
var proxyVars = []string{"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy",
	"npm_config_proxy", "npm_config_https_proxy", "npm_config_noproxy", "npm_config_no_proxy"}

// NoProxy is the sandbox's NO_PROXY: its own loopback, where a command's
// test servers and the bridged ports are.
const NoProxy = "localhost,127.0.0.1,::1"

// ProxyEnv returns env with the proxy variables pointing at p's listeners
// inside the sandbox, and any the host had taken out:
//
//   - HTTP_PROXY and HTTPS_PROXY (and lower case): http://127.0.0.1:3128,
//     which curl, git, npm, pip, Go, Python's urllib and most HTTP
//     libraries read (curl and git read only the lower-case http_proxy);
//   - ALL_PROXY (and lower case): socks5h://127.0.0.1:1080, names
//     resolved by the proxy;
//   - NO_PROXY (and lower case): the sandbox's own loopback;
//   - NODE_USE_ENV_PROXY=1: Node.js 24 and later then send fetch and
//     http requests through the variables above (older Node.js ignores
//     it, and its programs get no network unless they read them).
func (p Policy) ProxyEnv(env []string) []string {
	out := make([]string, 0, len(env)+12)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isProxyVar(name) || name == "NODE_USE_ENV_PROXY" {
			continue
		}
		out = append(out, kv)
	}
	h, s := p.Ports()
	httpURL := "http://" + loopback4(h)
	socksURL := "socks5h://" + loopback4(s)
	for _, v := range []struct{ name, value string }{
		{"http_proxy", httpURL}, {"https_proxy", httpURL}, {"all_proxy", socksURL}, {"no_proxy", NoProxy},
	} {
		out = append(out, v.name+"="+v.value, strings.ToUpper(v.name)+"="+v.value)
	}
	return append(out, "NODE_USE_ENV_PROXY=1")
}

func isProxyVar(name string) bool {
	for _, v := range proxyVars {
		if strings.EqualFold(name, v) {
			return true
		}
	}
	return false
}
