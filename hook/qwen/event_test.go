package qwen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestDecodeStrict: an event picket cannot read exactly as Qwen Code
// wrote it is an error (the call is denied), not a guess.
func TestDecodeStrict(t *testing.T) {
	good := `{"session_id":"s","cwd":"/w/p","hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"file_path":"/w/p/a"}}`
	ev, err := decode([]byte(good))
	if err != nil || ev.Kind != hook.BeforeTool || ev.Call.Cwd != "/w/p" || ev.Call.Session != "s" || ev.Call.Agent != Name {
		t.Fatalf("decode = %+v, %v", ev, err)
	}
	post := strings.Replace(good, "PreToolUse", "PostToolUse", 1)
	if ev, err := decode([]byte(post)); err != nil || ev.Kind != hook.AfterTool {
		t.Errorf("PostToolUse = %+v, %v", ev, err)
	}
	if ev, err := decode([]byte(`{"hook_event_name":"Stop","session_id":"s"}`)); err != nil || ev.Kind != hook.OtherEvent {
		t.Errorf("Stop = %+v, %v", ev, err)
	}
	for _, bad := range []string{
		`[]`, `{`, "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\",\"tool_name\":\"read_file\",\"x\":\"\xff\"}",
		`{"cwd":"/w","tool_name":"read_file"}`,
		`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":""}`,
		`{"hook_event_name":"PreToolUse","cwd":"rel","tool_name":"read_file"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"read_file"}`,
		`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"read_file","tool_input":"/etc/passwd"}`,
		`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":7}`,
	} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q) = nil error, want a refusal", bad)
		}
	}
}

// TestReply: a block exits 2 with the reason on stderr (what Qwen Code
// reads as the block) and the JSON deny on stdout; a block without a
// reason still says something (exit 2 with an empty stderr runs the
// call); an allow is nothing and exit 0.
func TestReply(t *testing.T) {
	r := reply(hook.Answer{Deny: true, Reason: "picket: blocked Read /p/.env"})
	var v struct {
		H struct {
			Event, Decision, Reason string
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(r.Stdout, &v); err != nil || r.Exit != 2 || string(r.Stderr) != "picket: blocked Read /p/.env\n" {
		t.Errorf("block = %+v (%v)", r, err)
	}
	if r := reply(hook.Answer{Deny: true}); r.Exit != 2 || len(strings.TrimSpace(string(r.Stderr))) == 0 {
		t.Errorf("block without a reason = %+v", r)
	}
	if r := reply(hook.Answer{}); r.Exit != 0 || len(r.Stdout) != 0 || len(r.Stderr) != 0 {
		t.Errorf("allow = %+v", r)
	}
}
