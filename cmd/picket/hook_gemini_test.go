package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHookGemini runs the built picket as Gemini CLI runs its hook, but
// started in another directory than the session's: relative paths and
// the policy are the event's cwd's (the session's directory, which Gemini
// CLI also names in GEMINI_PROJECT_DIR), never the hook process's. A
// block is Gemini CLI's deny on stdout with exit 0 and picket's reason,
// an allow exit 0 and nothing, a shell command the input rewritten to
// run under picket run (no decision), which then cannot print the .env;
// every audit line names gemini.
func TestHookGemini(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPicket(t)
	h := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"]}}`)
	h.write(".gemini/settings.json", "{}\n")
	env := slices.DeleteFunc(slices.Clone(h.env), func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") })
	env = append(env, "GEMINI_PROJECT_DIR="+h.dir, "PATH=/usr/bin:/bin")
	elsewhere := t.TempDir()
	event := func(name, tool string, input map[string]any) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": h.home + "/.gemini/tmp/p/chats/s1.jsonl",
			"cwd": h.dir, "hook_event_name": name, "timestamp": "2026-12-02T06:46:45.339Z", "tool_name": tool, "tool_input": input})
		return string(b)
	}
	ask := func(ev string) (stdout, stderr string, code int) {
		cmd := exec.Command(bin, "hook", "--agent", "gemini")
		cmd.Dir, cmd.Env, cmd.Stdin = elsewhere, env, strings.NewReader(ev)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	for _, tt := range []struct {
		name, event string
		block       string // the reason's first line; "" for an allow
	}{
		{"read_file .env", event("BeforeTool", "read_file", map[string]any{"file_path": ".env"}), "picket: blocked read_file " + h.dir + "/.env"},
		{"write_file of its settings", event("BeforeTool", "write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{}"}), "picket: blocked write_file " + h.dir + "/.gemini/settings.json"},
		{"grep_search for the secret", event("BeforeTool", "grep_search", map[string]any{"pattern": "hunter2"}), "picket: blocked grep_search " + h.dir + "/.env"},
		{"read_file it cannot read", event("BeforeTool", "read_file", map[string]any{"file_path": 7}), "picket: error: read_file denied"},
		{"read_file README.md", event("BeforeTool", "read_file", map[string]any{"file_path": "README.md"}), ""},
		{"an MCP tool", event("BeforeTool", "mcp_fs_read", map[string]any{"path": ".env"}), ""},
	} {
		stdout, stderr, code := ask(tt.event)
		if tt.block == "" {
			if code != 0 || stdout != "" || stderr != "" {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and nothing", tt.name, code, stdout, stderr)
			}
			continue
		}
		var deny map[string]string
		if err := json.Unmarshal([]byte(stdout), &deny); err != nil || code != 0 || len(deny) != 2 || deny["decision"] != "deny" || !strings.HasPrefix(deny["reason"], tt.block) {
			t.Errorf("%s: exit %d, stdout %q; want exit 0 and Gemini CLI's deny with %q", tt.name, code, stdout, tt.block)
		}
		if strings.Contains(stdout+stderr, "hunter2-7f3a") {
			t.Errorf("%s: the answer carries the secret", tt.name)
		}
	}

	stdout, _, code := ask(event("BeforeTool", "run_shell_command", map[string]any{"command": "cat .env", "description": "show it"}))
	var rw struct {
		HookSpecificOutput struct {
			HookEventName string            `json:"hookEventName"`
			ToolInput     map[string]string `json:"tool_input"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &rw); err != nil || code != 0 || strings.Contains(stdout, "decision") {
		t.Fatalf("run_shell_command: exit %d, stdout %q; want a rewrite without a decision", code, stdout)
	}
	want := "GEMINI_PROJECT_DIR=" + h.dir + " " + bin + " run --cwd " + h.dir + " --session s1 --agent gemini -- bash -c 'cat .env'"
	if got := rw.HookSpecificOutput.ToolInput; got["command"] != want || got["description"] != "show it" || rw.HookSpecificOutput.HookEventName != "BeforeTool" {
		t.Errorf("run_shell_command rewritten to %q, want the command %q and the rest kept", got, want)
	}
	if !t.Failed() {
		requireBwrap(t)
		cmd := exec.Command("bash", "-c", want)
		cmd.Dir, cmd.Env = h.dir, env
		out, err := cmd.CombinedOutput()
		t.Logf("the rewritten cat .env: %v: %s", err, out)
		if err == nil || strings.Contains(string(out), "hunter2-7f3a") {
			t.Errorf("the rewritten cat .env: %v\n%s", err, out)
		}
	}
	lines := auditLines(t, h.auditPath())
	if len(lines) < 4 {
		t.Errorf("%d audit lines, want one per block and the shell's", len(lines))
	}
	for _, e := range lines {
		if e["agent"] != "gemini" {
			t.Errorf("audit line %v does not name gemini", e)
		}
	}
}
