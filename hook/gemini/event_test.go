package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in      string
		kind    hook.EventKind
		tool    string
		wantErr string
	}{
		{`{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"a"}}`, hook.BeforeTool, "read_file", ""},
		{`{"hook_event_name":"AfterTool","tool_name":"replace","tool_input":{},"tool_response":{"llmContent":"x"}}`, hook.AfterTool, "replace", ""},
		{`{"hook_event_name":"SessionStart","source":"startup","cwd":"/w"}`, hook.SessionStart, "", ""},
		{`{"hook_event_name":"SessionEnd","reason":"exit"}`, hook.SessionEnd, "", ""},
		{`{"hook_event_name":"BeforeModel","llm_request":{}}`, hook.OtherEvent, "", ""},
		{`{"hook_event_name":"BeforeTool","tool_name":"read_file"}`, 0, "", "no tool_input"},
		{`{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":"x"}`, 0, "", "tool_input"},
		{`{"hook_event_name":"BeforeTool","tool_input":{}}`, 0, "", "no tool_name"},
		{`{"Hook_Event_Name":"BeforeTool"}`, 0, "", "no hook_event_name"},
		{`{"hook_event_name":"BeforeTool","tool_name":7,"tool_input":{}}`, 0, "", "tool_name"},
		{"{\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"read_file\",\"tool_input\":{\"file_path\":\"\xff\"}}", 0, "", "UTF-8"},
		{`[]`, 0, "", "not a JSON object"},
		{`null`, 0, "", "not a JSON object"},
	} {
		ev, err := decode([]byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("decode(%s) = %v, want an error with %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || ev.Kind != tt.kind || ev.Call.Tool != tt.tool || ev.Call.Agent != Name {
			t.Errorf("decode(%s) = %+v, %v; want kind %d tool %q", tt.in, ev, err, tt.kind, tt.tool)
		}
	}
}

// TestReply: a block is Gemini CLI's deny with the reason, exit 0 (exit 2
// would show the person "Hook(s) [picket] failed" for every block); a
// rewrite carries the input and no decision; an allow is nothing.
func TestReply(t *testing.T) {
	r := reply(hook.Answer{Deny: true, Reason: "picket: blocked read_file /w/.env\n{\"x\": \"<&>\"}"})
	var deny map[string]string
	if err := json.Unmarshal(r.Stdout, &deny); err != nil || r.Exit != 0 || deny["decision"] != "deny" || !strings.HasPrefix(deny["reason"], "picket: blocked read_file /w/.env\n") || len(deny) != 2 {
		t.Errorf("deny reply %s (exit %d)", r.Stdout, r.Exit)
	}
	r = reply(hook.Answer{Input: map[string]json.RawMessage{"command": json.RawMessage(`"x"`)}})
	if string(r.Stdout) != `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"x"}}}`+"\n" || r.Exit != 0 {
		t.Errorf("rewrite reply %s (exit %d)", r.Stdout, r.Exit)
	}
	if r = reply(hook.Answer{Notice: "lint"}); string(r.Stdout) != `{"systemMessage":"lint"}`+"\n" {
		t.Errorf("notice reply %s", r.Stdout)
	}
	if r = reply(hook.Answer{}); len(r.Stdout) != 0 || r.Exit != 0 || len(r.Stderr) != 0 {
		t.Errorf("allow reply %+v", r)
	}
}

// FuzzDecode: no event makes decode panic, and a file tool call it
// reads either maps or is an error (a deny), never a pass.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_file","tool_input":{"file_path":"@%2Eenv"}}`))
	f.Add([]byte(`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"grep_search","tool_input":{"pattern":"x","include_pattern":"{a,b}"}}`))
	f.Add([]byte(`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := decode(b)
		if err != nil || ev.Kind != hook.BeforeTool {
			return
		}
		ts, err := targets(ev.Call)
		if err == nil && Agent.FileTool(ev.Call.Tool) && len(ts) == 0 {
			t.Errorf("%s: a file tool call with no target and no error", b)
		}
		rewrite(ev.Call, hook.ShellRun{Exe: "/p/picket"})
	})
}
