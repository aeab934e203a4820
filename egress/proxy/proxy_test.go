package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/picketdev/picket/egress"
)

// hosts is a resolver over a fixed table.
type hosts map[string][]string

func (h hosts) LookupNetIP(_ context.Context, _, name string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range h[name] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
	}
	return out, nil
}

// recorder keeps the decisions a server audits.
type recorder struct {
	mu sync.Mutex
	ds []Decision
}

func (r *recorder) add(d Decision) {
	r.mu.Lock()
	r.ds = append(r.ds, d)
	r.mu.Unlock()
}

func (r *recorder) all() []Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ds)
}

func (r *recorder) last(t *testing.T) Decision {
	t.Helper()
	ds := r.all()
	if len(ds) == 0 {
		t.Fatal("no decision was audited")
	}
	return ds[len(ds)-1]
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a proxy on loopback listeners with a table resolver.
type harness struct {
	s                 *Server
	httpURL           *url.URL
	socksAddr         string
	rec               *recorder
	notice            *syncBuffer
	originPort        int // an HTTP server on 127.0.0.1
	tlsPort           int // a TLS server on 127.0.0.1
	origin, tlsOrigin *httptest.Server
}

func policy(t testing.TB, allow, deny []string, local bool) egress.Policy {
	return egress.Policy{Allow: entries(t, allow...), Deny: entries(t, deny...), LocalOutbound: local}
}

func entries(t testing.TB, ss ...string) []egress.Entry {
	t.Helper()
	var out []egress.Entry
	for _, s := range ss {
		e, err := egress.ParseEntry(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func newHarness(t testing.TB, p egress.Policy, person Person, table Resolver) *harness {
	t.Helper()
	h := &harness{rec: &recorder{}, notice: &syncBuffer{}}
	h.origin = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin saw %s %s host=%s auth=%q", r.Method, r.URL.Path, r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(h.origin.Close)
	h.tlsOrigin = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls origin saw %s", r.Host)
	}))
	t.Cleanup(h.tlsOrigin.Close)
	h.originPort = portOf(t, h.origin.Listener.Addr())
	h.tlsPort = portOf(t, h.tlsOrigin.Listener.Addr())
	h.s = New(Options{Policy: p, Resolver: table, Person: person, Audit: h.rec.add, Notice: h.notice,
		PolicyFile: "/p/fence.jsonc", BatchAfter: 3, DialTimeout: 2 * time.Second})
	t.Cleanup(func() { h.s.Close() })
	hl := listen(t)
	sl := listen(t)
	go h.s.ServeHTTP(hl)
	go h.s.ServeSOCKS(sl)
	h.httpURL = &url.URL{Scheme: "http", Host: hl.Addr().String()}
	h.socksAddr = sl.Addr().String()
	return h
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func portOf(t testing.TB, a net.Addr) int {
	t.Helper()
	return a.(*net.TCPAddr).Port
}

// client is an HTTP client that goes through the harness's HTTP proxy.
func (h *harness) client() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(h.httpURL),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
}

func (h *harness) get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := h.client().Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// socks connects through the SOCKS5 proxy to host:port (a name sent as
// such) and returns the reply code and, on success, the connection.
func (h *harness) socks(t *testing.T, host string, port int) (byte, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", h.socksAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req := []byte{5, 1, 0, 5, 1, 0}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		b := a.As4()
		req = append(append(req, 1), b[:]...)
	} else {
		req = append(append(req, 3, byte(len(host))), host...)
	}
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	c.Write(req)
	br := bufio.NewReader(c)
	greet := make([]byte, 2)
	if _, err := io.ReadFull(br, greet); err != nil || greet[1] != 0 {
		t.Fatalf("SOCKS greeting = %v, %v", greet, err)
	}
	rep := make([]byte, 10)
	if _, err := io.ReadFull(br, rep); err != nil {
		c.Close()
		return 0xff, nil
	}
	if rep[1] != 0 {
		c.Close()
		return rep[1], nil
	}
	c.SetDeadline(time.Time{})
	return 0, c
}

