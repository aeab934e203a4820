package codex

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// recorded returns the fixtures' events, decoded, by tool_use_id.
func recorded(t *testing.T) map[string]hook.Event {
	t.Helper()
	f, err := os.Open("testdata/codex-0.171.0/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]hook.Event{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var id struct {
			ID string `json:"tool_use_id"`
		}
		json.Unmarshal(sc.Bytes(), &id)
		ev, err := decode(sc.Bytes())
		if err != nil {
			t.Fatalf("decode(%s) = %v", sc.Text(), err)
		}
		out[id.ID] = ev
	}
	return out
}

// TestTargetsRecorded maps the calls Codex 0.171.0 sent its hook: a shell
// command runs in the cwd Codex names (the model's workdir, which may be
// /etc), a patch writes its paths relative to the call's directory, both
// ends of a move and what it deletes, and view_image reads its path.
func TestTargetsRecorded(t *testing.T) {
	evs := recorded(t)
	for _, tt := range []struct {
		id   string
		want []hook.Target
	}{
		{"call_0", hook.ShellLine("cat secret.txt", "/home/user/project")},
		{"call_4", hook.ShellLine("head -1 passwd", "/etc")},
		{"call_5", hook.ShellLine("cat notes.txt", "/home/user")},
		{"call_1", []hook.Target{{Access: decide.Write, Path: "/home/user/project/secret2.txt", Size: -1}}},
		{"call_6", []hook.Target{
			{Access: decide.Write, Path: "/home/user/project/added.txt", Size: -1},
			{Access: decide.Write, Path: "/home/user/project/../moved.txt", Size: -1},
			{Access: decide.Write, Path: "/home/user/project/../gone.txt", Size: -1},
		}},
		{"call_7", []hook.Target{{Access: decide.Read, Path: "/home/user/project/../picket-canary.png", Size: -1}}},
	} {
		ev, ok := evs[tt.id]
		if !ok {
			t.Fatalf("no recorded event %s", tt.id)
		}
		if ev.Kind != hook.BeforeTool || ev.Call.Agent != Name || ev.Call.Session == "" || ev.Call.Turn == "" {
			t.Errorf("%s: decoded %+v", tt.id, ev)
		}
		got, err := targets(ev.Call)
		if err != nil {
			t.Errorf("%s: Targets = %v", tt.id, err)
			continue
		}
		if !sameTargets(got, tt.want) {
			t.Errorf("%s (%s): Targets = %+v, want %+v", tt.id, ev.Call.Tool, got, tt.want)
		}
	}
}

func sameTargets(a, b []hook.Target) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTargetsRefused: what picket cannot read is denied (an error), never
// passed: a patch it cannot parse, a call without its input; tools it
// does not judge pass.
func TestTargetsRefused(t *testing.T) {
	for _, tt := range []struct {
		tool, input string
	}{
		{"Bash", `{}`},
		{"Bash", `{"command": ["cat", ".env"]}`},
		{"apply_patch", `{}`},
		{"apply_patch", `{"command": "not a patch"}`},
		{"apply_patch", `{"command": "*** Begin Patch\n*** End Patch\n"}`},
		{"apply_patch", `{"command": "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n"}`},
		{"view_image", `{}`},
		{"view_image", `{"path": ""}`},
	} {
		var in map[string]json.RawMessage
		json.Unmarshal([]byte(tt.input), &in)
		if got, err := Targets(tt.tool, in, "/p"); err == nil || errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("Targets(%s, %s) = %+v, %v; want an error", tt.tool, tt.input, got, err)
		}
	}
	for _, tool := range []string{"mcp__fs__read_file", "web_search", "spawn_agent", "write_stdin"} {
		if _, err := Targets(tool, nil, "/p"); !errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("Targets(%s) = %v, want it not judged", tool, err)
		}
	}
}

// TestParseStrict: an event is read with exact key names and valid
// UTF-8, and a call without an absolute cwd is refused: picket must not
// judge another call than the one Codex runs.
func TestParseStrict(t *testing.T) {
	ok := `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"}}`
	if _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("Parse(%s) = %v", ok, err)
	}
	for _, bad := range []string{
		`[]`, `{"bad`, "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/p\",\"tool_name\":\"Bash\xff\"}",
		`{"Hook_Event_Name":"PreToolUse","cwd":"/p","tool_name":"Bash"}`,
		`{"hook_event_name":"PreToolUse","cwd":"/p","Tool_Name":"Bash"}`,
		`{"hook_event_name":"PreToolUse","cwd":"p","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":"ls"}`,
		`{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":7}`,
	} {
		if ev, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q) = %+v, want an error", bad, ev)
		}
	}
}

// TestReply: a block is exit 2 with the reason on stderr (what Codex
// reads whatever a login shell printed on stdout), the exact JSON deny on
// stdout; an allow is nothing at all.
func TestReply(t *testing.T) {
	r := reply(hook.Answer{Deny: true, Reason: "picket: blocked Bash cat .env\n{}"})
	if r.Exit != 2 || string(r.Stderr) != "picket: blocked Bash cat .env\n{}\n" {
		t.Errorf("block = exit %d stderr %q", r.Exit, r.Stderr)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"picket: blocked Bash cat .env\n{}"}}` + "\n"
	if string(r.Stdout) != want {
		t.Errorf("block stdout = %s, want %s", r.Stdout, want)
	}
	if r := reply(hook.Answer{Deny: true}); r.Exit != 2 || strings.TrimSpace(string(r.Stderr)) == "" {
		t.Errorf("block without a reason = %+v, want a reason all the same (Codex runs a silent exit 2)", r)
	}
	if r := reply(hook.Answer{Notice: "x"}); r.Exit != 0 || len(r.Stdout)+len(r.Stderr) != 0 {
		t.Errorf("allow = %+v, want nothing", r)
	}
}
