package proxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/picketdev/picket/egress"
)

// ServeHTTP serves the HTTP proxy on l until [Server.Close]: requests in
// absolute form ("GET http://host/path") are forwarded, and CONNECT
// opens a tunnel to any port. Each request is decided on its own, also
// several on one kept-alive connection.
func (s *Server) ServeHTTP(l net.Listener) error {
	srv := &http.Server{
		Handler:           http.HandlerFunc(s.handleHTTP),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0), // the command's stderr is not the proxy's log
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	tl, ok := s.listen(l)
	if !ok {
		return nil
	}
	go func() {
		<-s.ctx.Done()
		srv.Close()
	}()
	err := srv.Serve(tl)
	if errors.Is(err, http.ErrServerClosed) || s.ctx.Err() != nil {
		return nil
	}
	return err
}

func (s *Server) handleHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.handleConnect(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "picket's filtering proxy takes proxy requests only: an absolute URL (GET http://host/path) or CONNECT host:port", http.StatusBadRequest)
		return
	}
	port := 0
	switch r.URL.Scheme {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		http.Error(w, fmt.Sprintf("picket's filtering proxy forwards http and https URLs, not %q", r.URL.Scheme), http.StatusBadRequest)
		return
	}
	h, port, err := splitHostPort(r.URL.Host, port)
	if err != nil {
		http.Error(w, "picket: "+err.Error(), http.StatusBadRequest)
		return
	}
	rt, d, ok := s.decide(r.Context(), "http", h, port)
	if !ok {
		refuse(w, d)
		return
	}
	s.forward(w, r, rt)
}

// refuse answers a request the policy refused: 403 with a body saying
// why and what to change; 502 when the host could not be reached.
func refuse(w http.ResponseWriter, d Decision) {
	code := http.StatusForbidden
	if d.Outcome == "error" {
		code = http.StatusBadGateway
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	io.WriteString(w, body(d, d.fix))
}

// copyBuffer is the size of the buffers a forwarded request's body and
// response pass through, for fewer system calls than net/http's 4 KB and
// the reverse proxy's 32 KB: on loopback a 200 MB proxy request went
// from a median 32% of direct throughput to 44% (BenchmarkProxy).
const copyBuffer = 256 << 10

// buffers keeps the reverse proxy's copy buffers between requests.
var buffers = &bufferPool{sync.Pool{New: func() any { return make([]byte, copyBuffer) }}}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte  { return b.p.Get().([]byte) }
func (b *bufferPool) Put(v []byte) { b.p.Put(v) }

// forward sends r along rt with the standard library's reverse proxy: it
// drops the hop-by-hop headers (Proxy-Authorization, Connection, ...) and
// adds no X-Forwarded-For. Each request gets a connection of its own, so
// the address it reaches is the one its decision checked.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, rt route) {
	var dialed Decision
	audited := false
	tr := &http.Transport{
		DisableKeepAlives:     true,
		ResponseHeaderTimeout: 0,
		ForceAttemptHTTP2:     false,
		ReadBufferSize:        copyBuffer,
		WriteBufferSize:       copyBuffer,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, d, err := s.dial(ctx, rt)
			dialed, audited = d, true
			return c, err
		},
	}
	if rt.upstream {
		// The upstream proxy takes the request as it is; it is audited
		// once, here, with the proxy's address.
		tr.DialContext = nil
		tr.Proxy = http.ProxyURL(s.o.Policy.Upstream)
		s.audit(rt.d)
		audited = true
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
		},
		Transport:  tr,
		BufferPool: buffers,
		ErrorLog:   log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			d := dialed
			if !audited {
				d = rt.d
				d.Outcome, d.Reason = "error", err.Error()
				s.audit(d)
			}
			if d.Reason == "" {
				d.Reason = err.Error()
			}
			d.Outcome = "error"
			refuse(w, d)
		},
	}
	rp.ServeHTTP(w, r)
	tr.CloseIdleConnections()
}

// handleConnect opens a tunnel: decided, dialed, then "200" and the bytes
// both ways.
func (s *Server) handleConnect(w http.ResponseWriter, r *http.Request) {
	h, port, err := splitHostPort(r.Host, 0)
	if err != nil {
		http.Error(w, "picket: "+err.Error(), http.StatusBadRequest)
		return
	}
	rt, d, ok := s.decide(r.Context(), "connect", h, port)
	if !ok {
		refuse(w, d)
		return
	}
	target, d, err := s.dial(r.Context(), rt)
	if err != nil {
		d.Outcome = "error"
		if isUpstreamRefusal(err) {
			d.Outcome = "block" // as fence: the upstream's no is a 403
		}
		refuse(w, d)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		target.Close()
		http.Error(w, "picket: cannot tunnel on this connection", http.StatusInternalServerError)
		return
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		target.Close()
		return
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		client.Close()
		target.Close()
		return
	}
	// What the client sent after its CONNECT (a TLS ClientHello, often)
	// is in the server's buffer: it goes first.
	if n := rw.Reader.Buffered(); n > 0 {
		b, _ := rw.Reader.Peek(n)
		if _, err := target.Write(b); err != nil {
			client.Close()
			target.Close()
			return
		}
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

// dialUpstream opens a tunnel to hostport through the upstream proxy:
// CONNECT, and a 2xx answer. Any other answer is the upstream's refusal.
func (s *Server) dialUpstream(ctx context.Context, hostport string) (net.Conn, error) {
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
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: hostport}, Host: hostport, Header: http.Header{}}
	if u := up.User; u != nil {
		pw, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	c.SetDeadline(time.Now().Add(s.o.DialTimeout))
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the upstream proxy %s: %w", addr, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		c.Close()
		return nil, &upstreamRefusal{status: resp.Status}
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
