package copilot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/picketdev/picket/hook"
)

// events reads the recorded events of one fixture file.
func events(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "copilot-1.0.102", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// TestDecodeRecorded: every recorded event of both dialects decodes to
// the kind it is, with Copilot CLI's own tool names, the session and the
// session's directory.
func TestDecodeRecorded(t *testing.T) {
	for _, tt := range []struct {
		file, dialect string
		kinds         map[hook.EventKind]int
		tools         []string // the tools of the BeforeTool events, in order
	}{
		{"chat-camel.ndjson", Camel, map[hook.EventKind]int{hook.SessionStart: 1, hook.BeforeTool: 14, hook.AfterTool: 13, hook.SessionEnd: 1},
			[]string{"view", "view", "view", "create", "edit", "grep", "grep", "glob", "glob", "bash", "bash", "read_bash", "list_bash", "stop_bash"}},
		{"chat-pascal.ndjson", Pascal, map[hook.EventKind]int{hook.SessionStart: 1, hook.BeforeTool: 14, hook.AfterTool: 13, hook.SessionEnd: 1},
			[]string{"view", "view", "view", "create", "edit", "grep", "grep", "glob", "glob", "bash", "bash", "read_bash", "list_bash", "stop_bash"}},
		{"responses-camel.ndjson", Camel, map[hook.EventKind]int{hook.SessionStart: 1, hook.BeforeTool: 4, hook.AfterTool: 4, hook.SessionEnd: 1},
			[]string{"apply_patch", "rg", "view", "bash"}},
		// The Claude-compatible dialect reports rg as Grep: its input is
		// grep's.
		{"responses-pascal.ndjson", Pascal, map[hook.EventKind]int{hook.SessionStart: 1, hook.BeforeTool: 4, hook.AfterTool: 4, hook.SessionEnd: 1},
			[]string{"apply_patch", "grep", "view", "bash"}},
	} {
		kinds := map[hook.EventKind]int{}
		var tools []string
		for i, b := range events(t, tt.file) {
			ev, err := decode(b)
			if err != nil {
				t.Errorf("%s:%d: %v", tt.file, i+1, err)
				continue
			}
			kinds[ev.Kind]++
			if ev.Call.Dialect != tt.dialect || ev.Call.Agent != Name || ev.Call.Cwd != "/home/user/project/sub" || ev.Call.Session == "" {
				t.Errorf("%s:%d: call %+v, want dialect %s, agent %s, the session and its directory", tt.file, i+1, ev.Call, tt.dialect, Name)
			}
			if ev.Kind == hook.BeforeTool {
				tools = append(tools, ev.Call.Tool)
			}
		}
		if !equalKinds(kinds, tt.kinds) {
			t.Errorf("%s: event kinds %v, want %v", tt.file, kinds, tt.kinds)
		}
		if strings.Join(tools, " ") != strings.Join(tt.tools, " ") {
			t.Errorf("%s: tools %q, want %q", tt.file, tools, tt.tools)
		}
	}
}

func equalKinds(a, b map[hook.EventKind]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDecodeStrict: an event picket cannot read as one dialect is an
// error, which denies the call, never a pass.
func TestDecodeStrict(t *testing.T) {
	for _, in := range []string{
		`[]`, `null`, `"x"`, `{bad`,
		"{\"sessionId\":\"s\",\"cwd\":\"/p\",\"toolName\":\"view\",\"toolArgs\":{\"path\":\"\xff\"}}",
		// the two dialects mixed
		`{"hook_event_name":"PreToolUse","sessionId":"s","tool_name":"Read","tool_input":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":"/p","toolName":"view","tool_input":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":"/p","toolName":"view","toolArgs":{},"tool_name":"Read"}`,
		// no tool, or a tool that is not a string
		`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_input":{"path":"/etc/shadow"}}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"","tool_input":{}}`,
		`{"sessionId":"s","cwd":"/p","toolName":"","toolArgs":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":"/p","toolName":7,"toolArgs":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":["/p"],"toolName":"view","toolArgs":{"path":"/etc/shadow"}}`,
		// a tool input that is neither an object nor a string
		`{"sessionId":"s","cwd":"/p","toolName":"view","toolArgs":["/etc/shadow"]}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"Read","tool_input":7}`,
	} {
		if ev, err := decode([]byte(in)); err == nil {
			t.Errorf("decode(%s) = %+v, want an error", in, ev)
		}
	}
	// A camelCase event carries no name: one picket cannot tell for one
	// of those it registers (a preToolUse whose members were renamed, or
	// spelled in another case) is an error too, not nothing to do.
	for _, in := range []string{
		`{"sessionId":"s","cwd":"/p","ToolName":"view","toolArgs":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":"/p","tool":"view","args":{"path":"/etc/shadow"}}`,
		`{"sessionId":"s","cwd":"/p"}`,
	} {
		if ev, err := decode([]byte(in)); err == nil {
			t.Errorf("decode(%s) = %+v, want an error", in, ev)
		}
	}
}

// TestDecodeEditForms: the Claude-compatible dialect's Edit is edit,
// apply_patch (its input is the patch text) or str_replace_editor (it
// has a command), told apart by the input.
func TestDecodeEditForms(t *testing.T) {
	for in, want := range map[string]string{
		`{"path":"a","old_str":"x","new_str":"y"}`:              "edit",
		`"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"`: "apply_patch",
		`{"command":"create","path":"a","file_text":"x"}`:       "str_replace_editor",
	} {
		ev, err := decode([]byte(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"Edit","tool_input":` + in + `}`))
		if err != nil || ev.Call.Tool != want {
			t.Errorf("Edit %s = %q, %v; want %s", in, ev.Call.Tool, err, want)
		}
	}
}

// TestReply: a block is Copilot CLI's deny object with exit 2 and the
// reason, in any dialect; a rewrite is the dialect's own, exit 0, and no
// decision; an allow is nothing. Each validates against the schema.
func TestReply(t *testing.T) {
	c := jsonschema.NewCompiler()
	schema, err := c.Compile(filepath.Join("testdata", "reply.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	validate := func(what string, b []byte) {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %q is not JSON: %v", what, b, err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: %s does not match the schema: %v", what, b, err)
		}
	}
	const reason = "picket: blocked view /p/.env\n{\"rule\": \"x\"}"
	for _, d := range []string{"", Camel, Pascal} {
		r := reply(hook.Answer{Deny: true, Reason: reason, Dialect: d})
		if r.Exit != 2 || !strings.Contains(string(r.Stderr), "picket: blocked view /p/.env") {
			t.Errorf("deny (%q) = %+v, want exit 2 with the reason on stderr", d, r)
		}
		validate("deny", r.Stdout)
		var got struct{ PermissionDecisionReason string }
		json.Unmarshal(r.Stdout, &got)
		if got.PermissionDecisionReason != reason {
			t.Errorf("deny reason %q, want %q", got.PermissionDecisionReason, reason)
		}
	}
	in := map[string]json.RawMessage{"command": json.RawMessage(`"'/p/picket' run -- bash -c 'ls'"`), "description": json.RawMessage(`"list"`)}
	for d, key := range map[string]string{"": `"modifiedArgs"`, Camel: `"modifiedArgs"`, Pascal: `"updatedInput"`} {
		r := reply(hook.Answer{Input: in, Dialect: d})
		if r.Exit != 0 || len(r.Stderr) != 0 || !bytes.Contains(r.Stdout, []byte(key)) || bytes.Contains(r.Stdout, []byte("allow")) {
			t.Errorf("rewrite (%q) = %+v, want %s, exit 0 and no decision", d, r, key)
		}
		validate("rewrite", r.Stdout)
	}
	if r := reply(hook.Answer{Notice: "lint warnings"}); r.Exit != 0 || len(r.Stdout)+len(r.Stderr) != 0 {
		t.Errorf("notice = %+v, want nothing", r)
	}
	if r := reply(hook.Answer{}); r.Exit != 0 || len(r.Stdout)+len(r.Stderr) != 0 {
		t.Errorf("allow = %+v, want nothing", r)
	}
}
