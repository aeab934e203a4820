package main

// Output rules of `picket serve`: stdout carries protocol lines only, one
// JSON object per line, each a whole response to one request; everything
// for a person (warnings, errors) goes to stderr as `picket: warning: …`.
// Bad input never ends the server; EOF on stdin does, once every request
// read so far has its answer.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/picketdev/picket/grants"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

func init() { commands["serve"] = runServe }

// protocolVersion is what `hello` answers; the Pi extension refuses a
// sidecar that speaks another.
const protocolVersion = 1

const (
	// maxLine is the longest request line; a longer one gets an error and
	// is skipped up to its newline.
	maxLine = 16 << 20
	// maxInFlight bounds the requests answered at once; reading stops
	// while that many are running.
	maxInFlight = 64
)

const serveUsage = `Usage: picket serve [--agent pi]

Answers NDJSON requests on stdin, one response line per request on stdout,
for an agent extension that keeps picket running beside it (Pi's). The
protocol is in picket's docs/sidecar-protocol.md.
`

// runServe runs the sidecar until EOF on stdin. Exit 0 then, 2 for a usage
// error, 1 when stdin cannot be read.
func runServe(c *cli, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	agent := fs.String("agent", "pi", "the agent whose tool calls arrive (pi or claude)")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("serve takes no arguments")
		return 2
	}
	switch *agent {
	case "pi", "claude":
	default:
		c.errorf("unknown agent %q", *agent)
		c.hintf("picket serve speaks for pi (or claude, for tests)")
		return 2
	}
	s := newServer(c, *agent)
	if c.getenv("GOGC") == "" {
		// The sidecar's live heap is small (policies and caches) and each
		// decision allocates a little: collecting at 5x the live heap
		// instead of 2x takes a fifth off a decision's cost.
		debug.SetGCPercent(400)
	}
	if err := c.grantStore().Prune(grants.DefaultMaxAge); err != nil {
		c.warnf("pruning old session grants: %v", err)
	}
	if err := s.serve(c.stdin, c.stdout); err != nil {
		c.errorf("serve: %v", err)
		return 1
	}
	return 0
}

// server is one running sidecar. Handlers run concurrently and share it;
// its cli is never written after newServer.
type server struct {
	c       *cli
	noAsk   *cli // c with noPrompt: for decides whose caller shows no prompt
	agent   string
	cache   *policyCache
	modes   sessionModes
	sandbox sandboxProbe // whether picket run can sandbox commands here
}

func newServer(c *cli, agent string) *server {
	s := &server{agent: agent}
	cc := *c
	cc.modes = s.modes.get
	s.c = &cc
	noAsk := cc
	noAsk.noPrompt = true
	s.noAsk = &noAsk
	s.cache = newPolicyCache(s.c)
	return s
}

// serve reads requests until EOF. Quick ones (a decide of a single path)
// are answered on the reader, in order; the rest each get a goroutine, at
// most maxInFlight at once, so a slow grep or log never holds up a read.
func (s *server) serve(in io.Reader, out io.Writer) error {
	w := &lineWriter{w: bufio.NewWriterSize(out, 64<<10)}
	r := bufio.NewReaderSize(s.cache.w.afterRead(in), 64<<10)
	slots := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	var err error
	for err == nil {
		if r.Buffered() == 0 {
			w.flush() // about to wait for input: nothing may stay behind
		}
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(r, maxLine)
		switch {
		case tooLong:
			w.send(errorLine(nil, fmt.Sprintf("request line longer than %d bytes", maxLine)))
		case len(bytes.TrimSpace(line)) == 0:
		case quickOp(line):
			// Answering here saves the handoff to a worker, which is most
			// of a lone request's round trip and of a burst's cost. The
			// answer leaves at once unless more requests are already read.
			w.write(s.answer(line), r.Buffered() == 0)
		default:
			if len(slots) == cap(slots) {
				w.flush() // about to wait for a slot: answers so far go now
			}
			slots <- struct{}{} // waits while maxInFlight are running
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.send(s.answer(line))
				<-slots
			}()
		}
	}
	wg.Wait()
	w.flush()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// quickOp reports whether a request line is one that is cheap to answer
// on the reader: a decide of a non-recursive tool, hello or status. A wrong
// guess only costs time, never changes an answer.
func quickOp(line []byte) bool {
	switch {
	case bytes.Contains(line, []byte(`"hello"`)), bytes.Contains(line, []byte(`"status"`)):
		return true
	case !bytes.Contains(line, []byte(`"decide"`)):
		return false
	}
	for _, slow := range []string{`"grep"`, `"find"`, `"Grep"`, `"Glob"`} {
		if bytes.Contains(line, []byte(slow)) {
			return false
		}
	}
	return true
}