func TestHTTPAndConnect(t *testing.T) {
	table := hosts{"allowed.test": {"127.0.0.1"}, "www.wild.test": {"127.0.0.1"}, "bad.wild.test": {"127.0.0.1"}, "other.test": {"127.0.0.1"}}
	h := newHarness(t, policy(t, []string{"allowed.test", "*.wild.test"}, []string{"bad.wild.test"}, true), nil, table)

	code, body := h.get(t, fmt.Sprintf("http://allowed.test:%d/x", h.originPort))
	if code != 200 || !strings.Contains(body, "origin saw GET /x host=allowed.test:") || !strings.Contains(body, `auth=""`) {
		t.Errorf("GET allowed.test = %d %q", code, body)
	}
	d := h.rec.last(t)
	if d.Outcome != "allow" || d.Via != "http" || d.Rule != egress.RuleAllowed || d.Entry != "allowed.test" || d.Addr.String() != "127.0.0.1:"+strconv.Itoa(h.originPort) {
		t.Errorf("audited %+v", d)
	}
	code, body = h.get(t, fmt.Sprintf("https://www.wild.test:%d/", h.tlsPort))
	if code != 200 || !strings.Contains(body, "tls origin saw www.wild.test") {
		t.Errorf("GET https via CONNECT = %d %q", code, body)
	}
	if d := h.rec.last(t); d.Via != "connect" || d.Entry != "*.wild.test" {
		t.Errorf("CONNECT audited %+v", d)
	}
	code, body = h.get(t, fmt.Sprintf("http://bad.wild.test:%d/", h.originPort))
	if code != 403 || !strings.Contains(body, `rule: network.deniedDomains (entry "bad.wild.test")`) {
		t.Errorf("GET denied = %d %q", code, body)
	}
	code, body = h.get(t, fmt.Sprintf("http://other.test:%d/", h.originPort))
	if code != 403 || !strings.Contains(body, `to allow it: add "other.test" to network.allowedDomains in /p/fence.jsonc`) || !strings.Contains(body, "no person can be asked") {
		t.Errorf("GET unlisted = %d %q", code, body)
	}
	// CONNECT refused: the client sees the 403, the command's stderr one
	// line, however often it retries.
	for range 3 {
		if code, msg := h.get(t, fmt.Sprintf("https://other.test:%d/", h.tlsPort)); code != 0 || !strings.Contains(msg, "Forbidden") {
			t.Errorf("CONNECT unlisted = %d %q, want a refused tunnel", code, msg)
		}
	}
	if n := strings.Count(h.notice.String(), "picket: blocked a connection to other.test:"+strconv.Itoa(h.tlsPort)); n != 1 {
		t.Errorf("stderr has %d lines about other.test's CONNECT, want 1:\n%s", n, h.notice)
	}
	// Not a proxy request.
	resp, err := http.Get(h.httpURL.String() + "/")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("origin-form request = %d, want 400", resp.StatusCode)
		}
	}
}

func TestSOCKS(t *testing.T) {
	echo := listen(t)
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	t.Cleanup(func() { echo.Close() })
	port := portOf(t, echo.Addr())
	table := hosts{"allowed.test": {"127.0.0.1"}, "other.test": {"127.0.0.1"}, "denied.test": {"127.0.0.1"}}
	h := newHarness(t, policy(t, []string{"allowed.test", "*", "127.0.0.1:" + strconv.Itoa(port)}, []string{"denied.test"}, true), nil, table)
	code, c := h.socks(t, "allowed.test", port)
	if code != 0 {
		t.Fatalf("SOCKS allowed.test = reply %d", code)
	}
	c.Write([]byte("ping"))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("echo through SOCKS = %q, %v", buf, err)
	}
	c.Close()
	if d := h.rec.last(t); d.Via != "socks" || d.Outcome != "allow" {
		t.Errorf("audited %+v", d)
	}
	if code, _ := h.socks(t, "denied.test", port); code != repNotAllowed {
		t.Errorf("SOCKS denied.test = reply %d, want %d", code, repNotAllowed)
	}
	if !strings.Contains(h.notice.String(), "picket: blocked a connection to denied.test:"+strconv.Itoa(port)+": network.deniedDomains entry \"denied.test\" names denied.test") {
		t.Errorf("stderr = %q", h.notice)
	}
	// An address is allowed only where an entry lists it ("*" does not).
	if code, c := h.socks(t, "127.0.0.1", port); code != 0 {
		t.Errorf("SOCKS 127.0.0.1 (listed with its port) = reply %d", code)
	} else {
		c.Close()
	}
	if code, _ := h.socks(t, "127.0.0.1", port+1); code != repNotAllowed {
		t.Errorf("SOCKS 127.0.0.1 at another port = reply %d, want not allowed", code)
	}
	if code, _ := h.socks(t, "nowhere.test", port); code != repHostUnreach {
		t.Errorf("SOCKS to a name that does not resolve = reply %d, want %d", code, repHostUnreach)
	}
}

