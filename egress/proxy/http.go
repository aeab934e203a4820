package proxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/picketdev/picket/egress"
)

// ServeHTTP serves the HTTP proxy on l until [Server.Close]: requests in
// absolute form ("GET http://host/path") are forwarded, and CONNECT
// opens a tunnel to any port. Each connection carries one request, decided
// on its own: the answer says "Connection: close", and clients open a new
// connection for the next.
func (s *Server) ServeHTTP(l net.Listener) error {
	return s.serve(l, s.handleHTTP)
}

// headTimeout bounds the wait for a request's head, as a server's
// ReadHeaderTimeout.
const headTimeout = 30 * time.Second

func (s *Server) handleHTTP(c net.Conn) {
	br := bufio.NewReaderSize(c, headBuffer)
	c.SetReadDeadline(time.Now().Add(headTimeout))
	h, err := readHead(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			respond(c, 400, "picket: "+err.Error()+"\n")
		}
		return
	}
	c.SetReadDeadline(time.Time{})
	r, err := parseRequest(h)
	if err != nil {
		respond(c, 400, err.Error()+"\n")
		return
	}
	if r.method == "CONNECT" {
		s.handleConnect(c, br, r)
		return
	}
	kind, n, err := framing(r)
	if err != nil {
		respond(c, 400, "picket: "+err.Error()+"\n")
		return
	}
	h2, port, err := splitHostPort(r.url.Host, 80)
	if err != nil {
		respond(c, 400, "picket: "+err.Error()+"\n")
		return
	}
	rt, d, ok := s.decide(s.ctx, "http", h2, port)
	if !ok {
		refuse(c, d)
		return
	}
	s.forward(c, br, r, kind, n, rt)
}

// refuse answers a request the policy refused: 403 with a body saying
// why and what to change; 502 when the host could not be reached.
func refuse(c net.Conn, d Decision) {
	code := 403
	if d.Outcome == "error" {
		code = 502
	}
	respond(c, code, body(d, d.fix))
}

// reasons are the status lines picket itself answers with.
var reasons = map[int]string{400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}

// respond sends picket's own answer, a plain text, and ends the
// connection. What the client still sends (a body it was not asked to
// hold back) is read and dropped for a moment first, so closing does not
// reset the connection before the client has read the answer.
func respond(c net.Conn, code int, text string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", code, reasons[code], len(text), text)
	if cw, ok := raw(c).(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		c.SetReadDeadline(time.Now().Add(time.Second))
		io.CopyN(io.Discard, c, 256<<10)
	}
}

// forward sends r along rt, on a connection of its own (so the address it
// reaches is the one its decision checked): its head rewritten (see
// [request.outgoing]), then its body as [framing] read it (kind, n bytes
// for bodyLength), and the answer as it comes, moved by splice(2) like a
// tunnel's.
func (s *Server) forward(client net.Conn, cbr *bufio.Reader, r request, kind bodyKind, n int64, rt route) {
	var target net.Conn
	var d Decision
	var err error
	auth := ""
	if rt.upstream {
		// The upstream proxy takes the request as it is; it is audited
		// once, here, with the proxy's address.
		d = rt.d
		s.audit(d)
		target, err = s.dialProxy(s.ctx)
		auth = upstreamAuth(s.o.Policy.Upstream)
	} else {
		target, d, err = s.dial(s.ctx, rt)
	}
	if err != nil {
		d.Outcome, d.Reason = "error", joinReason(d.Reason, err.Error())
		refuse(client, d)
		return
	}
	defer target.Close()
	if _, err := target.Write(r.outgoing(rt.upstream, auth)); err != nil {
		d.Outcome, d.Reason = "error", "failed to send the request: "+err.Error()
		refuse(client, d)
		return
	}
	up := make(chan struct{})
	go func() {
		defer close(up)
		if sendBody(target, client, cbr, kind, n) != nil {
			target.Close() // the answer to half a request is no answer
		}
	}()
	defer func() { client.Close(); target.Close(); <-up }()
	tbr := bufio.NewReaderSize(target, headBuffer)
	for {
		h, err := readHead(tbr)
		if err != nil {
			d.Outcome, d.Reason = "error", "no answer from "+d.Host.HostPort(d.Port)+": "+err.Error()
			refuse(client, d)
			return
		}
		code, err := status(h)
		if err != nil {
			d.Outcome, d.Reason = "error", err.Error()
			refuse(client, d)
			return
		}
		if _, err := client.Write(incoming(h, code)); err != nil {
			return
		}
		if code >= 200 || code == 101 {
			break // 100 Continue and 103 Early Hints come before the answer
		}
	}
	if flush(client, tbr) == nil {
		io.Copy(raw(client), raw(target))
	}
}