// readLine returns the next line without its newline, as a fresh slice.
// A line over max bytes is consumed up to its newline and reported as
// tooLong, without being kept.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, ferr := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		switch {
		case ferr == nil:
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
		case errors.Is(ferr, bufio.ErrBufferFull):
			continue
		default:
			return line, tooLong, ferr
		}
	}
}

// lineWriter writes whole response lines under a mutex. The last of the
// responses waiting for the lock flushes, so a burst of pipelined answers
// leaves in a few writes and a lone answer leaves at once.
type lineWriter struct {
	waiting atomic.Int64
	mu      sync.Mutex
	w       *bufio.Writer
}

func (lw *lineWriter) send(line []byte) { lw.write(line, true) }

// write writes line and, if flush, flushes unless another response is
// waiting for the lock (that one will).
func (lw *lineWriter) write(line []byte, flush bool) {
	lw.waiting.Add(1)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.w.Write(line) // a write error is the reader gone: keep draining
	if lw.waiting.Add(-1) == 0 && flush {
		lw.w.Flush()
	}
}

func (lw *lineWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.w.Flush()
}

// request is every operation's parameters; each op reads its own.
type request struct {
	ID       json.RawMessage            `json:"id"`
	Op       string                     `json:"op"`
	Session  string                     `json:"session"`
	Turn     flexString                 `json:"turn"`
	Cwd      string                     `json:"cwd"`
	Tool     string                     `json:"tool"`
	Input    map[string]json.RawMessage `json:"input"`
	Prompt   bool                       `json:"prompt"`
	Access   string                     `json:"access"`
	Path     string                     `json:"path"`
	Resolved string                     `json:"resolved"`
	Answer   string                     `json:"answer"`
	Target   string                     `json:"target"` // grant: the persistTarget the person confirmed
	Restore  bool                       `json:"restore"`
	Mode     string                     `json:"mode"`
	N        int                        `json:"n"`
	Decision string                     `json:"decision"`
}

// flexString takes a JSON string or number (Pi's turn index is a number).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*f = flexString(s)
		return err
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or a number, got %s", b)
	}
	*f = flexString(n)
	return nil
}

// answer handles one request line and returns its response line. It never
// panics out: a bug answers an error for that request alone.
func (s *server) answer(line []byte) (out []byte) {
	var req request
	defer func() {
		if r := recover(); r != nil {
			s.c.errorf("serve: internal error on %q: %v", req.Op, r)
			out = errorLine(req.ID, fmt.Sprintf("internal error: %v", r))
		}
	}()
	var err error
	if !decodeRequest(line, &req) {
		req = request{}
		err = json.Unmarshal(line, &req)
	}
	if !validID(req.ID) {
		req.ID = nil
	}
	switch {
	case isSyntaxError(err):
		return errorLine(nil, "request is not JSON: "+err.Error())
	case err != nil:
		return errorLine(req.ID, "bad request: "+err.Error())
	case req.ID == nil:
		return errorLine(nil, "request has no id (a string or a number)")
	case req.Op == "":
		return errorLine(req.ID, "request has no op")
	}
	op, ok := serveOps[req.Op]
	if !ok {
		return errorLine(req.ID, fmt.Sprintf("unknown op %q", req.Op))
	}
	res, err := op(s, &req)
	if err != nil {
		return errorLine(req.ID, err.Error())
	}
	return okLine(req.ID, res)
}

func isSyntaxError(err error) bool {
	var syntaxErr *json.SyntaxError
	return err != nil && errors.As(err, &syntaxErr)
}

// validID reports whether id is a JSON string or number.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// okLine is {"id":…,"ok":true,…result's fields}.
func okLine(id json.RawMessage, result any) []byte {
	switch r := result.(type) {
	case decideAllow:
		return appendDecideAllow(make([]byte, 0, 256), id, r)
	case decideResult:
		if out, ok := appendDecide(make([]byte, 0, 512), id, r); ok {
			return out
		}
	}
	return marshalOK(id, result)
}

// marshalOK is okLine through encoding/json, for any result.
func marshalOK(id json.RawMessage, result any) []byte {
	b, err := json.Marshal(result)
	if err != nil {
		return errorLine(id, fmt.Sprintf("internal error: %v", err))
	}
	out := make([]byte, 0, len(b)+len(id)+16)
	out = append(out, `{"id":`...)
	out = append(out, id...)
	out = append(out, `,"ok":true`...)
	if len(b) > 2 {
		out = append(out, ',')
		out = append(out, b[1:]...)
	} else {
		out = append(out, '}')
	}
	return append(out, '\n')
}

// errorLine is {"id":…,"ok":false,"error":msg}; a nil id is null.
func errorLine(id json.RawMessage, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		ID    json.RawMessage `json:"id"`
		OK    bool            `json:"ok"`
		Error string          `json:"error"`
	}{id, false, msg})
	return append(b, '\n')
}