// TestLocalAddresses: an allowed name that resolves to loopback, the
// metadata address or a private one is refused before anything is
// dialed; allowLocalOutbound lets loopback and private through, never
// link-local; an entry for the address itself does.
func TestLocalAddresses(t *testing.T) {
	table := hosts{"lo.test": {"127.0.0.1"}, "meta.test": {"169.254.169.254"}, "lan.test": {"10.0.0.1"}, "v6.test": {"::1"}, "mixed.test": {"169.254.169.254", "127.0.0.1"}}
	allow := []string{"lo.test", "meta.test", "lan.test", "v6.test", "mixed.test"}
	h := newHarness(t, policy(t, allow, nil, false), nil, table)
	for _, c := range []struct{ host, why string }{
		{"lo.test", "127.0.0.1 is a loopback address"}, {"meta.test", "169.254.169.254 is a link-local address"},
		{"lan.test", "10.0.0.1 is a private address"}, {"v6.test", "::1 is a loopback address"},
	} {
		code, body := h.get(t, fmt.Sprintf("http://%s:%d/", c.host, h.originPort))
		if code != 403 || !strings.Contains(body, "why: "+c.host+" resolves to "+c.why) || !strings.Contains(body, "rule: network.allowLocalOutbound") {
			t.Errorf("GET %s = %d %q", c.host, code, body)
		}
		if d := h.rec.last(t); d.Outcome != "block" || d.Addr.Addr().String() != strings.Fields(c.why)[0] {
			t.Errorf("GET %s audited %+v", c.host, d)
		}
	}
	local := newHarness(t, policy(t, append(allow, "169.254.169.254"), nil, true), nil, table)
	if code, _ := local.get(t, fmt.Sprintf("http://lo.test:%d/", local.originPort)); code != 200 {
		t.Errorf("allowLocalOutbound: GET lo.test = %d", code)
	}
	code, body := local.get(t, fmt.Sprintf("http://meta.test:%d/", local.originPort))
	if code != 502 || !strings.Contains(body, "connect failed") {
		// Listed: it is dialed (and fails here, nothing listens there in a test).
		t.Logf("GET meta.test (listed) = %d %q", code, body)
	}
	strictLocal := newHarness(t, policy(t, allow, nil, true), nil, table)
	if code, body := strictLocal.get(t, fmt.Sprintf("http://meta.test:%d/", strictLocal.originPort)); code != 403 || !strings.Contains(body, "link-local") {
		t.Errorf("allowLocalOutbound: GET meta.test = %d %q, want link-local refused", code, body)
	}
	// A name with a refused address and a permitted one reaches the
	// permitted one.
	if code, _ := strictLocal.get(t, fmt.Sprintf("http://mixed.test:%d/", strictLocal.originPort)); code != 200 {
		t.Errorf("GET mixed.test = %d, want the loopback address reached", code)
	}
	if d := strictLocal.rec.last(t); d.Addr.Addr().String() != "127.0.0.1" {
		t.Errorf("mixed.test audited %+v", d)
	}
}

// person answers from a script and counts the questions.
type person struct {
	mu      sync.Mutex
	answers []Answer
	asked   []Question
	kept    []string
	session map[egress.Host]bool
	err     error
	delay   time.Duration
}

func (p *person) Granted(h egress.Host) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session[h]
}

func (p *person) Ask(ctx context.Context, q Question) (Answer, error) {
	time.Sleep(p.delay)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, q)
	if p.err != nil {
		return AnswerDeny, p.err
	}
	if len(p.answers) == 0 {
		return AnswerDeny, errors.New("no more answers")
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return a, nil
}

func (p *person) Keep(h egress.Host, a Answer) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kept = append(p.kept, h.String()+" "+string(a))
	if p.session == nil {
		p.session = map[egress.Host]bool{}
	}
	p.session[h] = true
	return "grant-" + string(a)
}

func (p *person) questions() []Question {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked)
}

