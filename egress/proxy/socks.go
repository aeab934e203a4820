package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/picketdev/picket/egress"
)

// SOCKS5 (RFC 1928), the part the proxy serves: no authentication, and
// CONNECT only. No maintained SOCKS5 server module is on the module proxy
// this project builds from (armon/go-socks5 last changed in 2016; its
// maintained fork is not served), and CONNECT without authentication is
// two short messages, so they are parsed here and fuzzed.
const (
	socksVersion   = 5
	socksNoAuth    = 0
	socksNoMethods = 0xff
	socksConnect   = 1
	atypIPv4       = 1
	atypDomain     = 3
	atypIPv6       = 4
)

// The SOCKS5 reply codes the proxy sends.
const (
	repSucceeded      = 0
	repFailure        = 1
	repNotAllowed     = 2
	repHostUnreach    = 4
	repRefused        = 5
	repCmdUnsupported = 7
	repAtypUnsupport  = 8
)

// handshakeTimeout bounds the greeting and the request.
const handshakeTimeout = 30 * time.Second

// ServeSOCKS serves the SOCKS5 proxy on l until [Server.Close]. The
// client names the destination, by name or address; the proxy resolves
// names itself (socks5h://).
func (s *Server) ServeSOCKS(l net.Listener) error {
	return s.serve(l, s.handleSOCKS)
}

func (s *Server) handleSOCKS(c net.Conn) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReader(c)
	req, rep := readSOCKS(br, c)
	if rep >= 0 {
		writeReply(c, byte(rep), netip.AddrPort{})
		return
	}
	c.SetDeadline(time.Time{})
	rt, d, ok := s.decide(s.ctx, "socks", req.host, req.port)
	if !ok {
		code := byte(repNotAllowed)
		if d.Outcome == "error" {
			code = repHostUnreach
		}
		writeReply(c, code, netip.AddrPort{})
		return
	}
	target, _, err := s.dial(s.ctx, rt)
	if err != nil {
		code := byte(repHostUnreach)
		switch {
		case isUpstreamRefusal(err):
			code = repNotAllowed
		case errors.Is(err, syscall.ECONNREFUSED):
			code = repRefused
		}
		writeReply(c, code, netip.AddrPort{})
		return
	}
	bound, _ := netip.ParseAddrPort(target.LocalAddr().String())
	if err := writeReply(c, repSucceeded, bound); err != nil {
		target.Close()
		return
	}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := target.Write(b); err != nil {
			target.Close()
			return
		}
	}
	pipe(c, target)
}

// socksRequest is a client's CONNECT.
type socksRequest struct {
	host egress.Host
	port int
}

// readSOCKS reads the greeting, answers it, and reads the request. It
// returns the request and -1, or the reply code to refuse with (-2:
// close without a reply, the client is not speaking SOCKS5 or chose no
// method picket offers).
func readSOCKS(r io.Reader, w io.Writer) (socksRequest, int) {
	var head [2]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || head[0] != socksVersion {
		return socksRequest{}, -2
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return socksRequest{}, -2
	}
	if !containsByte(methods, socksNoAuth) {
		w.Write([]byte{socksVersion, socksNoMethods})
		return socksRequest{}, -2
	}
	if _, err := w.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return socksRequest{}, -2
	}
	var req [4]byte
	if _, err := io.ReadFull(r, req[:]); err != nil || req[0] != socksVersion {
		return socksRequest{}, -2
	}
	host, err := readAddr(r, req[3])
	if err != nil {
		if errors.Is(err, errAtyp) {
			return socksRequest{}, repAtypUnsupport
		}
		if errors.Is(err, errBadHost) {
			return socksRequest{}, repNotAllowed
		}
		return socksRequest{}, -2
	}
	var pb [2]byte
	if _, err := io.ReadFull(r, pb[:]); err != nil {
		return socksRequest{}, -2
	}
	if req[1] != socksConnect {
		return socksRequest{}, repCmdUnsupported
	}
	port := int(binary.BigEndian.Uint16(pb[:]))
	if port == 0 {
		return socksRequest{}, repNotAllowed
	}
	return socksRequest{host: host, port: port}, -1
}

var (
	errAtyp    = errors.New("address type not supported")
	errBadHost = errors.New("malformed host")
)

// readAddr reads DST.ADDR of address type atyp.
func readAddr(r io.Reader, atyp byte) (egress.Host, error) {
	var b []byte
	switch atyp {
	case atypIPv4:
		b = make([]byte, 4)
	case atypIPv6:
		b = make([]byte, 16)
	case atypDomain:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return egress.Host{}, err
		}
		b = make([]byte, n[0])
	default:
		return egress.Host{}, errAtyp
	}
	if _, err := io.ReadFull(r, b); err != nil {
		return egress.Host{}, err
	}
	if atyp != atypDomain {
		a, _ := netip.AddrFromSlice(b)
		return egress.Host{Addr: a.Unmap()}, nil
	}
	h, err := egress.ParseHost(string(b))
	if err != nil {
		return egress.Host{}, fmt.Errorf("%w: %v", errBadHost, err)
	}
	return h, nil
}

// writeReply sends a reply with the bound address (0.0.0.0:0 when there
// is none).
func writeReply(w io.Writer, code byte, bound netip.AddrPort) error {
	msg := []byte{socksVersion, code, 0}
	a := bound.Addr().Unmap()
	switch {
	case a.Is4():
		b := a.As4()
		msg = append(append(msg, atypIPv4), b[:]...)
	case a.Is6():
		b := a.As16()
		msg = append(append(msg, atypIPv6), b[:]...)
	default:
		msg = append(msg, atypIPv4, 0, 0, 0, 0)
	}
	msg = binary.BigEndian.AppendUint16(msg, bound.Port())
	_, err := w.Write(msg)
	return err
}

func containsByte(b []byte, x byte) bool {
	for _, c := range b {
		if c == x {
			return true
		}
	}
	return false
}
