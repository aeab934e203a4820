package sidecar

// The sidecar's hot path on the wire: the request lines the Pi extension
// sends and the decide answers it reads back, without encoding/json's
// reflection. Each fast path either produces exactly what encoding/json
// would or declines, and the caller then uses encoding/json; the fuzz
// tests in serve_wire_test.go hold both to that.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
)

// decodeRequest fills req from line as json.Unmarshal would, for the shape
// the extension sends: one object whose keys are request's JSON names
// spelled exactly, each at most once, with strings that need no unescaping.
// It reports false for anything else (escapes, other keys, null, a repeated
// key, a syntax error) and leaves the caller to decode with encoding/json.
func decodeRequest(line []byte, req *request) bool {
	s := wire{b: line}
	if !s.byte('{') {
		return false
	}
	var seen uint32
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			key, ok := s.plain()
			if !ok || !s.byte(':') {
				return false
			}
			bit, ok := requestKey(key)
			if !ok || seen&bit != 0 {
				return false
			}
			seen |= bit
			if !s.field(string(key), req) {
				return false
			}
			if s.byte(',') {
				continue
			}
			if !s.byte('}') {
				return false
			}
			break
		}
	}
	s.space()
	return s.i == len(s.b)
}

// requestKeys are request's JSON names; each has a bit (its index), to
// refuse repeats. A slice, not a map: nothing is built at start-up, where
// every picket process, the hook included, would pay for it.
var requestKeys = [...]string{"id", "op", "session", "turn", "cwd", "tool", "input", "prompt",
	"access", "path", "resolved", "answer", "restore", "mode", "n", "decision", "ask", "plugin"}

// requestKey is key's bit, or false for a name request does not have.
func requestKey(key []byte) (uint32, bool) {
	for i, k := range requestKeys {
		if string(key) == k {
			return 1 << i, true
		}
	}
	return 0, false
}

// field decodes the value of one key into req.
func (s *wire) field(key string, req *request) bool {
	var str *string
	switch key {
	case "id":
		switch c := s.peek(); {
		case c == '"':
			start := s.i
			if _, ok := s.plain(); !ok {
				return false
			}
			req.ID = json.RawMessage(s.b[start:s.i])
			return true
		default:
			n, ok := s.number()
			req.ID = json.RawMessage(n)
			return ok
		}
	case "turn":
		if s.peek() == '"' {
			v, ok := s.plain()
			req.Turn = flexString(v)
			return ok
		}
		n, ok := s.number()
		req.Turn = flexString(n)
		return ok
	case "n":
		n, ok := s.number()
		if !ok || bytes.ContainsAny(n, ".eE") {
			return false
		}
		v, err := strconv.Atoi(string(n))
		req.N = v
		return err == nil
	case "prompt":
		return s.boolean(&req.Prompt)
	case "restore":
		return s.boolean(&req.Restore)
	case "ask":
		return s.boolean(&req.Ask)
	case "input":
		return s.object(&req.Input)
	case "plugin":
		return s.object(&req.Plugin)
	case "op":
		str = &req.Op
	case "session":
		str = &req.Session
	case "cwd":
		str = &req.Cwd
	case "tool":
		str = &req.Tool
	case "access":
		str = &req.Access
	case "path":
		str = &req.Path
	case "resolved":
		str = &req.Resolved
	case "answer":
		str = &req.Answer
	case "mode":
		str = &req.Mode
	case "decision":
		str = &req.Decision
	default:
		return false
	}
	v, ok := s.plain()
	*str = string(v)
	return ok
}

// wire is a cursor over one request line.
type wire struct {
	b []byte
	i int
}

func (s *wire) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (s *wire) peek() byte {
	s.space()
	if s.i == len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// byte consumes c (after white space) if it comes next.
func (s *wire) byte(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// plain reads a string whose bytes are its value: valid UTF-8 with no
// escape and no control character. It returns the bytes between quotes.
func (s *wire) plain() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return v, ascii || utf8.Valid(v)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// number reads a JSON number and returns its text.
func (s *wire) number() ([]byte, bool) {
	s.space()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return nil, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *wire) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *wire) boolean(dst *bool) bool {
	s.space()
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		*dst, s.i = true, s.i+4
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		*dst, s.i = false, s.i+5
	default:
		return false
	}
	return true
}

// object reads an object of raw values (the tool's input), each checked to
// be valid JSON the way encoding/json checks the whole line.
func (s *wire) object(dst *map[string]json.RawMessage) bool {
	if !s.byte('{') {
		return false
	}
	m := make(map[string]json.RawMessage, 4)
	*dst = m
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.plain()
		if !ok || !s.byte(':') {
			return false
		}
		if _, dup := m[string(key)]; dup {
			return false
		}
		v, ok := s.raw()
		if !ok {
			return false
		}
		m[string(key)] = v
		if s.byte(',') {
			continue
		}
		return s.byte('}')
	}
}

