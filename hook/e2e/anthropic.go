package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// StartModel starts a server that plays script as the Anthropic Messages
// API (POST /v1/messages, streamed or not), for Claude Code
// (ANTHROPIC_BASE_URL) and Pi. Close it when done.
func StartModel(script []Turn) (*Model, error) { return start(anthropic{}, script) }

// anthropic is the Messages API. A turn is chosen by counting the
// assistant messages in the conversation.
type anthropic struct{}

// messagesRequest is the part of a Messages API request the server reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (anthropic) endpoint(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages")
}

func (anthropic) read(r *http.Request, body []byte) (exchange, error) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, fmt.Errorf("bad json: %v", err)
	}
	x := exchange{model: req.Model, stream: req.Stream, tools: len(req.Tools) > 0, turn: countAssistant(req)}
	for _, msg := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				x.results = append(x.results, Result{CallID: b.ToolUseID, Text: textOf(b.Content), IsError: b.IsError, Raw: b.Content})
			}
		}
	}
	return x, nil
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

func (anthropic) other(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens") {
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	}
	writeJSON(w, map[string]any{})
}

func (anthropic) write(w http.ResponseWriter, x exchange, k int, t Turn) error {
	if err := noCustom(calls(k, t)); err != nil {
		return err
	}
	msg := message(x.model, k, t)
	if x.stream {
		writeStream(w, msg)
	} else {
		writeJSON(w, msg)
	}
	return nil
}

// message builds the full assistant message for turn k of the script.
func message(model string, k int, t Turn) map[string]any {
	content := make([]map[string]any, len(t.Content))
	n := 0
	for i, b := range t.Content {
		c := map[string]any{}
		for key, v := range b {
			c[key] = v
		}
		if c["type"] == "tool_use" {
			c["id"] = CallID(k, n)
			n++
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

// writeStream sends msg as the Messages API's server-sent events: each text
// block as one text_delta, each tool_use input as one input_json_delta.
func writeStream(w http.ResponseWriter, msg map[string]any) {
	var s sse
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 1}
	s.event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, c := range msg["content"].([]map[string]any) {
		switch c["type"] {
		case "tool_use":
			input := marshalPlain(c["input"])
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
		default:
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	s.send(w)
}
