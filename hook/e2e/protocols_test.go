package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gotCall is a tool call as a client decoded it from the wire.
type gotCall struct {
	ID, Name string
	// Input is the JSON arguments, or a freeform call's raw text.
	Input string
}

// loopAgent is the least of an agent for one protocol: it sends the
// conversation, decodes the answer and appends the calls and their results.
type loopAgent interface {
	// request is the next request's path and body.
	request() (path, body string)
	// decode reads an answer into its calls and text.
	decode(t *testing.T, resp *http.Response) ([]gotCall, string)
	// add appends the answered calls and one result for each.
	add(calls []gotCall, text string, results []string)
}

// events reads a server-sent event stream into its data lines.
func events(t *testing.T, resp *http.Response) []string {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("Content-Type = %q, want text/event-stream: %s", ct, b)
	}
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func unmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
}

func body(v any) string { return marshalPlain(v) }

// anthropicAgent speaks the Messages API as Claude Code does.
type anthropicAgent struct{ messages []any }

func (a *anthropicAgent) request() (string, string) {
	msgs := append([]any{map[string]any{"role": "user", "content": "go"}}, a.messages...)
	return "/v1/messages", body(map[string]any{"model": "m", "stream": true, "tools": []any{map[string]any{"name": "read"}}, "messages": msgs})
}

func (a *anthropicAgent) decode(t *testing.T, resp *http.Response) ([]gotCall, string) {
	var calls []gotCall
	var text strings.Builder
	for _, d := range events(t, resp) {
		var ev struct {
			Type         string
			ContentBlock struct{ Type, ID, Name string } `json:"content_block"`
			Delta        struct {
				Text        string
				PartialJSON string `json:"partial_json"`
			}
		}
		unmarshal(t, d, &ev)
		switch {
		case ev.Type == "content_block_start" && ev.ContentBlock.Type == "tool_use":
			calls = append(calls, gotCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
		case ev.Type == "content_block_delta" && ev.Delta.PartialJSON != "":
			calls[len(calls)-1].Input += ev.Delta.PartialJSON
		case ev.Type == "content_block_delta":
			text.WriteString(ev.Delta.Text)
		}
	}
	return calls, text.String()
}

func (a *anthropicAgent) add(calls []gotCall, text string, results []string) {
	var content, out []any
	for i, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Input)})
		out = append(out, map[string]any{"type": "tool_result", "tool_use_id": c.ID, "content": results[i]})
	}
	a.messages = append(a.messages, map[string]any{"role": "assistant", "content": content},
		map[string]any{"role": "user", "content": out})
}

// responsesAgent speaks the Responses API as Codex does: the whole
// conversation as input items, every time.
type responsesAgent struct{ input []any }

func (a *responsesAgent) request() (string, string) {
	input := append([]any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "go"}}}}, a.input...)
	return "/v1/responses", body(map[string]any{"model": "gpt-5.5", "stream": true, "store": false,
		"tools": []any{map[string]any{"type": "function", "name": "exec_command"}, map[string]any{"type": "custom", "name": "apply_patch"}},
		"input": input})
}

func (a *responsesAgent) decode(t *testing.T, resp *http.Response) ([]gotCall, string) {
	var calls []gotCall
	var text string
	var types []string
	for _, d := range events(t, resp) {
		var ev struct {
			Type string
			Item struct {
				Type, Name, Arguments, Input string
				CallID                       string `json:"call_id"`
				Content                      []struct{ Text string }
			}
		}
		unmarshal(t, d, &ev)
		types = append(types, ev.Type)
		if ev.Type != "response.output_item.done" {
			continue
		}
		switch it := ev.Item; it.Type {
		case "function_call":
			calls = append(calls, gotCall{ID: it.CallID, Name: it.Name, Input: it.Arguments})
		case "custom_tool_call":
			calls = append(calls, gotCall{ID: it.CallID, Name: it.Name, Input: "custom:" + it.Input})
		case "message":
			for _, c := range it.Content {
				text += c.Text
			}
		}
	}
	// What Codex needs: created first, completed last, every item added
	// before it is done.
	if len(types) < 2 || types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("event types = %v, want response.created first and response.completed last", types)
	}
	return calls, text
}

