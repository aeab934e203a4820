package proxy

import (
	"net"
	"net/netip"

	"github.com/picketdev/picket/egress"
)

// localhost is the host a bridged connection is judged and audited as.
var localhost = egress.Host{Name: "localhost"}

// ServeBridge serves network.allowLocalOutboundPorts: a connection to
// port on the sandbox's own loopback goes on to the host's loopback at
// that port (127.0.0.1, else [::1]), as fence bridges it. Every one is
// audited, and a deniedDomains entry naming localhost (at that port)
// still refuses it.
func (s *Server) ServeBridge(l net.Listener, port int) error {
	return s.serve(l, func(c net.Conn) { s.bridge(c, port) })
}

func (s *Server) bridge(c net.Conn, port int) {
	d := Decision{Via: "bridge", Host: localhost, Port: port}
	if v := s.o.Policy.Judge(localhost, port); v.Outcome == egress.Denied {
		d.Rule, d.Entry = v.Rule, v.Entry
		d.Reason = "network.deniedDomains entry " + v.Entry + " names localhost"
		s.block(d)
		return
	}
	d.Rule = "network.allowLocalOutboundPorts"
	rt := route{addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}, d: d}
	target, _, err := s.dial(s.ctx, rt)
	if err != nil {
		return
	}
	pipe(c, target)
}