func TestPrompt(t *testing.T) {
	table := hosts{"a.test": {"127.0.0.1"}, "b.test": {"127.0.0.1"}, "c.test": {"127.0.0.1"}, "d.test": {"127.0.0.1"}, "e.test": {"127.0.0.1"}}
	p := &person{answers: []Answer{AnswerOnce, AnswerDeny, AnswerSession, AnswerAllowAllOnce}, delay: 50 * time.Millisecond}
	h := newHarness(t, policy(t, nil, nil, true), p, table)
	h.s.ask.batchAfter = 2
	// Concurrent connections to one new host wait for one answer.
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = h.get(t, fmt.Sprintf("http://a.test:%d/", h.originPort))
		}()
	}
	wg.Wait()
	if slices.ContainsFunc(codes, func(c int) bool { return c != 200 }) || len(p.questions()) != 1 {
		t.Fatalf("4 concurrent GETs of a.test: codes %v, %d questions; want 200s and 1", codes, len(p.questions()))
	}
	outcomes := map[string]int{}
	for _, d := range h.rec.all() {
		outcomes[d.Outcome]++
	}
	if outcomes["grant-once"] != 1 || outcomes["allow"] != 3 {
		t.Errorf("outcomes %v, want one grant-once and three allows", outcomes)
	}
	// "deny" holds for the command: no second question.
	for range 2 {
		if code, body := h.get(t, fmt.Sprintf("http://b.test:%d/", h.originPort)); code != 403 || !strings.Contains(body, "the person denied it") {
			t.Errorf("GET b.test = %d %q", code, body)
		}
	}
	if n := len(p.questions()); n != 2 {
		t.Errorf("%d questions after b.test twice, want 2", n)
	}
	if code, _ := h.get(t, fmt.Sprintf("http://c.test:%d/", h.originPort)); code != 200 || !slices.Equal(p.kept, []string{"c.test session"}) {
		t.Errorf("GET c.test (session) = %d, kept %v", code, p.kept)
	}
	// The third host no entry names, and not yet let through: a batch.
	if code, _ := h.get(t, fmt.Sprintf("http://d.test:%d/", h.originPort)); code != 200 {
		t.Errorf("GET d.test (allow all once) = %d", code)
	}
	qs := p.questions()
	last := qs[len(qs)-1]
	if got := fmt.Sprint(last.Batch); got != "[b.test d.test]" {
		t.Errorf("batch = %s, want [b.test d.test]", got)
	}
	// b.test was in the batch the person let through.
	if code, _ := h.get(t, fmt.Sprintf("http://b.test:%d/", h.originPort)); code != 200 {
		t.Errorf("GET b.test after allow all once = %d", code)
	}
	// A fresh command (server) with the session's grant: c.test passes
	// without a question.
	h2 := newHarness(t, policy(t, nil, nil, true), p, table)
	before := len(p.questions())
	if code, _ := h2.get(t, fmt.Sprintf("http://c.test:%d/", h2.originPort)); code != 200 || len(p.questions()) != before {
		t.Errorf("session grant: GET c.test = %d, %d new questions", code, len(p.questions())-before)
	}
	if d := h2.rec.last(t); d.Outcome != "allow" || d.Rule != egress.RuleGrant {
		t.Errorf("session-granted connection audited %+v", d)
	}
	// Nobody to ask: refused, and said once.
	gone := &person{err: errors.New("no prompt surface reaches a person")}
	h3 := newHarness(t, policy(t, nil, nil, true), gone, table)
	for range 2 {
		if code, body := h3.get(t, fmt.Sprintf("http://e.test:%d/", h3.originPort)); code != 403 || !strings.Contains(body, "no person could be asked") {
			t.Errorf("headless GET e.test = %d %q", code, body)
		}
	}
	if n := len(gone.questions()); n != 1 {
		t.Errorf("headless: %d questions, want 1 (the answer holds for the command)", n)
	}
}

