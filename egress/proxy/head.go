package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The proxy reads HTTP/1 message heads itself (RFC 9112) instead of with
// net/http: that package brings crypto/tls, x509 and their start-up work
// into every picket process, the per-call hook included (3.02 against
// 2.71 ms a hook call, one interleaved run), and the proxy needs only the
// request line, the header fields and, from the server, the status line.
// Bodies are never parsed: each client connection carries one request,
// and its bytes and the answer's are moved as they come.

// maxHead bounds a message head, as net/http's DefaultMaxHeaderBytes;
// headBuffer is the longest line (the reader's buffer).
const (
	maxHead    = 1 << 20
	headBuffer = 64 << 10
)

var (
	errHeadTooLarge = errors.New("message head too large")
	errObsFold      = errors.New("header line folding is not accepted")
)

// field is one header field as sent.
type field struct{ name, value string }

// head is an HTTP/1 message head: its first line (request or status line)
// and its header fields in order.
type head struct {
	line   string
	fields []field
}

// readHead reads a message head from br: the first line, then header
// fields up to the empty line. Lines may end in CRLF or LF. It returns
// io.EOF when the stream ends before the first byte.
func readHead(br *bufio.Reader) (head, error) {
	var h head
	total := 0
	for {
		raw, err := br.ReadSlice('\n')
		total += len(raw)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || total > maxHead:
			return h, errHeadTooLarge
		case err != nil && total == 0:
			return h, err // io.EOF before anything: no request
		case err != nil:
			return h, fmt.Errorf("message head cut short: %w", err)
		}
		line := string(trimEOL(raw))
		if hasCTL(line) {
			return h, errors.New("a control character in the message head")
		}
		if h.line == "" {
			if line == "" && total <= 4 {
				continue // RFC 9112 2.2: an empty line before the request line is skipped
			}
			if line == "" {
				return h, errors.New("empty first line")
			}
			h.line = line
			continue
		}
		if line == "" {
			return h, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return h, errObsFold
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return h, fmt.Errorf("malformed header line %q", clip(line))
		}
		h.fields = append(h.fields, field{name: name, value: strings.Trim(value, " \t")})
	}
}

// hasCTL reports a control character other than a tab (RFC 9110 5.5: a
// field value has none; a bare CR is one).
func hasCTL(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return true
		}
	}
	return false
}

// trimEOL removes a line's LF and the CR before it.
func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// isToken reports whether s is an RFC 9110 token: a method or a field
// name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// get returns the value of the first field named name (any case).
func (h head) get(name string) string {
	for _, f := range h.fields {
		if strings.EqualFold(f.name, name) {
			return f.value
		}
	}
	return ""
}

// request is a proxy request's line, read.
type request struct {
	method  string
	target  string // as sent: "host:port" for CONNECT, else an absolute URL
	version string // "HTTP/1.1" or "HTTP/1.0"
	url     *url.URL
	head    head
}

// parseRequest reads a request line: METHOD SP target SP version. A
// CONNECT's target is host:port; any other method's must be an absolute
// http URL (the form a client sends a proxy), or the request is refused
// with the message err carries.
func parseRequest(h head) (request, error) {
	method, rest, ok1 := strings.Cut(h.line, " ")
	target, version, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !isToken(method) || target == "" || strings.ContainsAny(target, " \t") {
		return request{}, fmt.Errorf("malformed request line %q", clip(h.line))
	}
	if version != "HTTP/1.1" && version != "HTTP/1.0" {
		return request{}, fmt.Errorf("picket's filtering proxy speaks HTTP/1.1 and 1.0, not %q", clip(version))
	}
	r := request{method: method, target: target, version: version, head: h}
	if method == "CONNECT" {
		return r, nil
	}
	u, err := url.Parse(target)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return r, errors.New("picket's filtering proxy takes proxy requests only: an absolute URL (GET http://host/path) or CONNECT host:port")
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
	case "https":
		return r, errors.New("picket's filtering proxy takes https URLs through CONNECT only (set https_proxy, or use a client that tunnels)")
	default:
		return r, fmt.Errorf("picket's filtering proxy forwards http URLs, not %q", clip(u.Scheme))
	}
	r.url = u
	return r, nil
}

// hopByHop are the fields that describe one connection and are not
// passed on (RFC 9110 7.6.1), with those the Connection field names.
// Transfer-Encoding and Trailer stay: the body is passed on as it was
// framed.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "TE", "Upgrade"}

// dropped reports whether f is not to be passed on from h; keep names
// fields kept although hop-by-hop (an upgrade's Connection and Upgrade).
func dropped(h head, name string, keep ...string) bool {
	for _, k := range keep {
		if strings.EqualFold(name, k) {
			return false
		}
	}
	for _, n := range hopByHop {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	for _, f := range h.fields {
		if !strings.EqualFold(f.name, "Connection") {
			continue
		}
		for _, tok := range strings.Split(f.value, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), name) {
				return true
			}
		}
	}
	return false
}

// upgrading reports whether h asks to switch protocols (a WebSocket).
func upgrading(h head) bool {
	if h.get("Upgrade") == "" {
		return false
	}
	for _, f := range h.fields {
		if strings.EqualFold(f.name, "Connection") {
			for _, tok := range strings.Split(f.value, ",") {
				if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
					return true
				}
			}
		}
	}
	return false
}

// outgoing is the head r is sent on with: in origin form to the host
// (absolute form, with auth as Proxy-Authorization, to an upstream
// proxy), its Host the URL's, without hop-by-hop fields, and with
// "Connection: close" (or the upgrade it asked for): the connection
// carries this one request.
func (r request) outgoing(toProxy bool, auth string) []byte {
	u := *r.url
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	target := u.RequestURI()
	if toProxy {
		target = u.Scheme + "://" + u.Host + target
	}
	var b strings.Builder
	b.WriteString(r.method + " " + target + " " + r.version + "\r\n")
	b.WriteString("Host: " + u.Host + "\r\n")
	var keep []string
	if upgrading(r.head) {
		keep = []string{"Connection", "Upgrade"}
	}
	for _, f := range r.head.fields {
		if strings.EqualFold(f.name, "Host") || dropped(r.head, f.name, keep...) {
			continue
		}
		b.WriteString(f.name + ": " + f.value + "\r\n")
	}
	if auth != "" {
		b.WriteString("Proxy-Authorization: " + auth + "\r\n")
	}
	if keep == nil {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// status reads a status line: "HTTP/1.x NNN reason".
func status(h head) (int, error) {
	version, rest, _ := strings.Cut(h.line, " ")
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(version, "HTTP/1.") || len(code) != 3 || err != nil || n < 100 {
		return 0, fmt.Errorf("malformed status line %q", clip(h.line))
	}
	return n, nil
}

// incoming is a response head as the client gets it: the status line as
// sent, without hop-by-hop fields, and "Connection: close". An interim
// answer (1xx: 100 Continue, 101 Switching Protocols) is passed on whole.
func incoming(h head, code int) []byte {
	final := code >= 200
	var b strings.Builder
	b.WriteString(h.line + "\r\n")
	for _, f := range h.fields {
		if final && dropped(h, f.name) {
			continue
		}
		b.WriteString(f.name + ": " + f.value + "\r\n")
	}
	if final {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
