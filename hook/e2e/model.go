// Package e2e drives the real coding agents against a scripted model, so
// tests can prove what picket's hooks do to a real agent's tool calls.
//
// [Model] stands in for the Anthropic Messages API: an agent pointed at it
// (ANTHROPIC_BASE_URL) gets scripted assistant turns instead of a model's,
// and every request body is recorded, so a test can check what reached the
// "model": the tool results, and that no secret ever did.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Turn is one scripted assistant message.
type Turn struct {
	// Content holds the message's content blocks, as the API sends them.
	Content []map[string]any
	// StopReason is "tool_use" when Content asks for tools, else "end_turn".
	StopReason string
}

// ToolUse is a turn that asks for one tool call. The id is derived from the
// turn's position by [Model], so the test can find the matching tool_result.
func ToolUse(name string, input map[string]any) Turn {
	return Turn{
		Content:    []map[string]any{{"type": "tool_use", "name": name, "input": input}},
		StopReason: "tool_use",
	}
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
}

// Model is a scripted Anthropic Messages API server on 127.0.0.1.
//
// The answer to a main-loop request (one that offers tools) is chosen by the
// conversation itself: with k assistant messages already in it, the k-th
// turn of the script is sent. That makes retries and repeated requests
// harmless, and needs no state besides the recording.
type Model struct {
	URL string

	script   []Turn
	srv      *http.Server
	ln       net.Listener
	mu       sync.Mutex
	requests []Request
}

// ToolUseID is the id [Model] gives the tool call of script turn k.
func ToolUseID(k int) string { return fmt.Sprintf("toolu_e2e_%02d", k) }

// StartModel starts a server that plays script. Close it when done.
func StartModel(script []Turn) (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Model{URL: "http://" + ln.Addr().String(), script: script, ln: ln}
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

func (m *Model) record(r Request) {
	m.mu.Lock()
	m.requests = append(m.requests, r)
	m.mu.Unlock()
}

// messagesRequest is the part of a Messages API request the server reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body, Turn: -1}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		m.record(rec)
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		var req messagesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			m.record(rec)
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		turn := m.answer(req)
		if len(req.Tools) > 0 {
			rec.Turn = countAssistant(req)
		}
		m.record(rec)
		msg := message(req.Model, rec.Turn, turn)
		if req.Stream {
			writeStream(w, msg)
		} else {
			writeJSON(w, msg)
		}
	default:
		// Anything else (metrics, feature flags, account look-ups) gets an
		// empty success, so the agent neither stalls nor retries.
		m.record(rec)
		writeJSON(w, map[string]any{})
	}
}

func countAssistant(req messagesRequest) int {
	k := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			k++
		}
	}
	return k
}

// answer picks the turn for a request: side requests (no tools) get a short
// text, main-loop requests the script's next turn, and a conversation that
// ran past the script an end_turn that says so.
func (m *Model) answer(req messagesRequest) Turn {
	if len(req.Tools) == 0 {
		return Text("ok")
	}
	k := countAssistant(req)
	if k >= len(m.script) {
		return Text("script finished")
	}
	return m.script[k]
}

// message builds the full assistant message for turn k of the script.
func message(model string, k int, t Turn) map[string]any {
	content := make([]map[string]any, len(t.Content))
	for i, b := range t.Content {
		c := map[string]any{}
		for key, v := range b {
			c[key] = v
		}
		if c["type"] == "tool_use" {
			c["id"] = ToolUseID(k)
		}
		content[i] = c
	}
	if model == "" {
		model = "claude-scripted"
	}
	return map[string]any{
		"id":            fmt.Sprintf("msg_e2e_%d", k+1),
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   t.StopReason,
		"stop_sequence": nil,
		"usage":         map[string]any{"input_tokens": 100, "output_tokens": 20},
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// writeStream sends msg as the Messages API's server-sent events: each text
// block as one text_delta, each tool_use input as one input_json_delta.
func writeStream(w http.ResponseWriter, msg map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var b bytes.Buffer
	event := func(name string, data map[string]any) {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, marshalPlain(data))
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 1}
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, c := range msg["content"].([]map[string]any) {
		switch c["type"] {
		case "tool_use":
			input := marshalPlain(c["input"])
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	event("message_stop", map[string]any{"type": "message_stop"})
	w.Write(b.Bytes())
}

// marshalPlain marshals v as the API does, without escaping <, > and & for
// HTML, so streamed tool input is byte for byte what the script says.
func marshalPlain(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
