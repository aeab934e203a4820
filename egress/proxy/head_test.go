package proxy

import (
	"bufio"
	"strings"
	"testing"
)

func readHeadString(s string) (head, error) {
	return readHead(bufio.NewReaderSize(strings.NewReader(s), headBuffer))
}

func TestReadHead(t *testing.T) {
	for _, tc := range []struct {
		in      string
		line    string
		fields  int
		wantErr string
	}{
		{in: "GET http://a/ HTTP/1.1\r\nHost: a\r\nX-A:  1 \r\n\r\nbody", line: "GET http://a/ HTTP/1.1", fields: 2},
		{in: "GET http://a/ HTTP/1.1\nHost: a\n\n", line: "GET http://a/ HTTP/1.1", fields: 1},
		{in: "\r\nGET http://a/ HTTP/1.1\r\n\r\n", line: "GET http://a/ HTTP/1.1"},
		{in: "", wantErr: "EOF"},
		{in: "GET http://a/ HTTP/1.1\r\nHost: a\r\n", wantErr: "cut short"},
		{in: "GET http://a/ HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", wantErr: "folding"},
		{in: "GET http://a/ HTTP/1.1\r\nNo colon\r\n\r\n", wantErr: "malformed header"},
		{in: "GET http://a/ HTTP/1.1\r\nBad Name: x\r\n\r\n", wantErr: "malformed header"},
		{in: "GET http://a/ HTTP/1.1\r\n: x\r\n\r\n", wantErr: "malformed header"},
		{in: "GET http://a/ HTTP/1.1\r\nX: a\rb\r\n\r\n", wantErr: "control character"},
		{in: "GET http://a/ HTTP/1.1\r\nX: a\x00b\r\n\r\n", wantErr: "control character"},
		{in: "GET http://a/ HTTP/1.1\r\nX: " + strings.Repeat("a", headBuffer) + "\r\n\r\n", wantErr: "too large"},
		{in: "GET http://a/ HTTP/1.1\r\n" + strings.Repeat("X: "+strings.Repeat("a", 1000)+"\r\n", 1100) + "\r\n", wantErr: "too large"},
		{in: "\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n", wantErr: "empty first line"},
	} {
		h, err := readHeadString(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("readHead(%.40q) = %v, want an error containing %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("readHead(%.40q) = %v", tc.in, err)
		case tc.wantErr == "" && (h.line != tc.line || len(h.fields) != tc.fields):
			t.Errorf("readHead(%.40q) = %q with %d fields, want %q with %d", tc.in, h.line, len(h.fields), tc.line, tc.fields)
		}
	}
}

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		line    string
		host    string // the URL's host; "" for CONNECT
		wantErr string
	}{
		{line: "GET http://example.com/a?b=c HTTP/1.1", host: "example.com"},
		{line: "POST http://example.com:8080 HTTP/1.0", host: "example.com:8080"},
		{line: "CONNECT example.com:443 HTTP/1.1"},
		{line: "GET / HTTP/1.1", wantErr: "absolute URL"},
		{line: "GET https://example.com/ HTTP/1.1", wantErr: "CONNECT only"},
		{line: "GET ftp://example.com/ HTTP/1.1", wantErr: "not \"ftp\""},
		{line: "GET http:opaque HTTP/1.1", wantErr: "absolute URL"},
		{line: "GET http://example.com/ HTTP/2.0", wantErr: "HTTP/1.1 and 1.0"},
		{line: "GET http://example.com/ HTTP/1.1 extra", wantErr: "HTTP/1.1 and 1.0"},
		{line: "GET  http://example.com/ HTTP/1.1", wantErr: "malformed"},
		{line: "G(T http://example.com/ HTTP/1.1", wantErr: "malformed"},
		{line: "GET", wantErr: "malformed"},
	} {
		r, err := parseRequest(head{line: tc.line})
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseRequest(%q) = %v, want an error containing %q", tc.line, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("parseRequest(%q) = %v", tc.line, err)
		case tc.wantErr == "" && tc.host != "" && r.url.Host != tc.host:
			t.Errorf("parseRequest(%q) host %q, want %q", tc.line, r.url.Host, tc.host)
		}
	}
}

