package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHookCodex runs the built picket as Codex runs its hook: started in
// the session's directory, with the call's working directory (the
// model's workdir, here /etc) as the event's cwd. The policy is the
// session's, whatever the workdir: its command section blocks git push
// run in /etc. A block is exit 2 with the reason on stderr (what Codex
// blocks on), an allow exit 0 and nothing; the audit line names codex.
func TestHookCodex(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPicket(t)
	h := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"]}, "command": {"deny": ["git push"]}}`)
	env := slices.DeleteFunc(slices.Clone(h.env), func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") }) // Codex sets none
	event := func(tool, cwd string, input map[string]any) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s1", "turn_id": "t1", "transcript_path": nil, "cwd": cwd,
			"hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
			"tool_name": tool, "tool_input": input, "tool_use_id": "call_1"})
		return string(b)
	}
	for _, tt := range []struct {
		name, event string
		block       string // the reason's first line; "" for an allow
	}{
		{"cat .env", event("Bash", h.dir, map[string]any{"command": "cat .env"}), "picket: blocked Bash " + h.dir + "/.env"},
		{"git push in /etc", event("Bash", "/etc", map[string]any{"command": "git push origin main"}), "picket: blocked Bash git push origin main"},
		{"rg for the secret", event("Bash", h.dir+"/src", map[string]any{"command": "rg hunter2 .."}), "picket: blocked Bash " + h.dir + "/.env"},
		{"patch of a git hook", event("apply_patch", h.dir, map[string]any{"command": "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch\n"}), "picket: blocked apply_patch " + h.dir + "/.git/hooks/pre-commit"},
		{"patch it cannot read", event("apply_patch", h.dir, map[string]any{"command": "*** Begin Patch\n*** End Patch"}), "picket: error: apply_patch denied"},
		{"line it cannot read", event("Bash", h.dir, map[string]any{"command": `eval "$X"`}), "picket: error: Bash denied"},
		{"cat README.md", event("Bash", h.dir, map[string]any{"command": "cat README.md"}), ""},
		{"an edit", event("apply_patch", h.dir, map[string]any{"command": "*** Begin Patch\n*** Update File: README.md\n@@\n-# project\n+# project!\n*** End Patch\n"}), ""},
		{"an MCP tool", event("mcp__fs__read", h.dir, map[string]any{"path": ".env"}), ""},
	} {
		cmd := exec.Command(bin, "hook", "--agent", "codex")
		cmd.Dir, cmd.Env, cmd.Stdin = h.dir, env, strings.NewReader(tt.event)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if tt.block == "" {
			if code != 0 || stdout.Len()+stderr.Len() != 0 {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and nothing", tt.name, code, stdout.String(), stderr.String())
			}
			continue
		}
		if code != 2 || !strings.HasPrefix(stderr.String(), tt.block) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tt.name, code, stderr.String(), tt.block)
		}
		var out struct{ HookSpecificOutput map[string]string }
		if json.Unmarshal(stdout.Bytes(), &out) != nil || out.HookSpecificOutput["permissionDecision"] != "deny" {
			t.Errorf("%s: stdout %q, want Codex's deny", tt.name, stdout.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), "hunter2-7f3a") {
			t.Errorf("%s: the answer carries the secret", tt.name)
		}
	}
	for _, e := range auditLines(t, h.auditPath()) {
		if e["agent"] != "codex" {
			t.Errorf("audit line %v does not name codex", e)
		}
	}
	if n := len(auditLines(t, h.auditPath())); n < 6 {
		t.Errorf("%d audit lines, want one per block", n)
	}
}