func (a *responsesAgent) add(calls []gotCall, text string, results []string) {
	for i, c := range calls {
		if in, ok := strings.CutPrefix(c.Input, "custom:"); ok {
			a.input = append(a.input, map[string]any{"type": "custom_tool_call", "call_id": c.ID, "name": c.Name, "input": in},
				map[string]any{"type": "custom_tool_call_output", "call_id": c.ID, "output": results[i]})
			continue
		}
		a.input = append(a.input, map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Name, "arguments": c.Input},
			// Codex sends some outputs as a list of content items.
			map[string]any{"type": "function_call_output", "call_id": c.ID, "output": []any{map[string]any{"type": "input_text", "text": results[i]}}})
	}
}

// chatAgent speaks Chat Completions as Qwen Code and opencode do.
type chatAgent struct {
	messages []any
	// usage says a stream carried a usage chunk.
	usage bool
}

func (a *chatAgent) request() (string, string) {
	msgs := append([]any{map[string]any{"role": "user", "content": "go"}}, a.messages...)
	return "/v1/chat/completions", body(map[string]any{"model": "gpt-4.1", "stream": true, "stream_options": map[string]any{"include_usage": true},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "view"}}}, "messages": msgs})
}

func (a *chatAgent) decode(t *testing.T, resp *http.Response) ([]gotCall, string) {
	var calls []gotCall
	var text string
	data := events(t, resp)
	if len(data) == 0 || data[len(data)-1] != "[DONE]" {
		t.Errorf("stream = %v, want it to end with [DONE]", data)
	}
	for _, d := range data[:max(len(data)-1, 0)] {
		var ch struct {
			Usage   *struct{ TotalTokens int } `json:"usage"`
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Index    int
						ID       string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		unmarshal(t, d, &ch)
		a.usage = a.usage || ch.Usage != nil
		for _, c := range ch.Choices {
			text += c.Delta.Content
			for _, tc := range c.Delta.ToolCalls {
				if tc.Index == len(calls) {
					calls = append(calls, gotCall{})
				}
				calls[tc.Index].ID += tc.ID
				calls[tc.Index].Name += tc.Function.Name
				calls[tc.Index].Input += tc.Function.Arguments
			}
		}
	}
	return calls, text
}

func (a *chatAgent) add(calls []gotCall, text string, results []string) {
	var tcs []any
	for _, c := range calls {
		tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Input}})
	}
	a.messages = append(a.messages, map[string]any{"role": "assistant", "content": text, "tool_calls": tcs})
	for i, c := range calls {
		a.messages = append(a.messages, map[string]any{"role": "tool", "tool_call_id": c.ID, "content": results[i]})
	}
}

// geminiAgent speaks streamGenerateContent as Gemini CLI does.
type geminiAgent struct{ contents []any }

func (a *geminiAgent) request() (string, string) {
	contents := append([]any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "go"}}}}, a.contents...)
	return "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body(map[string]any{
		"tools": []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file"}}}}, "contents": contents})
}

func (a *geminiAgent) decode(t *testing.T, resp *http.Response) ([]gotCall, string) {
	var calls []gotCall
	var text string
	for _, d := range events(t, resp) {
		var ch struct {
			Candidates []struct {
				FinishReason string
				Content      struct {
					Role  string
					Parts []struct {
						Text         string
						FunctionCall *struct {
							ID, Name string
							Args     json.RawMessage
						}
					}
				}
			}
		}
		unmarshal(t, d, &ch)
		for _, c := range ch.Candidates {
			if c.Content.Role != "model" || c.FinishReason != "STOP" {
				t.Errorf("candidate role %q finish %q, want model and STOP", c.Content.Role, c.FinishReason)
			}
			for _, p := range c.Content.Parts {
				text += p.Text
				if f := p.FunctionCall; f != nil {
					calls = append(calls, gotCall{ID: f.ID, Name: f.Name, Input: string(f.Args)})
				}
			}
		}
	}
	return calls, text
}

