package claude

import (
	"bufio"
	"encoding/json"
	"github.com/picketdev/picket/hook"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/picketdev/picket/decide"
)

// fixtureEvents are the events the real Claude Code 2.1.328 sent to a
// logging hook, one JSON object a line.
const fixtureEvents = "testdata/claude-code-2.1.328/events.ndjson"

func readFixtures(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open(fixtureEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestParseClaudeFixtures(t *testing.T) {
	lines := readFixtures(t)
	if len(lines) != 15 {
		t.Fatalf("%s has %d events, want 15", fixtureEvents, len(lines))
	}
	// What each PreToolUse of the recording touches.
	want := map[string][]hook.Target{
		"toolu_11796009150485": {{Access: decide.Read, Path: "/home/dev/project/README.md", Size: -1}},
		"toolu_21796009150603": {{Access: decide.Write, Path: "/home/dev/project/README.md", Size: -1}},
		"toolu_31796009150674": {{Access: decide.List, Path: ".", Size: -1, Recursive: true, Root: true, Filter: "**/*.md", Links: hook.LinksSkipped}},
		"toolu_41796009150735": {{Access: decide.Read, Path: "/home/dev/project", Size: -1, Recursive: true, Root: true, FilterBase: true, Split: true, Links: hook.LinksSkipped}},
		"toolu_51796009150811": {{Access: decide.Write, Path: "/home/dev/project/sub/new.txt", Size: 1}},
	}
	events := map[string]int{}
	for i, line := range lines {
		ev, err := Parse(line)
		if err != nil {
			t.Errorf("Parse(line %d) = %v", i+1, err)
			continue
		}
		events[ev.Event]++
		if ev.Session != "250ef737-3851-48e1-b8cd-238e12acefa6" || ev.Cwd != "/home/dev/project" {
			t.Errorf("line %d: session %q, cwd %q", i+1, ev.Session, ev.Cwd)
		}
		if ev.Event != EventPreToolUse {
			continue
		}
		if ev.PromptID == "" || ev.ToolUseID == "" {
			t.Errorf("line %d: PreToolUse without prompt_id or tool_use_id", i+1)
		}
		got, err := Targets(ev.Tool, ev.Input)
		if ev.Tool == "Bash" {
			if err != hook.ErrNotJudged {
				t.Errorf("Targets(Bash) error = %v, want hook.ErrNotJudged", err)
			}
			continue
		}
		w, ok := want[ev.ToolUseID]
		if !ok {
			t.Errorf("line %d: unexpected %s call %s", i+1, ev.Tool, ev.ToolUseID)
			continue
		}
		if err != nil {
			t.Errorf("Targets(%s) = %v", ev.Tool, err)
		}
		if diff := cmp.Diff(w, got, ignoreFlags); diff != "" {
			t.Errorf("Targets(%s) mismatch (-want +got):\n%s", ev.Tool, diff)
		}
		delete(want, ev.ToolUseID)
	}
	for id := range want {
		t.Errorf("no PreToolUse %s in the fixtures", id)
	}
	wantEvents := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 6, "PostToolUse": 5, "Stop": 1, "SessionEnd": 1}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Errorf("event counts mismatch (-want +got):\n%s", diff)
	}
}

func TestParseClaude(t *testing.T) {
	const pre = `"hook_event_name":"PreToolUse"`
	tests := []struct {
		name, in string
		want     Event  // Input compared as JSON
		wantErr  string // substring; "" for no error
	}{
		{name: "pre", in: `{` + pre + `,"session_id":"s","cwd":"/p","prompt_id":"t","tool_name":"Read","tool_input":{"file_path":"a"},"tool_use_id":"u"}`,
			want: Event{Session: "s", Cwd: "/p", Event: "PreToolUse", PromptID: "t", Tool: "Read", ToolUseID: "u"}},
		{name: "unknown fields kept out", in: `{` + pre + `,"tool_name":"Read","effort":{"level":"x"},"permission_mode":"acceptEdits"}`,
			want: Event{Event: "PreToolUse", Tool: "Read"}},
		{name: "other case keys ignored", in: `{"Hook_Event_Name":"Stop",` + pre + `,"Tool_Name":"Bash","tool_name":"Read","TOOL_NAME":"Bash","Cwd":"/x","cwd":"/p"}`,
			want: Event{Event: "PreToolUse", Tool: "Read", Cwd: "/p"}},
		{name: "other case key alone", in: `{` + pre + `,"Tool_Name":"Read"}`, wantErr: "no tool_name"},
		{name: "stop needs no tool", in: `{"hook_event_name":"Stop"}`, want: Event{Event: "Stop"}},
		{name: "no event name", in: `{"tool_name":"Read"}`, wantErr: "no hook_event_name"},
		{name: "event name number", in: `{"hook_event_name":1}`, wantErr: "hook_event_name: not a string"},
		{name: "event name null", in: `{"hook_event_name":null}`, wantErr: "not a string"},
		{name: "cwd array", in: `{` + pre + `,"tool_name":"Read","cwd":["/"]}`, wantErr: "cwd: not a string"},
		{name: "tool_input string", in: `{` + pre + `,"tool_name":"Read","tool_input":"{}"}`, wantErr: "tool_input: not an object"},
		{name: "tool_input null", in: `{` + pre + `,"tool_name":"Read","tool_input":null}`, wantErr: "tool_input: not an object"},
		{name: "array", in: `[]`, wantErr: "not a JSON object"},
		{name: "null", in: `null`, wantErr: "not a JSON object"},
		{name: "number", in: `1`, wantErr: "not a JSON object"},
		{name: "trailing garbage", in: `{"hook_event_name":"Stop"}x`, wantErr: "not a JSON object"},
		{name: "two objects", in: `{"hook_event_name":"Stop"}{}`, wantErr: "not a JSON object"},
		{name: "invalid utf-8", in: "{" + pre + `,"tool_name":"Read","tool_input":{"file_path":"/a` + "\xff" + `"}}`, wantErr: "not valid UTF-8"},
		{name: "empty", in: ``, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			got.Input, got.Response = nil, nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseClaudeTooLarge(t *testing.T) {
	pad := strings.Repeat(" ", hook.MaxEvent-len(`{"hook_event_name":"Stop"}`))
	if _, err := Parse([]byte(`{"hook_event_name":"Stop"}` + pad)); err != nil {
		t.Errorf("Parse(exactly hook.MaxEvent bytes) = %v", err)
	}
	if _, err := Parse([]byte(`{"hook_event_name":"Stop"}` + pad + " ")); err == nil {
		t.Errorf("Parse(hook.MaxEvent+1 bytes) succeeded")
	}
}

func TestClaudeDeny(t *testing.T) {
	var out struct {
		HookSpecificOutput map[string]string
	}
	if err := json.Unmarshal(Deny("r\n\x1b"), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "r\n\x1b"}
	if diff := cmp.Diff(want, out.HookSpecificOutput); diff != "" {
		t.Errorf("Deny mismatch (-want +got):\n%s", diff)
	}
}
