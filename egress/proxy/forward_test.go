package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTPForwarding holds the plain-HTTP path to HTTP/1's framing as real
// clients and servers use it: bodies of every framing reach the origin
// whole, interim answers pass, fields for one hop stay behind, and a
// connection carries one request, so a second one written behind it never
// reaches another host.
func TestHTTPForwarding(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Host+r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no length known: chunked
		}
		fmt.Fprintf(w, "%s %s body=%q te=%v hop=%q kept=%q proto=%s", r.Method, r.URL.RequestURI(), b, r.TransferEncoding,
			r.Header.Get("X-Hop"), r.Header.Get("X-Kept"), r.Proto)
	}))
	defer origin.Close()
	port := portOf(t, origin.Listener.Addr())
	h := newHarness(t, policy(t, []string{"allowed.test"}, []string{"denied.test"}, true), nil, hosts{"allowed.test": {"127.0.0.1"}, "denied.test": {"127.0.0.1"}})
	base := fmt.Sprintf("http://allowed.test:%d", port)

	// A body of unknown length goes chunked; the answer comes back whole.
	pr, pw := io.Pipe()
	go func() { io.WriteString(pw, "part one, "); io.WriteString(pw, "part two"); pw.Close() }()
	resp, err := h.client().Post(base+"/chunked", "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `POST /chunked body="part one, part two" te=[chunked]`; !strings.HasPrefix(string(b), want) || resp.Header.Get("Connection") != "" && !resp.Close {
		t.Errorf("chunked POST = %q, want it to start %q", b, want)
	}

	// Expect: 100-continue: the origin's 100 reaches the client, then the
	// body goes.
	req, _ := http.NewRequest("PUT", base+"/put", strings.NewReader("payload"))
	req.Header.Set("Expect", "100-continue")
	tr := h.client().Transport.(*http.Transport)
	tr.ExpectContinueTimeout = 5 * time.Second
	resp, err = (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(b), `PUT /put body="payload"`) {
		t.Errorf("PUT with Expect: 100-continue = %q", b)
	}

	// Raw: HTTP/1.0, a field for this hop only, a second request behind
	// the first naming a denied host.
	c, err := net.Dial("tcp", h.httpURL.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "POST %s/raw?x=1 HTTP/1.0\r\nHost: denied.test\r\nContent-Length: 5\r\nConnection: X-Hop\r\nX-Hop: secret\r\nX-Kept: yes\r\n"+
		"Proxy-Authorization: Basic c2VjcmV0\r\n\r\nhello"+
		"GET http://denied.test:%d/second HTTP/1.1\r\nHost: denied.test\r\n\r\n", base, port)
	all, _ := io.ReadAll(c)
	got := string(all)
	if !strings.Contains(got, `POST /raw?x=1 body="hello" te=[] hop="" kept="yes" proto=HTTP/1.0`) {
		t.Errorf("raw HTTP/1.0 POST got %q", got)
	}
	if strings.Count(got, " 200 OK\r\n") != 1 || !strings.Contains(got, "Connection: close") {
		t.Errorf("one connection answered %q, want one answer and Connection: close", got)
	}
	mu.Lock()
	for _, s := range seen {
		if strings.Contains(s, "denied.test") || strings.Contains(s, "/second") {
			t.Errorf("the origin saw %q", s)
		}
	}
	mu.Unlock()
	for _, d := range h.rec.all() {
		if d.Host.Name == "denied.test" {
			t.Errorf("a request to denied.test was decided: %+v", d)
		}
	}

	// A HEAD answer has no body; the connection ends after it.
	resp, err = h.client().Head(base + "/head")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD = %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestHTTPMalformed: what is not a proxy request gets a 400 saying why,