func TestUpstream(t *testing.T) {
	// The upstream proxy: it answers plain requests itself and tunnels
	// CONNECT to the TLS origin, refusing "refuse.test".
	var mu sync.Mutex
	var seen []string
	var tlsAddr string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Host)
		mu.Unlock()
		if r.Method != http.MethodConnect {
			fmt.Fprintf(w, "upstream saw %s", r.URL)
			return
		}
		if strings.HasPrefix(r.Host, "refuse.test") {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		target, err := net.Dial("tcp", tlsAddr)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		c, _, _ := w.(http.Hijacker).Hijack()
		io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n")
		go func() { io.Copy(target, c); target.Close() }()
		io.Copy(c, target)
		c.Close()
	}))
	defer up.Close()
	p := policy(t, []string{"allowed.test"}, []string{"denied.test"}, true)
	p.DefaultAction = "proxy"
	p.Upstream, _ = url.Parse(up.URL)
	h := newHarness(t, p, nil, hosts{"allowed.test": {"127.0.0.1"}})
	tlsAddr = h.tlsOrigin.Listener.Addr().String()
	if code, body := h.get(t, "http://grey.test/page"); code != 200 || body != "upstream saw http://grey.test/page" {
		t.Errorf("GET grey.test = %d %q, want the upstream's answer", code, body)
	}
	if code, body := h.get(t, "https://grey.test/"); code != 200 || body != "tls origin saw grey.test" {
		t.Errorf("GET https grey.test = %d %q", code, body)
	}
	if code, _ := h.get(t, "https://refuse.test/"); code != 0 {
		t.Errorf("GET https refuse.test = %d, want the tunnel refused", code)
	}
	if code, _ := h.get(t, "http://denied.test/"); code != 403 {
		t.Errorf("GET denied.test = %d, want 403 (never forwarded)", code)
	}
	if code, _ := h.get(t, fmt.Sprintf("http://allowed.test:%d/", h.originPort)); code != 200 {
		t.Errorf("GET allowed.test = %d", code)
	}
	if code, c := h.socks(t, "grey.test", 443); code != 0 {
		t.Errorf("SOCKS grey.test = reply %d, want the upstream's tunnel", code)
	} else {
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, "denied.test") || strings.Contains(s, "allowed.test") {
			t.Errorf("the upstream saw %q: only unlisted hosts go there", s)
		}
	}
	if len(seen) < 3 {
		t.Errorf("the upstream saw %v", seen)
	}
	for _, d := range h.rec.all() {
		if d.Rule == egress.RuleDefault && d.Outcome != "allow" {
			t.Errorf("forwarded decision %+v", d)
		}
	}
}

func TestBridge(t *testing.T) {
	echo := listen(t)
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	port := portOf(t, echo.Addr())
	h := newHarness(t, policy(t, nil, nil, true), nil, nil)
	bl := listen(t)
	go h.s.ServeBridge(bl, port)
	c, err := net.Dial("tcp", bl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	b := make([]byte, 1)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("bridge echo: %v", err)
	}
	c.Close()
	if d := h.rec.last(t); d.Via != "bridge" || d.Addr.String() != "127.0.0.1:"+strconv.Itoa(port) {
		t.Errorf("bridge audited %+v", d)
	}
	denied := newHarness(t, policy(t, nil, []string{"localhost"}, true), nil, nil)
	bl2 := listen(t)
	go denied.s.ServeBridge(bl2, port)
	c2, err := net.Dial("tcp", bl2.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c2.Read(b); err == nil {
		t.Errorf("a bridge to a denied localhost carried data")
	}
	c2.Close()
}

func TestClose(t *testing.T) {
	p := &person{delay: time.Hour}
	h := newHarness(t, policy(t, nil, nil, true), p, hosts{"slow.test": {"127.0.0.1"}})
	done := make(chan int)
	go func() {
		code, _ := h.get(t, fmt.Sprintf("http://slow.test:%d/", h.originPort))
		done <- code
	}()
	time.Sleep(100 * time.Millisecond)
	h.s.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a request waiting on a prompt outlived Close")
	}
}

// rebinding answers a name with its first address the first time and its
// second after that, as a DNS server that rebinds a name does.
type rebinding struct {
	mu    sync.Mutex
	calls int
	addrs [2]string
}

func (r *rebinding) LookupNetIP(_ context.Context, _, _ string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	return []netip.Addr{netip.MustParseAddr(r.addrs[min(r.calls-1, 1)])}, nil
}

// TestOneLookup: the proxy looks a name up once per connection and dials
// the address it judged, so a name that changes its answer between the
// check and the dial cannot move the connection: here the second answer
// is a loopback address where nothing listens.
func TestOneLookup(t *testing.T) {
	r := &rebinding{addrs: [2]string{"127.0.0.1", "127.0.0.2"}}
	h := newHarness(t, policy(t, []string{"moving.test"}, nil, true), nil, r)
	if code, body := h.get(t, fmt.Sprintf("http://moving.test:%d/", h.originPort)); code != 200 || !strings.Contains(body, "origin saw GET") {
		t.Errorf("GET moving.test = %d %q", code, body)
	}
	if d := h.rec.last(t); d.Addr.Addr().String() != "127.0.0.1" {
		t.Errorf("audited %+v, want the address 127.0.0.1", d)
	}
	if r.calls != 1 {
		t.Errorf("%d lookups for one connection, want 1", r.calls)
	}
	code, _ := h.socks(t, "moving.test", h.originPort)
	if r.calls != 2 || code != 5 {
		t.Errorf("SOCKS5 after the name moved: reply %d after %d lookups, want 5 (refused) after 2", code, r.calls)
	}
}
