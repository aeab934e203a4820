// Package e2e drives the real coding agents against a scripted model, so
// tests can prove what picket's hooks do to a real agent's tool calls.
//
// A [Model] is a server on 127.0.0.1 that plays a script of assistant
// turns in one of four wire protocols: the Anthropic Messages API
// ([StartModel]: Claude Code, Pi), the OpenAI Responses API ([StartResponses]:
// Codex), Gemini's generateContent ([StartGemini]: Gemini CLI) and OpenAI
// Chat Completions ([StartChat]: Copilot CLI, Qwen Code, opencode). The
// script reads the same in each:
//
//	[]Turn{ToolUse("read_file", map[string]any{"file_path": ".env"}), Text("DONE")}
//
// Every request body is recorded, so a test can check what reached the
// "model": the tool results ([Model.Results]) and that no secret ever did
// ([Model.RequestsContaining]).
//
// # What it does not do
//
// It answers no question a script did not foresee: a request whose
// conversation ran past the script gets a final text, and a side request
// (one that offers no tools: titles, summaries, checks) gets a short plain
// text. It does not model tokens, errors or rate limits.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Turn is one scripted assistant message.
type Turn struct {
	// Content holds the message's blocks, in the Anthropic Messages API's
	// shape, which each protocol translates: {"type":"text","text"},
	// {"type":"tool_use","name","input"} and, for freeform tools such as
	// Codex's apply_patch, {"type":"custom_tool_use","name","input":string}.
	Content []map[string]any
	// StopReason is "tool_use" when Content asks for tools, else "end_turn".
	StopReason string
}

// ToolUse is a turn that asks for one tool call. The call's id is derived
// from the turn's position by [Model] ([ToolUseID]), so the test can find
// the matching result.
func ToolUse(name string, input map[string]any) Turn {
	return Turn{
		Content:    []map[string]any{{"type": "tool_use", "name": name, "input": input}},
		StopReason: "tool_use",
	}
}

// CustomToolUse is a turn that calls a freeform tool with raw text, such as
// Codex's apply_patch with a patch envelope. Only [StartResponses] speaks
// it; the other protocols have no freeform tools and answer such a turn
// with an HTTP error, so a script that needs it fails loudly elsewhere.
func CustomToolUse(name, input string) Turn {
	return Turn{
		Content:    []map[string]any{{"type": "custom_tool_use", "name": name, "input": input}},
		StopReason: "tool_use",
	}
}

// Calls is a turn that asks for several tool calls at once. The i-th call
// of turn k gets the id CallID(k, i).
func Calls(turns ...Turn) Turn {
	t := Turn{StopReason: "tool_use"}
	for _, c := range turns {
		t.Content = append(t.Content, c.Content...)
	}
	return t
}

// Text is a final turn that ends the agent's loop.
func Text(s string) Turn {
	return Turn{Content: []map[string]any{{"type": "text", "text": s}}, StopReason: "end_turn"}
}

// Request is one recorded HTTP request to the model server.
type Request struct {
	Method, Path string
	Body         []byte
	// Turn is the script index answered, or -1 for a side request (token
	// counting, titles, anything without tools).
	Turn int
	// Time is when the request arrived.
	Time time.Time
}

// Result is one tool result as the agent sent it back to the model.
type Result struct {
	// CallID is the id of the call it answers ([ToolUseID], [CallID]).
	CallID string
	// Text is the result's text, its parts joined.
	Text string
	// IsError is set where the protocol marks a failed call: Anthropic's
	// is_error, Gemini's response.error. The Responses and Chat Completions
	// APIs have no such mark, so it is always false there.
	IsError bool
	// Raw is the result as it arrived, in the protocol's own shape.
	Raw json.RawMessage
}

// ToolUseID is the id [Model] gives the (first) tool call of script turn k.
func ToolUseID(k int) string { return fmt.Sprintf("toolu_e2e_%02d", k) }

// CallID is the id of the i-th tool call of script turn k: ToolUseID(k)
// for the first, with a suffix for the others.
func CallID(k, i int) string {
	if i == 0 {
		return ToolUseID(k)
	}
	return fmt.Sprintf("%s_%d", ToolUseID(k), i)
}

// turnOfID is the script turn a call id names, if it is one of ours.
func turnOfID(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "toolu_e2e_")
	if !ok {
		return 0, false
	}
	rest, _, _ = strings.Cut(rest, "_")
	k, err := strconv.Atoi(rest)
	return k, err == nil && k >= 0
}

// nextTurn is the script turn that follows the calls a conversation
// holds: one past the latest turn any of ids names, 0 when none does. It
// is how the non-Anthropic protocols choose their answer from the
// conversation alone.
func nextTurn(ids []string) int {
	next := 0
	for _, id := range ids {
		if k, ok := turnOfID(id); ok && k+1 > next {
			next = k + 1
		}
	}
	return next
}