// raw reads one value of any kind and returns its bytes. A plain string,
// a number or a literal is checked here; anything else is cut at its end
// and checked by json.Valid.
func (s *wire) raw() (json.RawMessage, bool) {
	start := s.i
	switch c := s.peek(); {
	case c == '"':
		start = s.i
		if _, ok := s.plain(); ok {
			return json.RawMessage(s.b[start:s.i]), true
		}
		s.i = start
	case c == '-' || c >= '0' && c <= '9':
		n, ok := s.number()
		return json.RawMessage(n), ok
	case c == 't' || c == 'f':
		var b bool
		start = s.i
		ok := s.boolean(&b)
		return json.RawMessage(s.b[start:s.i]), ok
	}
	start = s.i
	end, ok := valueEnd(s.b, s.i)
	if !ok || !json.Valid(s.b[start:end]) {
		return nil, false
	}
	s.i = end
	return json.RawMessage(s.b[start:end]), true
}

// valueEnd finds where the value starting at b[i] (a string with escapes,
// an array, an object or null) ends, counting brackets outside strings.
// Whether the value is valid JSON is json.Valid's to say.
func valueEnd(b []byte, i int) (int, bool) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return 0, false
			}
			if depth == 0 {
				return i + 1, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return 0, false
			}
			if depth == 0 {
				return i + 1, true
			}
		case 'n':
			if depth == 0 {
				if bytes.HasPrefix(b[i:], []byte("null")) {
					return i + 4, true
				}
				return 0, false
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return 0, false
			}
		}
	}
	return 0, false
}

// appendDecide appends a decide answer's line, byte for byte what okLine
// makes of it with encoding/json. It reports false for a result that
// carries a prompt request, which okLine encodes instead.
func appendDecide(dst []byte, id json.RawMessage, r decideResult) ([]byte, bool) {
	if r.Request != nil {
		return dst, false
	}
	dst = appendDecideHead(dst, id, r.Judged, r.Allow, r.Decision)
	if r.Message != "" {
		dst = appendString(append(dst, `,"message":`...), r.Message)
	}
	dst = append(dst, `,"grantable":`...)
	dst = strconv.AppendBool(dst, r.Grantable)
	dst = append(dst, `,"promptable":`...)
	dst = strconv.AppendBool(dst, r.Promptable)
	dst = append(dst, `,"canPersist":`...)
	dst = strconv.AppendBool(dst, r.CanPersist)
	if r.PersistTarget != "" {
		dst = appendString(append(dst, `,"persistTarget":`...), r.PersistTarget)
	}
	dst = append(dst, `,"persistCreates":`...)
	dst = strconv.AppendBool(dst, r.PersistCreates)
	if r.PersistExtends != "" {
		dst = appendString(append(dst, `,"persistExtends":`...), r.PersistExtends)
	}
	dst = append(dst, `,"batch":`...)
	dst = strconv.AppendBool(dst, r.Batch)
	if len(r.BatchPaths) > 0 {
		dst = append(dst, `,"batchPaths":[`...)
		for i, p := range r.BatchPaths {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, p)
		}
		dst = append(dst, ']')
	}
	return append(dst, "}\n"...), true
}

// appendDecideAllow appends an allow's line, as okLine would with
// encoding/json.
func appendDecideAllow(dst []byte, id json.RawMessage, r decideAllow) []byte {
	return append(appendDecideHead(dst, id, r.Judged, r.Allow, r.Decision), "}\n"...)
}

// appendDecideHead is the start both decide answers share, up to and
// including the decision.
func appendDecideHead(dst []byte, id json.RawMessage, judged, allow bool, d *decide.Decision) []byte {
	dst = append(dst, `{"id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"ok":true,"judged":`...)
	dst = strconv.AppendBool(dst, judged)
	dst = append(dst, `,"allow":`...)
	dst = strconv.AppendBool(dst, allow)
	if d != nil {
		dst = appendDecision(append(dst, `,"decision":`...), d)
	}
	return dst
}

func appendDecision(dst []byte, d *decide.Decision) []byte {
	dst = append(dst, `{"allow":`...)
	dst = strconv.AppendBool(dst, d.Allow)
	for _, f := range [...]struct{ name, v string }{
		{`,"access":`, string(d.Access)}, {`,"path":`, d.Path}, {`,"resolved":`, d.Resolved},
		{`,"layer":`, string(d.Layer)}, {`,"rule":`, d.Rule}, {`,"pattern":`, d.Pattern},
		{`,"source":`, d.Source}, {`,"suggestion":`, d.Suggestion},
	} {
		dst = appendString(append(dst, f.name...), f.v)
	}
	if d.Reason != "" {
		dst = appendString(append(dst, `,"reason":`...), d.Reason)
	}
	return append(dst, '}')
}

// appendString quotes s as encoding/json does: HTML-safe, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
