package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// StartResponses starts a server that plays script as the OpenAI Responses
// API (POST …/responses, streamed or not), for Codex (a model provider with
// wire_api = "responses") and Copilot CLI (COPILOT_PROVIDER_WIRE_API=
// responses). A [ToolUse] becomes a function_call item with the input as
// its JSON arguments, a [CustomToolUse] a custom_tool_call item with the
// raw input (Codex's freeform apply_patch); the results come back as
// function_call_output and custom_tool_call_output items. Close it when
// done.
func StartResponses(script []Turn) (*Model, error) { return start(responses{}, script) }

type responses struct{}

// responsesRequest is the part of a Responses API request the server reads.
type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
	// Input is a string or a list of items.
	Input json.RawMessage `json:"input"`
}

// responsesItem is the part of an input item the server reads.
type responsesItem struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

func (responses) endpoint(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
}

func (responses) read(r *http.Request, body []byte) (exchange, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, fmt.Errorf("bad json: %v", err)
	}
	x := exchange{model: req.Model, stream: req.Stream, tools: len(req.Tools) > 0}
	var items []responsesItem
	json.Unmarshal(req.Input, &items) // a plain string input holds no calls
	var ids []string
	for _, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			ids = append(ids, it.CallID)
		case "function_call_output", "custom_tool_call_output":
			ids = append(ids, it.CallID)
			x.results = append(x.results, Result{CallID: it.CallID, Text: textOf(it.Output), Raw: it.Output})
		}
	}
	x.turn = nextTurn(ids)
	return x, nil
}

func (responses) other(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{}})
		return
	}
	writeJSON(w, map[string]any{})
}

func (responses) write(w http.ResponseWriter, x exchange, k int, t Turn) error {
	id := fmt.Sprintf("resp_e2e_%d", k+1)
	model := x.model
	if model == "" {
		model = "gpt-scripted"
	}
	items, deltas := responseItems(k, t)
	resp := func(status string, output []map[string]any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "created_at": 1, "status": status,
			"model": model, "output": output}
		if status == "completed" {
			r["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
		}
		return r
	}
	if !x.stream {
		writeJSON(w, resp("completed", items))
		return nil
	}
	var s sse
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		s.event(name, data)
	}
	event("response.created", map[string]any{"response": resp("in_progress", []map[string]any{})})
	event("response.in_progress", map[string]any{"response": resp("in_progress", []map[string]any{})})
	for i, it := range items {
		event("response.output_item.added", map[string]any{"output_index": i, "item": pending(it)})
		for _, d := range deltas[i] {
			d.data["item_id"] = it["id"]
			d.data["output_index"] = i
			event(d.name, d.data)
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	event("response.completed", map[string]any{"response": resp("completed", items)})
	s.send(w)
	return nil
}

// streamEvent is one event between an item's added and done events.
type streamEvent struct {
	name string
	data map[string]any
}

// responseItems builds turn k's output items and, for each, the events
// that stream its content.
func responseItems(k int, t Turn) ([]map[string]any, [][]streamEvent) {
	var items []map[string]any
	var deltas [][]streamEvent
	if s := text(t); s != "" {
		part := map[string]any{"type": "output_text", "text": s, "annotations": []any{}}
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_e2e_%d", k+1), "role": "assistant",
			"status": "completed", "content": []any{part}})
		deltas = append(deltas, []streamEvent{
			{"response.content_part.added", map[string]any{"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}},
			{"response.output_text.delta", map[string]any{"content_index": 0, "delta": s}},
			{"response.output_text.done", map[string]any{"content_index": 0, "text": s}},
			{"response.content_part.done", map[string]any{"content_index": 0, "part": part}},
		})
	}
	for i, c := range calls(k, t) {
		if c.custom {
			input, _ := c.input.(string)
			items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_e2e_%d_%d", k, i),
				"call_id": c.id, "name": c.name, "input": input, "status": "completed"})
			deltas = append(deltas, []streamEvent{
				{"response.custom_tool_call_input.delta", map[string]any{"delta": input}},
				{"response.custom_tool_call_input.done", map[string]any{"input": input}},
			})
			continue
		}
		args := marshalPlain(c.input)
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_e2e_%d_%d", k, i),
			"call_id": c.id, "name": c.name, "arguments": args, "status": "completed"})
		deltas = append(deltas, []streamEvent{
			{"response.function_call_arguments.delta", map[string]any{"delta": args}},
			{"response.function_call_arguments.done", map[string]any{"arguments": args}},
		})
	}
	return items, deltas
}

// pending is an item as output_item.added announces it: its content empty.
func pending(it map[string]any) map[string]any {
	p := map[string]any{}
	for k, v := range it {
		p[k] = v
	}
	p["status"] = "in_progress"
	switch it["type"] {
	case "message":
		p["content"] = []any{}
	case "function_call":
		p["arguments"] = ""
	case "custom_tool_call":
		p["input"] = ""
	}
	return p
}