// exchange is what a protocol reads from one model request.
type exchange struct {
	model  string
	stream bool
	// tools says the request offers tools: a main-loop request.
	tools bool
	// turn is the script turn the conversation is at.
	turn int
	// results are the tool results the request carries.
	results []Result
	// usage asks for a usage chunk at the end of a stream (Chat).
	usage bool
	// json says the request wants a JSON answer (a side request's
	// structured check), so its answer is "{}" rather than prose.
	json bool
}

// protocol is one wire format: which requests it answers, how it reads
// them and how it writes a turn.
type protocol interface {
	// endpoint reports whether r asks the model for a turn.
	endpoint(r *http.Request) bool
	read(r *http.Request, body []byte) (exchange, error)
	// write sends turn t, the script's turn k (-1 for a side request).
	write(w http.ResponseWriter, x exchange, k int, t Turn) error
	// other answers every other request.
	other(w http.ResponseWriter, r *http.Request)
}

// Model is a scripted model server on 127.0.0.1.
//
// The answer to a main-loop request (one that offers tools) is chosen by the
// conversation itself: the Anthropic Messages API by counting the assistant
// messages in it, the others by the ids of the scripted calls it holds
// ([ToolUseID]). That makes retries and repeated requests harmless, and
// needs no state besides the recording.
type Model struct {
	URL string

	proto    protocol
	script   []Turn
	srv      *http.Server
	mu       sync.Mutex
	requests []Request
	results  []Result
}

func start(p protocol, script []Turn) (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Model{URL: "http://" + ln.Addr().String(), proto: p, script: script}
	m.srv = &http.Server{Handler: m}
	go m.srv.Serve(ln)
	return m, nil
}

// Close stops the server.
func (m *Model) Close() error { return m.srv.Close() }

// Requests returns a copy of every request received so far, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// RequestsContaining returns the requests whose body holds s: a secret
// that must never reach the model.
func (m *Model) RequestsContaining(s string) []Request {
	var out []Request
	for _, r := range m.Requests() {
		if bytes.Contains(r.Body, []byte(s)) {
			out = append(out, r)
		}
	}
	return out
}

// Results returns, by call id, the latest result the agent sent for each
// tool call, from main-loop requests.
func (m *Model) Results() map[string]Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Result{}
	for _, r := range m.results {
		out[r.CallID] = r
	}
	return out
}

func (m *Model) record(r Request, results ...Result) {
	m.mu.Lock()
	m.requests = append(m.requests, r)
	m.results = append(m.results, results...)
	m.mu.Unlock()
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body, Turn: -1, Time: time.Now()}
	if !m.proto.endpoint(r) {
		// Anything else (metrics, feature flags, model lists) gets an
		// answer that neither stalls the agent nor makes it retry.
		m.record(rec)
		m.proto.other(w, r)
		return
	}
	x, err := m.proto.read(r, body)
	if err != nil {
		m.record(rec)
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	turn := Text("ok")
	if x.json {
		turn = Text("{}")
	}
	var results []Result
	if x.tools {
		rec.Turn = x.turn
		turn = m.turn(x.turn)
		results = x.results
	}
	m.record(rec, results...)
	if err := m.proto.write(w, x, rec.Turn, turn); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusInternalServerError)
	}
}

// turn is the script's turn k, or an end once the script ran out.
func (m *Model) turn(k int) Turn {
	if k >= len(m.script) {
		return Text("script finished")
	}
	return m.script[k]
}

// call is one tool call of a turn, as every protocol needs it.
type call struct {
	id, name string
	// custom marks a freeform call; input is then a string.
	custom bool
	input  any
}

// calls lists turn k's tool calls with their ids.
func calls(k int, t Turn) []call {
	var out []call
	for _, b := range t.Content {
		switch b["type"] {
		case "tool_use", "custom_tool_use":
			name, _ := b["name"].(string)
			out = append(out, call{id: CallID(k, len(out)), name: name, custom: b["type"] == "custom_tool_use", input: b["input"]})
		}
	}
	return out
}

// text joins turn t's text blocks.
func text(t Turn) string {
	var b strings.Builder
	for _, c := range t.Content {
		if c["type"] == "text" {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// noCustom refuses a turn with a freeform call in a protocol without them.
func noCustom(cs []call) error {
	for _, c := range cs {
		if c.custom {
			return fmt.Errorf("script turn calls freeform tool %s, which this protocol cannot send", c.name)
		}
	}
	return nil
}

// textOf flattens a result's content: a string, or a list of parts whose
// text is joined.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events into a buffer, sent whole at the end.
type sse struct{ b bytes.Buffer }

// event writes one event; an empty name writes a bare data line.
func (s *sse) event(name string, data any) {
	if name != "" {
		fmt.Fprintf(&s.b, "event: %s\n", name)
	}
	fmt.Fprintf(&s.b, "data: %s\n\n", marshalPlain(data))
}

// raw writes a data line as is, such as Chat Completions' "[DONE]".
func (s *sse) raw(data string) { fmt.Fprintf(&s.b, "data: %s\n\n", data) }

func (s *sse) send(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(s.b.Bytes())
}

// marshalPlain marshals v as the APIs do, without escaping <, > and & for
// HTML, so streamed tool input is byte for byte what the script says.
func marshalPlain(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