func TestOutgoing(t *testing.T) {
	h, err := readHeadString("POST http://user:pw@example.com:81/p?q=1#frag HTTP/1.1\r\nHost: evil.test\r\n" +
		"Proxy-Authorization: Basic c2VjcmV0\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: 5\r\n" +
		"Proxy-Connection: keep-alive\r\nTE: trailers\r\nTransfer-Encoding: chunked\r\nX-Kept: yes\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRequest(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		toProxy bool
		auth    string
		want    string
	}{
		{want: "POST /p?q=1 HTTP/1.1\r\nHost: example.com:81\r\nTransfer-Encoding: chunked\r\nX-Kept: yes\r\nConnection: close\r\n\r\n"},
		{toProxy: true, auth: "Basic dXA6cHc=", want: "POST http://example.com:81/p?q=1 HTTP/1.1\r\nHost: example.com:81\r\nTransfer-Encoding: chunked\r\n" +
			"X-Kept: yes\r\nProxy-Authorization: Basic dXA6cHc=\r\nConnection: close\r\n\r\n"},
	} {
		if got := string(r.outgoing(tc.toProxy, tc.auth)); got != tc.want {
			t.Errorf("outgoing(%v) =\n%q\nwant\n%q", tc.toProxy, got, tc.want)
		}
	}
	up, _ := readHeadString("GET http://example.com/ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
	r, _ = parseRequest(up)
	if got, want := string(r.outgoing(false, "")), "GET /ws HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"; got != want {
		t.Errorf("outgoing of an upgrade =\n%q\nwant\n%q", got, want)
	}
}

func TestIncoming(t *testing.T) {
	h, _ := readHeadString("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nTrailer: X-T\r\n\r\n")
	code, err := status(h)
	if err != nil || code != 200 {
		t.Fatalf("status = %d, %v", code, err)
	}
	if got, want := string(incoming(h, code)), "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTrailer: X-T\r\nConnection: close\r\n\r\n"; got != want {
		t.Errorf("incoming =\n%q\nwant\n%q", got, want)
	}
	h, _ = readHeadString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
	if got, want := string(incoming(h, 101)), "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"; got != want {
		t.Errorf("incoming of a 101 =\n%q\nwant\n%q", got, want)
	}
	for _, line := range []string{"HTTP/1.1 99 x", "HTTP/2 200 OK", "HTTP/1.1 2000 OK", "ICY 200 OK", "HTTP/1.1"} {
		if _, err := status(head{line: line}); err == nil {
			t.Errorf("status(%q) accepted it", line)
		}
	}
	if code, err := status(head{line: "HTTP/1.0 404"}); err != nil || code != 404 {
		t.Errorf("status(HTTP/1.0 404) = %d, %v", code, err)
	}
}

// FuzzHead holds the request reader to its promises on any input: no
// panic; a request it accepts is sent on with one request line, the URL's
// host as its only Host, no hop-by-hop field and no control character, so
// nothing the client wrote can add a line or reach another host.
func FuzzHead(f *testing.F) {
	for _, s := range []string{
		"GET http://a.test/x HTTP/1.1\r\nHost: b.test\r\nConnection: X-A\r\nX-A: 1\r\n\r\n",
		"CONNECT a.test:443 HTTP/1.1\r\n\r\n",
		"POST http://u@a.test:8/p?q#f HTTP/1.0\nTransfer-Encoding: chunked\n\n0\r\n\r\n",
		"GET http://[::1]:80/ HTTP/1.1\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := readHeadString(in)
		if err != nil {
			return
		}
		if code, err := status(h); err == nil {
			out := string(incoming(h, code))
			if !strings.HasSuffix(out, "\r\n\r\n") || strings.Count(out, "\r\n\r\n") != 1 || hasCTL(strings.ReplaceAll(out, "\r\n", "")) {
				t.Fatalf("incoming(%q) = %q", in, out)
			}
		}
		r, err := parseRequest(h)
		if err != nil || r.method == "CONNECT" {
			return
		}
		for _, toProxy := range []bool{false, true} {
			out := string(r.outgoing(toProxy, ""))
			back, err := readHeadString(out)
			if err != nil {
				t.Fatalf("outgoing(%q) = %q, which does not read back: %v", in, out, err)
			}
			if len(out) != strings.Index(out, "\r\n\r\n")+4 {
				t.Fatalf("outgoing(%q) = %q: more than one head", in, out)
			}
			hosts := 0
			for _, f := range back.fields {
				if strings.EqualFold(f.name, "Host") {
					hosts++
					if f.value != r.url.Host {
						t.Fatalf("outgoing(%q) sends Host %q, the URL names %q", in, f.value, r.url.Host)
					}
				}
				if strings.EqualFold(f.name, "Proxy-Authorization") || strings.EqualFold(f.name, "Keep-Alive") || strings.EqualFold(f.name, "Proxy-Connection") {
					t.Fatalf("outgoing(%q) passes on %q", in, f.name)
				}
			}
			if hosts != 1 {
				t.Fatalf("outgoing(%q) = %q: %d Host fields", in, out, hosts)
			}
			if toProxy {
				continue
			}
			again, err := parseRequest(head{line: strings.Replace(back.line, " ", " http://"+r.url.Host, 1)})
			if err != nil || again.url.Host != r.url.Host {
				t.Fatalf("outgoing(%q) request line %q reads as another host: %v", in, back.line, err)
			}
		}
	})
}
