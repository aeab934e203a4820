package proxy

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestFraming(t *testing.T) {
	for _, tc := range []struct {
		head    string
		kind    bodyKind
		n       int64
		wantErr string
	}{
		{head: "GET http://a/ HTTP/1.1\r\n\r\n", kind: bodyNone},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n", kind: bodyLength, n: 5},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n", kind: bodyNone},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", kind: bodyLength, n: 5},
		{head: "POST http://a/ HTTP/1.1\r\ntransfer-encoding: Chunked\r\n\r\n", kind: bodyChunked},
		{head: "GET http://a/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", kind: bodyTunnel},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", wantErr: "disagree"},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", wantErr: "both"},
		{head: "POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", wantErr: "chunked bodies only"},
		{head: "POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", wantErr: "chunked bodies only"},
		{head: "POST http://a/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", wantErr: "chunked bodies only"},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", wantErr: "malformed"},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: +5\r\n\r\n", wantErr: "malformed"},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: 0x5\r\n\r\n", wantErr: "malformed"},
		{head: "POST http://a/ HTTP/1.1\r\nContent-Length: \r\n\r\n", wantErr: "malformed"},
	} {
		h, err := readHeadString(tc.head)
		if err != nil {
			t.Fatal(err)
		}
		r, err := parseRequest(h)
		if err != nil {
			t.Fatal(err)
		}
		kind, n, err := framing(r)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("framing(%q) = %v, want an error containing %q", tc.head, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || kind != tc.kind || n != tc.n):
			t.Errorf("framing(%q) = %v, %d, %v; want %v, %d", tc.head, kind, n, err, tc.kind, tc.n)
		}
	}
}

func TestCopyChunked(t *testing.T) {
	for _, tc := range []struct {
		in, out, wantErr string
	}{
		{in: "5\r\nhello\r\n0\r\n\r\nGET http://b/ HTTP/1.1\r\n\r\n", out: "5\r\nhello\r\n0\r\n\r\n"},
		{in: "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\nrest", out: "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n"},
		{in: "5\nhello\n0\n\n", out: "5\nhello\n0\n\n"},
		{in: "5\r\nhelloX\r\n0\r\n\r\n", wantErr: "line end"},
		{in: "z\r\n", wantErr: "chunk size"},
		{in: "\r\n", wantErr: "chunk size"},
		{in: "-1\r\n", wantErr: "chunk size"},
		{in: "ffffffffffffffffff\r\n", wantErr: "chunk size"},
		{in: "5\r\nhel", wantErr: "EOF"},
		{in: "0\r\nX-T: 1\r\n", wantErr: "cut short"},
	} {
		var out bytes.Buffer
		err := copyChunked(&out, bufio.NewReaderSize(strings.NewReader(tc.in), headBuffer))
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("copyChunked(%q) = %v, want an error containing %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || out.String() != tc.out):
			t.Errorf("copyChunked(%q) = %q, %v; want %q", tc.in, out.String(), err, tc.out)
		}
	}
}

// FuzzChunked: copyChunked never panics, and what it passes on is exactly
// a prefix of what it read: no byte added, none reordered.
func FuzzChunked(f *testing.F) {
	for _, s := range []string{"5\r\nhello\r\n0\r\n\r\n", "1;a=b\r\nx\r\n0\r\nT: v\r\n\r\nGET / HTTP/1.1\r\n", "0\n\n", "ff\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		err := copyChunked(&out, bufio.NewReaderSize(strings.NewReader(in), headBuffer))
		if !strings.HasPrefix(in, out.String()) {
			t.Fatalf("copyChunked(%q) passed on %q, not a prefix of its input", in, out.String())
		}
		if err == nil && !strings.HasSuffix(out.String(), "\n") {
			t.Fatalf("copyChunked(%q) = %q: ended within a line", in, out.String())
		}
	})
}
