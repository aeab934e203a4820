// Package sidecar is picket serve: picket kept running beside an agent
// that loads picket's extension in-process (Pi), answering NDJSON requests
// on stdin with one response line each on stdout. The protocol is
// docs/sidecar-protocol.md; wire.go is its codec, checked against that
// page's examples (TestProtocolDocExamples).
//
// A decide goes through the same request path as picket hook
// ([hook.Pipeline]); the policy of each working directory is cached and
// reloaded when anything it was read or resolved from changes
// ([policyCache]).
//
// # What it does not stop
//
// The extension asks the person itself and reports the answer with the
// grant op: a process that can write to the sidecar's stdin can answer
// for the person (the extension's own process can anyway). A policy
// changed on a network or FUSE filesystem by another machine is seen only
// when something this machine does changes what the cache watches.
package sidecar

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
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/sandbox"
)

// ProtocolVersion is what `hello` answers; the Pi extension refuses a
// sidecar that speaks another.
const ProtocolVersion = 1

const (
	// MaxLine is the longest request line; a longer one gets an error and
	// is skipped up to its newline.
	MaxLine = 16 << 20
	// maxInFlight bounds the requests answered at once; reading stops
	// while that many are running.
	maxInFlight = 64
)

// Server is one running sidecar. Handlers run concurrently and share it;
// nothing in it is written after [New] but the session modes.
type Server struct {
	pipe  hook.Pipeline // the request path; its Modes are the sessions'
	noAsk hook.Pipeline // pipe, headless: for decides whose caller shows no prompt
	cfg   Config
	cache *policyCache
	modes sessionModes
	sbox  sandboxProbe // whether picket run can sandbox commands here
}

// Config is what a sidecar is given.
type Config struct {
	// Pipeline is the request path, for the agent whose calls arrive; its
	// Policies are replaced by the sidecar's cache and its Modes by the
	// sessions' own.
	Pipeline hook.Pipeline
	// Load loads the policy for dir, telling observe of every path it
	// depends on ([decide.Env.Observe]), as every picket command loads it.
	Load func(dir string, observe func(string)) (*decide.Loaded, error)
	// Home and ConfigHome ($XDG_CONFIG_HOME) place the user's fence config,
	// whose changes the cache watches for.
	Home, ConfigHome string
	// Version is picket's, for hello.
	Version string
	// Audit is where the log op reads.
	Audit hook.AuditLog
	// Sandbox probes whether picket run can fence a command here.
	Sandbox func() sandbox.Status
	// Show and Lint answer the show and lint ops as picket show --json and
	// picket lint --json print them.
	Show func(loaded *decide.Loaded, st sandbox.Status, mode decide.Mode) any
	Lint func(loaded *decide.Loaded) any
	// Errorf reports a bug that answered one request with an error.
	Errorf func(format string, args ...any)
	// Now is the clock announcements are stamped with (time.Now when nil).
	Now func() time.Time
}

// New returns a sidecar.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg}
	s.cache = newPolicyCache(cfg.Load, cfg.Home, cfg.ConfigHome)
	s.pipe = cfg.Pipeline
	s.pipe.Policies = s.cache.get
	s.pipe.Modes = s.modes.get
	s.noAsk = s.pipe
	s.noAsk.Headless = true
	return s
}

// Close releases the policy cache's watches.
func (s *Server) Close() { s.cache.close() }

// Serve reads requests from in until EOF and writes the answers to out.
func (s *Server) Serve(in io.Reader, out io.Writer) error { return s.serve(in, out) }

// Answer handles one request line and returns its response line.
func (s *Server) Answer(line []byte) []byte { return s.answer(line) }

// serve reads requests until EOF. Quick ones (a decide of a single path)
// are answered on the reader, in order; the rest each get a goroutine, at
// most maxInFlight at once, so a slow grep or log never holds up a read.
func (s *Server) serve(in io.Reader, out io.Writer) error {
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
		line, tooLong, err = readLine(r, MaxLine)
		switch {
		case tooLong:
			w.send(errorLine(nil, fmt.Sprintf("request line longer than %d bytes", MaxLine)))
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
// on the reader: a decide of a non-recursive tool that asks no one, hello
// or status. A wrong guess only costs time, never changes an answer.
func quickOp(line []byte) bool {
	switch {
	case bytes.Contains(line, []byte(`"hello"`)), bytes.Contains(line, []byte(`"status"`)):
		return true
	case !bytes.Contains(line, []byte(`"decide"`)), bytes.Contains(line, []byte(`"ask"`)):
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
	Ask      bool                       `json:"ask"`
	Access   string                     `json:"access"`
	Path     string                     `json:"path"`
	Resolved string                     `json:"resolved"`
	Answer   string                     `json:"answer"`
	Target   string                     `json:"target"` // grant: the persistTarget the person confirmed
	Restore  bool                       `json:"restore"`
	Mode     string                     `json:"mode"`
	N        int                        `json:"n"`
	Decision string                     `json:"decision"`
	Plugin   map[string]json.RawMessage `json:"plugin"` // announce: the plugin that loaded
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
func (s *Server) answer(line []byte) (out []byte) {
	var req request
	defer func() {
		if r := recover(); r != nil {
			s.cfg.Errorf("serve: internal error on %q: %v", req.Op, r)
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
	op := op(req.Op)
	if op == nil {
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