// and nothing is decided or dialed.
func TestHTTPMalformed(t *testing.T) {
	h := newHarness(t, policy(t, []string{"allowed.test"}, nil, true), nil, hosts{"allowed.test": {"127.0.0.1"}})
	for _, tc := range []struct{ in, want string }{
		{"GET https://allowed.test/ HTTP/1.1\r\n\r\n", "CONNECT only"},
		{"GET /x HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "absolute URL"},
		{"GET http://allowed.test/ HTTP/1.1\r\nX: a\x01b\r\n\r\n", "control character"},
		{"GET http://allowed.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", "folding"},
		{"GET http://allowed.test/ HTTP/3\r\n\r\n", "HTTP/1.1 and 1.0"},
		{"CONNECT allowed.test HTTP/1.1\r\n\r\n", "not host:port"},
		{"GET http://allowed.test/ HTTP/1.1\r\nX: " + strings.Repeat("a", headBuffer) + "\r\n\r\n", "too large"},
	} {
		c, err := net.Dial("tcp", h.httpURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		go io.WriteString(c, tc.in)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%.40q: %v", tc.in, err)
			c.Close()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%.40q = %d %q, want 400 saying %q", tc.in, resp.StatusCode, b, tc.want)
		}
		c.Close()
	}
	if ds := h.rec.all(); len(ds) != 0 {
		t.Errorf("decided %+v", ds)
	}
}

// TestUpstreamAuth: the upstream proxy's credentials (from its URL) go
// with every request and tunnel forwarded to it, the client's own never.
func TestUpstreamAuth(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Method+" "+r.Header.Get("Proxy-Authorization"))
		mu.Unlock()
		if r.Method == http.MethodConnect {
			http.Error(w, "no tunnels here", http.StatusForbidden)
			return
		}
		fmt.Fprintf(w, "upstream saw %s", r.URL)
	}))
	defer up.Close()
	p := policy(t, nil, nil, true)
	p.DefaultAction = "proxy"
	p.Upstream, _ = url.Parse(strings.Replace(up.URL, "http://", "http://me:pw@", 1))
	h := newHarness(t, p, nil, hosts{})
	c, err := net.Dial("tcp", h.httpURL.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET http://grey.test/p HTTP/1.1\r\nHost: grey.test\r\nProxy-Authorization: Basic Y2xpZW50\r\n\r\n")
	all, _ := io.ReadAll(c)
	if !strings.Contains(string(all), "upstream saw http://grey.test/p") {
		t.Errorf("GET through the upstream = %q", all)
	}
	if code, _ := h.get(t, "https://grey.test/"); code != 0 {
		t.Errorf("CONNECT refused by the upstream = %d, want the tunnel refused", code)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"GET Basic bWU6cHc=", "CONNECT Basic bWU6cHc="}
	if strings.Join(auths, "|") != strings.Join(want, "|") {
		t.Errorf("the upstream saw %q, want %q", auths, want)
	}
}

// TestHTTPBodyFraming: the host a request was decided for gets that
// request's head and body as framed and not one byte more, even when the
// client writes a second request behind it and the host would read on
// (this origin reads everything until the line goes quiet); a framing
// picket cannot read exactly is refused before anything is decided.
func TestHTTPBodyFraming(t *testing.T) {
	origin := listen(t)
	defer origin.Close()
	got := make(chan string, 8)
	go func() {
		for {
			c, err := origin.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var all []byte
				buf := make([]byte, 4096)
				for {
					c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
					n, err := c.Read(buf)
					all = append(all, buf[:n]...)
					if err != nil {
						break
					}
				}
				got <- string(all)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	port := portOf(t, origin.Addr())
	h := newHarness(t, policy(t, []string{"allowed.test"}, nil, true), nil, hosts{"allowed.test": {"127.0.0.1"}, "other.test": {"127.0.0.1"}})
	second := fmt.Sprintf("GET http://other.test:%d/second HTTP/1.1\r\nHost: other.test\r\n\r\n", port)
	for _, tc := range []struct{ req, want string }{
		{fmt.Sprintf("POST http://allowed.test:%d/a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", port),
			fmt.Sprintf("POST /a HTTP/1.1\r\nHost: allowed.test:%d\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", port)},
		{fmt.Sprintf("POST http://allowed.test:%d/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", port),
			fmt.Sprintf("POST /c HTTP/1.1\r\nHost: allowed.test:%d\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n", port)},
		{fmt.Sprintf("GET http://allowed.test:%d/g HTTP/1.1\r\n\r\n", port),
			fmt.Sprintf("GET /g HTTP/1.1\r\nHost: allowed.test:%d\r\nConnection: close\r\n\r\n", port)},
	} {
		c, err := net.Dial("tcp", h.httpURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, tc.req+second)
		answer, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasSuffix(string(answer), "\r\n\r\nok") {
			t.Errorf("%.40q: answer %q", tc.req, answer)
		}
		if s := <-got; s != tc.want {
			t.Errorf("%.40q: the origin got\n%q\nwant\n%q", tc.req, s, tc.want)
		}
	}
	for _, bad := range []string{
		"POST http://allowed.test/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
	} {
		c, err := net.Dial("tcp", h.httpURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, bad)
		answer, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(answer), "HTTP/1.1 400 ") {
			t.Errorf("%q: answer %q, want a 400", bad, answer)
		}
	}
	for _, d := range h.rec.all() {
		if d.Host.Name == "other.test" {
			t.Errorf("the pipelined request was decided: %+v", d)
		}
	}
	select {
	case s := <-got:
		t.Errorf("the origin got a connection it should not have: %q", s)
	default:
	}
}
