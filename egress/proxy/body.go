package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// A request's body is passed on as it is framed and not one byte further
// (RFC 9112 6.3): whatever a client writes after it (a second, pipelined
// request, perhaps for another host) never reaches the host this request
// was decided for, whether or not that host honours "Connection: close".
// A framing picket cannot read exactly is refused, since two readings of
// one stream are how requests are smuggled.

// bodyKind is how a request's body is framed.
type bodyKind int

const (
	bodyNone    bodyKind = iota // no body
	bodyLength                  // Content-Length bytes
	bodyChunked                 // Transfer-Encoding: chunked
	bodyTunnel                  // an upgrade: everything, both ways, as a tunnel
)

// framing reads how r's body is framed.
func framing(r request) (bodyKind, int64, error) {
	if upgrading(r.head) {
		return bodyTunnel, 0, nil
	}
	var te, cl []string
	for _, f := range r.head.fields {
		switch {
		case strings.EqualFold(f.name, "Transfer-Encoding"):
			te = append(te, f.value)
		case strings.EqualFold(f.name, "Content-Length"):
			cl = append(cl, f.value)
		}
	}
	switch {
	case len(te) > 0 && len(cl) > 0:
		return 0, 0, errors.New("a request with both Transfer-Encoding and Content-Length")
	case len(te) > 0:
		if len(te) != 1 || !strings.EqualFold(te[0], "chunked") || r.version == "HTTP/1.0" {
			return 0, 0, fmt.Errorf("transfer coding %q: picket's proxy passes on chunked bodies only", clip(strings.Join(te, ", ")))
		}
		return bodyChunked, 0, nil
	case len(cl) > 0:
		n, err := strconv.ParseInt(cl[0], 10, 64)
		if err != nil || n < 0 || cl[0][0] == '+' {
			return 0, 0, fmt.Errorf("malformed Content-Length %q", clip(cl[0]))
		}
		for _, v := range cl[1:] {
			if v != cl[0] {
				return 0, 0, errors.New("Content-Length fields that disagree")
			}
		}
		if n == 0 {
			return bodyNone, 0, nil
		}
		return bodyLength, n, nil
	}
	return bodyNone, 0, nil
}

// sendBody passes on the body of a request framed as kind (n bytes for
// bodyLength) from the client's reader br, whose connection is client,
// to target: the bytes br holds first, then, for a fixed length or a
// tunnel, straight from socket to socket (splice).
func sendBody(target, client net.Conn, br *bufio.Reader, kind bodyKind, n int64) error {
	switch kind {
	case bodyLength:
		held := int64(br.Buffered())
		if held > n {
			held = n
		}
		if held > 0 {
			b, _ := br.Peek(int(held))
			if _, err := target.Write(b); err != nil {
				return err
			}
			br.Discard(int(held))
		}
		if rest := n - held; rest > 0 {
			sent, err := io.Copy(raw(target), &io.LimitedReader{R: raw(client), N: rest})
			if err == nil && sent < rest {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				return err
			}
		}
	case bodyChunked:
		return copyChunked(target, br)
	case bodyTunnel:
		if err := flush(target, br); err != nil {
			return err
		}
		copyHalf(raw(target), raw(client))
	}
	return nil
}

// copyChunked copies one chunked body from br to w as it was framed (the
// chunk sizes, their data, the trailer fields) and stops after its last
// line.
func copyChunked(w io.Writer, br *bufio.Reader) error {
	for {
		line, err := chunkLine(br)
		if err != nil {
			return err
		}
		size, _, _ := strings.Cut(strings.TrimRight(string(trimEOL(line)), " \t"), ";")
		n, err := strconv.ParseUint(strings.TrimRight(size, " \t"), 16, 62)
		if err != nil || size == "" {
			return fmt.Errorf("malformed chunk size %q", clip(size))
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		if n == 0 {
			return copyTrailer(w, br)
		}
		if _, err := io.CopyN(w, br, int64(n)); err != nil {
			return err
		}
		end, err := chunkLine(br)
		if err != nil || len(trimEOL(end)) != 0 {
			return errors.New("a chunk not followed by its line end")
		}
		if _, err := w.Write(end); err != nil {
			return err
		}
	}
}

// copyTrailer copies the trailer section after a last chunk, up to and
// including its empty line, at most maxHead bytes.
func copyTrailer(w io.Writer, br *bufio.Reader) error {
	total := 0
	for {
		line, err := chunkLine(br)
		if err != nil {
			return err
		}
		if total += len(line); total > maxHead {
			return errHeadTooLarge
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		if len(trimEOL(line)) == 0 {
			return nil
		}
	}
}

// chunkLine reads one line of a chunked body, its line end included.
func chunkLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, errHeadTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("chunked body cut short: %w", err)
	}
	if hasCTL(string(trimEOL(line))) {
		return nil, errors.New("a control character in a chunked body's framing")
	}
	return line, nil
}