func (a *geminiAgent) add(calls []gotCall, text string, results []string) {
	var parts, out []any
	for i, c := range calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": json.RawMessage(c.Input)}})
		resp := map[string]any{"output": results[i]}
		if strings.HasPrefix(results[i], "denied") {
			resp = map[string]any{"error": results[i]}
		}
		out = append(out, map[string]any{"functionResponse": map[string]any{"id": c.ID, "name": c.Name, "response": resp}})
	}
	a.contents = append(a.contents, map[string]any{"role": "model", "parts": parts}, map[string]any{"role": "user", "parts": out})
}

// protocols pairs each server with the client that speaks its protocol.
var protocols = []struct {
	name  string
	start func([]Turn) (*Model, error)
	agent func() loopAgent
	// custom says the protocol has freeform tools.
	custom bool
}{
	{"anthropic", StartModel, func() loopAgent { return &anthropicAgent{} }, false},
	{"responses", StartResponses, func() loopAgent { return &responsesAgent{} }, true},
	{"chat", StartChat, func() loopAgent { return &chatAgent{} }, false},
	{"gemini", StartGemini, func() loopAgent { return &geminiAgent{} }, false},
}

// TestProtocolsPlayOneScript plays one script through every protocol with
// a client that loops as an agent does, sending every request twice (a
// retry gets the same answer), and reads each result back by call id.
func TestProtocolsPlayOneScript(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			script := []Turn{
				ToolUse("read", map[string]any{"path": "a<b&c.txt"}),
				Calls(ToolUse("ls", map[string]any{}), ToolUse("grep", map[string]any{"pattern": "x", "n": 2})),
			}
			want := [][]gotCall{
				{{ToolUseID(0), "read", `{"path":"a<b&c.txt"}`}},
				{{ToolUseID(1), "ls", `{}`}, {CallID(1, 1), "grep", `{"n":2,"pattern":"x"}`}},
			}
			if p.custom {
				patch := "*** Begin Patch\n*** Add File: x\n+\"y\"\n*** End Patch\n"
				script = append(script, CustomToolUse("apply_patch", patch))
				want = append(want, []gotCall{{ToolUseID(2), "apply_patch", "custom:" + patch}})
			}
			script = append(script, Text("DONE"))
			m, err := p.start(script)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()

			a := p.agent()
			var got [][]gotCall
			var final string
			results := map[string]string{}
			for k := 0; k < len(script)+1 && final == ""; k++ {
				path, req := a.request()
				post(t, m.URL+path, req).Body.Close() // a retry
				calls, text := a.decode(t, post(t, m.URL+path, req))
				if len(calls) == 0 {
					final = text
					break
				}
				got = append(got, calls)
				var out []string
				for i, c := range calls {
					out = append(out, fmt.Sprintf("result of %s #%d", c.Name, i))
					results[c.ID] = out[i]
				}
				a.add(calls, text, out)
			}
			if c, ok := a.(*chatAgent); ok && !c.usage {
				t.Errorf("stream_options.include_usage was asked for, but no chunk carried usage")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls the agent saw: mismatch (-want +got):\n%s", diff)
			}
			if final != "DONE" {
				t.Errorf("final text = %q, want DONE", final)
			}
			gotResults := map[string]string{}
			for id, r := range m.Results() {
				gotResults[id] = r.Text
			}
			if diff := cmp.Diff(results, gotResults); diff != "" {
				t.Errorf("Results(): mismatch (-want +got):\n%s", diff)
			}
			var turns []int
			for _, r := range m.Requests() {
				turns = append(turns, r.Turn)
			}
			var wantTurns []int
			for k := range len(want) + 1 {
				wantTurns = append(wantTurns, k, k)
			}
			if diff := cmp.Diff(wantTurns, turns); diff != "" {
				t.Errorf("recorded turns: mismatch (-want +got):\n%s", diff)
			}
			if n := len(m.RequestsContaining("result of read #0")); n != 2*(len(want)) {
				t.Errorf("RequestsContaining(a result) = %d requests, want %d", n, 2*len(want))
			}
		})
	}
}