// flush writes what br took from its connection beyond the head to w.
func flush(w io.Writer, br *bufio.Reader) error {
	n := br.Buffered()
	if n == 0 {
		return nil
	}
	b, _ := br.Peek(n)
	_, err := w.Write(b)
	br.Discard(n)
	return err
}

// handleConnect opens a tunnel: decided, dialed, then "200" and the bytes
// both ways.
func (s *Server) handleConnect(client net.Conn, br *bufio.Reader, r request) {
	h, port, err := splitHostPort(r.target, 0)
	if err != nil {
		respond(client, 400, "picket: "+err.Error()+"\n")
		return
	}
	rt, d, ok := s.decide(s.ctx, "connect", h, port)
	if !ok {
		refuse(client, d)
		return
	}
	target, d, err := s.dial(s.ctx, rt)
	if err != nil {
		d.Outcome = "error"
		if isUpstreamRefusal(err) {
			d.Outcome = "block" // as fence: the upstream's no is a 403
		}
		refuse(client, d)
		return
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		target.Close()
		return
	}
	// What the client sent after its CONNECT (a TLS ClientHello, often)
	// is in the reader's buffer: it goes first.
	if err := flush(target, br); err != nil {
		target.Close()
		return
	}
	pipe(client, target)
}

// splitHostPort reads "host:port" as a client gave it; with def set, the
// port may be left out ("example.com", "[2001:db8::1]").
func splitHostPort(hostport string, def int) (egress.Host, int, error) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		if def == 0 {
			return egress.Host{}, 0, fmt.Errorf("%q is not host:port", hostport)
		}
		host, p = hostport, ""
	}
	port := def
	if p != "" || def == 0 {
		if port, err = egress.ParsePort(p); err != nil {
			return egress.Host{}, 0, err
		}
	}
	h, err := egress.ParseHost(host)
	if err != nil {
		return egress.Host{}, 0, err
	}
	return h, port, nil
}

// dialProxy connects to the upstream proxy.
func (s *Server) dialProxy(ctx context.Context) (net.Conn, error) {
	up := s.o.Policy.Upstream
	addr := up.Host
	if up.Port() == "" {
		addr = net.JoinHostPort(up.Hostname(), "80")
	}
	d := net.Dialer{Timeout: s.o.DialTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	return c, nil
}

// upstreamAuth is the Proxy-Authorization the upstream proxy's URL
// carries, or "".
func upstreamAuth(up *url.URL) string {
	if up.User == nil {
		return ""
	}
	pw, _ := up.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(up.User.Username()+":"+pw))
}

// dialUpstream opens a tunnel to hostport through the upstream proxy:
// CONNECT, and a 2xx answer. Any other answer is the upstream's refusal.
func (s *Server) dialUpstream(ctx context.Context, hostport string) (net.Conn, error) {
	c, err := s.dialProxy(ctx)
	if err != nil {
		return nil, err
	}
	addr := c.RemoteAddr().String()
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if auth := upstreamAuth(s.o.Policy.Upstream); auth != "" {
		req += "Proxy-Authorization: " + auth + "\r\n"
	}
	c.SetDeadline(time.Now().Add(s.o.DialTimeout))
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		c.Close()
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	br := bufio.NewReaderSize(c, headBuffer)
	h, err := readHead(br)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	code, err := status(h)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	if code/100 != 2 {
		c.Close()
		_, reason, _ := strings.Cut(h.line, " ")
		return nil, &upstreamRefusal{status: reason}
	}
	c.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// upstreamRefusal is the upstream proxy answering CONNECT with other than
// 2xx: the client gets a 403, as in fence.
type upstreamRefusal struct{ status string }

func (e *upstreamRefusal) Error() string { return "the upstream proxy refused: " + e.status }

func isUpstreamRefusal(err error) bool {
	var u *upstreamRefusal
	return errors.As(err, &u)
}

// bufferedConn reads what a bufio.Reader already took from the
// connection first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
