package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// StartChat starts a server that plays script as OpenAI Chat Completions
// (POST …/chat/completions, streamed or not), for Copilot CLI
// (COPILOT_PROVIDER_BASE_URL), Qwen Code (OPENAI_BASE_URL) and opencode
// (an @ai-sdk/openai-compatible provider). A [ToolUse] becomes a streamed
// tool_calls delta; the results come back as "tool" messages. Close it
// when done.
func StartChat(script []Turn) (*Model, error) { return start(chat{}, script) }

type chat struct{}

// chatRequest is the part of a Chat Completions request the server reads.
type chatRequest struct {
	Model         string            `json:"model"`
	Stream        bool              `json:"stream"`
	Tools         []json.RawMessage `json:"tools"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

func (chat) endpoint(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
}

func (chat) read(r *http.Request, body []byte) (exchange, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, fmt.Errorf("bad json: %v", err)
	}
	x := exchange{model: req.Model, stream: req.Stream, tools: len(req.Tools) > 0,
		usage: req.StreamOptions.IncludeUsage, json: strings.HasPrefix(req.ResponseFormat.Type, "json")}
	var ids []string
	for _, msg := range req.Messages {
		for _, c := range msg.ToolCalls {
			ids = append(ids, c.ID)
		}
		if msg.Role == "tool" {
			ids = append(ids, msg.ToolCallID)
			x.results = append(x.results, Result{CallID: msg.ToolCallID, Text: textOf(msg.Content), Raw: msg.Content})
		}
	}
	x.turn = nextTurn(ids)
	return x, nil
}

func (chat) other(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{}})
		return
	}
	writeJSON(w, map[string]any{})
}

func (chat) write(w http.ResponseWriter, x exchange, k int, t Turn) error {
	cs := calls(k, t)
	if err := noCustom(cs); err != nil {
		return err
	}
	model := x.model
	if model == "" {
		model = "gpt-scripted"
	}
	id := fmt.Sprintf("chatcmpl-e2e-%d", k+1)
	finish := "stop"
	if len(cs) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	var toolCalls []map[string]any
	for i, c := range cs {
		toolCalls = append(toolCalls, map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": marshalPlain(c.input)}})
	}
	if !x.stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if s := text(t); s != "" {
			msg["content"] = s
		}
		if len(toolCalls) > 0 {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return nil
	}
	var s sse
	chunk := func(delta map[string]any, finish any) {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if s := text(t); s != "" {
		chunk(map[string]any{"content": s}, nil)
	}
	for _, tc := range toolCalls {
		fn := tc["function"].(map[string]any)
		// The name and id first, then the arguments, as the API streams them.
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": tc["index"], "id": tc["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": tc["index"],
			"function": map[string]any{"arguments": fn["arguments"]}}}}, nil)
	}
	chunk(map[string]any{}, finish)
	if x.usage {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{}, "usage": usage})
	}
	s.raw("[DONE]")
	s.send(w)
	return nil
}