// TestProtocolsSideRequests: a request that offers no tools (a title, a
// summary) gets plain text and no script turn, whatever the script says.
func TestProtocolsSideRequests(t *testing.T) {
	side := map[string]struct{ path, body string }{
		"anthropic": {"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"title?"}]}`},
		"responses": {"/v1/responses", `{"stream":true,"input":"title?"}`},
		"chat":      {"/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"title?"}]}`},
		"gemini":    {"/v1beta/models/g:streamGenerateContent", `{"contents":[{"role":"user","parts":[{"text":"title?"}]}]}`},
	}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			m, err := p.start([]Turn{ToolUse("read", map[string]any{"path": "x"})})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			calls, text := p.agent().decode(t, post(t, m.URL+side[p.name].path, side[p.name].body))
			if len(calls) != 0 || text != "ok" {
				t.Errorf("side request answered %v %q, want the text ok", calls, text)
			}
			if got := m.Requests(); len(got) != 1 || got[0].Turn != -1 {
				t.Errorf("recorded %+v, want one side request (turn -1)", got)
			}
			// Anything else gets a harmless JSON answer.
			if resp := post(t, m.URL+"/v1/models", `{}`); resp.StatusCode != 200 {
				t.Errorf("other path = %d, want 200", resp.StatusCode)
			}
		})
	}
}

// TestProtocolsRefuseFreeform: a script turn with a freeform call fails
// loudly in a protocol that cannot send one.
func TestProtocolsRefuseFreeform(t *testing.T) {
	for _, p := range protocols {
		if p.custom {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			m, err := p.start([]Turn{CustomToolUse("apply_patch", "*** Begin Patch\n*** End Patch\n")})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			path, req := p.agent().request()
			if resp := post(t, m.URL+path, req); resp.StatusCode != http.StatusInternalServerError {
				t.Errorf("freeform turn answered %d, want 500", resp.StatusCode)
			}
		})
	}
}

// TestProtocolsNotStreamed: a request without "stream" gets one JSON body.
func TestProtocolsNotStreamed(t *testing.T) {
	script := []Turn{ToolUse("read", map[string]any{"path": "x"})}
	for _, tt := range []struct {
		start      func([]Turn) (*Model, error)
		path, body string
		want       string // a fragment of the answer
	}{
		{StartResponses, "/v1/responses", `{"tools":[{}],"input":[]}`, `"call_id":"toolu_e2e_00"`},
		{StartChat, "/v1/chat/completions", `{"tools":[{}],"messages":[]}`, `"finish_reason":"tool_calls"`},
		{StartGemini, "/v1beta/models/g:generateContent", `{"tools":[{"functionDeclarations":[{}]}],"contents":[]}`, `"functionCall":{"args":{"path":"x"},"id":"toolu_e2e_00"`},
	} {
		m, err := tt.start(script)
		if err != nil {
			t.Fatal(err)
		}
		resp := post(t, m.URL+tt.path, tt.body)
		b, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(string(b), tt.want) {
			t.Errorf("POST %s = %s %s, want JSON holding %s", tt.path, ct, b, tt.want)
		}
		m.Close()
	}
}

// TestGeminiResults: a functionResponse's output and error both come back,
// the error marked.
func TestGeminiResults(t *testing.T) {
	m, err := StartGemini(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	post(t, m.URL+"/v1beta/models/g:streamGenerateContent", `{"tools":[{"functionDeclarations":[{}]}],"contents":[
		{"role":"model","parts":[{"functionCall":{"id":"toolu_e2e_00","name":"a"}},{"functionCall":{"id":"toolu_e2e_00_1","name":"b"}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"toolu_e2e_00","name":"a","response":{"output":"fine"}}},
		{"functionResponse":{"id":"toolu_e2e_00_1","name":"b","response":{"error":"Tool execution blocked: no"}}}]}]}`)
	want := map[string]Result{
		"toolu_e2e_00":   {CallID: "toolu_e2e_00", Text: "fine"},
		"toolu_e2e_00_1": {CallID: "toolu_e2e_00_1", Text: "Tool execution blocked: no", IsError: true},
	}
	got := m.Results()
	for id := range got {
		r := got[id]
		r.Raw = nil
		got[id] = r
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Results(): mismatch (-want +got):\n%s", diff)
	}
	if reqs := m.Requests(); len(reqs) != 1 || reqs[0].Turn != 1 {
		t.Errorf("recorded %+v, want turn 1", reqs)
	}
}
