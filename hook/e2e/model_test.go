package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestModelPlaysScriptByConversation(t *testing.T) {
	m, err := StartModel([]Turn{ToolUse("Read", map[string]any{"file_path": "/x"}), Text("done")})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := `"tools":[{"name":"Read"}]`
	first := `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"go"}]}`
	second := `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[]}]}`

	for _, tt := range []struct {
		body, wantStop, wantType string
	}{
		{first, "tool_use", "tool_use"},
		{first, "tool_use", "tool_use"}, // a retry gets the same turn
		{second, "end_turn", "text"},
		{`{"model":"haiku","messages":[{"role":"user","content":"title?"}]}`, "end_turn", "text"},
	} {
		var msg struct {
			StopReason string `json:"stop_reason"`
			Content    []struct{ Type, ID, Text string }
		}
		if err := json.NewDecoder(post(t, m.URL+"/v1/messages", tt.body).Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != tt.wantStop || len(msg.Content) != 1 || msg.Content[0].Type != tt.wantType {
			t.Errorf("POST %s = %+v, want stop %s with one %s block", tt.body, msg, tt.wantStop, tt.wantType)
		}
	}
	if got := m.Requests(); len(got) != 4 || got[0].Turn != 0 || got[2].Turn != 1 || got[3].Turn != -1 {
		t.Errorf("recorded turns = %+v, want 0, 0, 1, -1", got)
	}
}

func TestModelStreams(t *testing.T) {
	m, err := StartModel([]Turn{ToolUse("Grep", map[string]any{"pattern": "a<b"})})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	resp := post(t, m.URL+"/v1/messages", `{"stream":true,"tools":[{}],"messages":[{"role":"user","content":"go"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q, want text/event-stream", ct)
	}
	var events []string
	var input string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, e)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var ev struct {
				Delta struct {
					PartialJSON string `json:"partial_json"`
				}
			}
			json.Unmarshal([]byte(d), &ev)
			input += ev.Delta.PartialJSON
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if input != `{"pattern":"a<b"}` {
		t.Errorf("streamed tool input = %s, want {\"pattern\":\"a<b\"}", input)
	}
}

func TestModelSideRequests(t *testing.T) {
	m, err := StartModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	resp := post(t, m.URL+"/v1/messages/count_tokens", `{"messages":[]}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "input_tokens") {
		t.Errorf("count_tokens = %d %s, want 200 with input_tokens", resp.StatusCode, b)
	}
	if resp := post(t, m.URL+"/api/anything", `{}`); resp.StatusCode != 200 {
		t.Errorf("unknown path = %d, want 200", resp.StatusCode)
	}
}
