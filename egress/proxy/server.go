package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/picketdev/picket/egress"
)

// Resolver looks a name up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a [Server].
type Options struct {
	Policy egress.Policy
	// Resolver resolves names; nil is Go's own resolver (it reads
	// /etc/hosts and /etc/resolv.conf itself, as the host sees them).
	Resolver Resolver
	// Person, when set, is asked about destinations no entry names; nil
	// refuses them (headless).
	Person Person
	// Audit hears of every decision, once per connection attempt.
	Audit func(Decision)
	// Notice is where a refused CONNECT or SOCKS5 client gets its one
	// line (the command's stderr); nil says nothing.
	Notice io.Writer
	// PolicyFile is the file a block message tells the person to add an
	// entry to.
	PolicyFile string
	// BatchAfter is picket.prompt.batchAfter: from this many unlisted
	// hosts in one command on, the prompt lists them all. 0 never batches.
	BatchAfter int
	// DialTimeout bounds each connection attempt; 0 is 10 s.
	DialTimeout time.Duration
}

// Decision is one connection attempt as the audit log records it.
type Decision struct {
	Via  string // "http", "connect", "socks" or "bridge"
	Host egress.Host
	Port int
	// Addr is the address connected to, or the one refused; zero when
	// the decision came before any address was known.
	Addr netip.AddrPort
	// Outcome is the audit decision: "allow", "block", "error",
	// "grant-once", "grant-session" or "grant-persist".
	Outcome  string
	Rule     string // egress.RuleDenied, RuleAllowed, RuleLocal, ...
	Entry    string // the entry that decided, as written
	Reason   string // why, for a person; set on blocks and errors
	Prompted bool   // a person was asked
	fix      string // what to change to allow it
}

// Allowed reports whether the connection went ahead.
func (d Decision) Allowed() bool {
	switch d.Outcome {
	case "allow", "grant-once", "grant-session", "grant-persist":
		return true
	}
	return false
}

// Server serves the proxy's listeners for one command.
type Server struct {
	o      Options
	ctx    context.Context
	cancel context.CancelFunc
	ask    *prompter
	notice *notices

	mu        sync.Mutex
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	closed    bool
}

// New returns a server for o. Serve its listeners with [Server.ServeHTTP],
// [Server.ServeSOCKS] and [Server.ServeBridge]; [Server.Close] ends them.
func New(o Options) *Server {
	if o.Resolver == nil {
		o.Resolver = &net.Resolver{PreferGo: true}
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{o: o, ctx: ctx, cancel: cancel, ask: newPrompter(o.Person, o.BatchAfter),
		notice: &notices{w: o.Notice, seen: map[string]bool{}}, conns: map[net.Conn]struct{}{}}
}

// Close stops every listener, cancels prompts still open and closes every
// connection: the command is over.
func (s *Server) Close() error {
	s.cancel()
	s.mu.Lock()
	s.closed = true
	ls := s.listeners
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, l := range ls {
		l.Close()
	}
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// listen registers l, to be closed by [Server.Close], and wraps it so
// every connection it accepts is closed then too. It reports false when
// the server is closed already.
func (s *Server) listen(l net.Listener) (net.Listener, bool) {
	clientListener(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		l.Close()
		return nil, false
	}
	s.listeners = append(s.listeners, l)
	return &tracked{Listener: l, s: s}, true
}

// serve accepts on l until it is closed, handling each connection in its
// own goroutine.
func (s *Server) serve(l net.Listener, handle func(net.Conn)) error {
	tl, ok := s.listen(l)
	if !ok {
		return nil
	}
	for {
		c, err := tl.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go func() {
			defer c.Close()
			handle(c)
		}()
	}
}

// tracked is a listener whose connections the server closes when it
// closes.
type tracked struct {
	net.Listener
	s *Server
}

func (t *tracked) Accept() (net.Conn, error) {
	for {
		c, err := t.Listener.Accept()
		if err != nil {
			return nil, err
		}
		s := t.s
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return nil, net.ErrClosed
		}
		tc := &trackedConn{Conn: c, s: s}
		s.conns[tc] = struct{}{}
		s.mu.Unlock()
		return tc, nil
	}
}

// trackedConn leaves the server's set when it is closed. NetConn gives the
// connection underneath, so a tunnel can splice(2) socket to socket.
type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	})
	return c.Conn.Close()
}

// NetConn returns the connection underneath.
func (c *trackedConn) NetConn() net.Conn { return c.Conn }

// audit reports d.
func (s *Server) audit(d Decision) {
	if s.o.Audit != nil {
		s.o.Audit(d)
	}
}
