package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// copilotPre is a preToolUse event of Copilot CLI in one of its dialects,
// from this project's session, its cwd the project's src.
func (h *hookProject) copilotPre(pascal bool, tool string, input any) string {
	h.t.Helper()
	ev := map[string]any{"sessionId": h.session, "timestamp": 1796193963580, "cwd": filepath.Join(h.dir, "src"), "toolName": tool, "toolArgs": input}
	if pascal {
		ev = map[string]any{"hook_event_name": "PreToolUse", "session_id": h.session, "timestamp": "2026-12-02T06:46:20.170Z",
			"cwd": filepath.Join(h.dir, "src"), "tool_name": tool, "tool_input": input}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// copilotAnswer runs picket hook in-process and reads its answer as
// Copilot CLI does: a deny is exit 2 with the reason in the JSON object.
func (h *hookProject) copilotAnswer(env []string, payload string, args ...string) (deny bool, reason string, out map[string]json.RawMessage) {
	h.t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"hook"}, args...), env, strings.NewReader(payload), &stdout, &stderr)
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			h.t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
		}
	}
	json.Unmarshal(out["permissionDecisionReason"], &reason)
	if code == 2 && string(out["permissionDecision"]) != `"deny"` {
		h.t.Errorf("exit 2 with %s, want the deny object", stdout.String())
	}
	if code != 0 && code != 2 {
		h.t.Errorf("picket hook exited %d", code)
	}
	return code == 2, reason, out
}

// TestCopilotThroughClaudeSettings: Copilot CLI runs a repository's
// .claude/settings.json hooks (picket install claude), which run picket
// hook --agent claude, with its own events: Claude Code's tool names and
// Copilot CLI's argument names. Where Copilot CLI runs the hook
// (COPILOT_PROJECT_DIR set) they are judged as Copilot CLI's: a read of
// .env is denied with picket's reason, the audit line names copilot, an
// allowed read passes, and a search of .env by its "paths" is denied.
// Where it does not, the claude agent denies what it cannot read.
func TestCopilotThroughClaudeSettings(t *testing.T) {
	h := newHookProject(t, hookFence)
	h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "PRIVATE KEY\n")
	copilotEnv := append(append([]string(nil), h.env...), "COPILOT_PROJECT_DIR="+h.dir)
	for _, tt := range []struct {
		tool  string
		input any
		deny  string // a substring of the reason, "" for a pass
	}{
		{"Read", map[string]any{"path": "../.env"}, "picket: blocked view "},
		{"Read", map[string]any{"path": "main.go"}, ""},
		{"Grep", map[string]any{"pattern": "SECRET", "paths": []string{h.dir}}, "picket: blocked grep "},
		{"Glob", map[string]any{"pattern": "*", "paths": []string{filepath.Join(h.home, ".ssh")}}, "picket: blocked glob "},
		{"Edit", "*** Begin Patch\n*** Add File: ../.git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch\n", "picket: blocked apply_patch "},
		{"Write", map[string]any{"path": "new.go", "file_text": "package main\n"}, ""},
	} {
		deny, reason, _ := h.copilotAnswer(copilotEnv, h.copilotPre(true, tt.tool, tt.input), "--agent", "claude")
		if deny != (tt.deny != "") || !strings.HasPrefix(reason, tt.deny) {
			t.Errorf("%s %v under Copilot CLI: deny %v %q, want %q", tt.tool, tt.input, deny, reason, tt.deny)
		}
		if strings.Contains(reason, "hunter2") {
			t.Errorf("the reason carries the secret: %q", reason)
		}
	}
	// Its bash, which .claude/settings.json hooks see as Bash (the
	// matcher names it for this), runs under picket run: the rewrite in
	// the dialect it was asked in.
	deny, _, out := h.copilotAnswer(copilotEnv, h.copilotPre(true, "Bash", map[string]any{"command": "cat ../.env", "description": "read"}), "--agent", "claude")
	var upd struct {
		HookSpecificOutput struct {
			HookEventName string
			UpdatedInput  map[string]string
		}
	}
	raw, _ := json.Marshal(out)
	json.Unmarshal(raw, &upd)
	if cmd := upd.HookSpecificOutput.UpdatedInput["command"]; deny || upd.HookSpecificOutput.HookEventName != "PreToolUse" ||
		!strings.Contains(cmd, " run --cwd ") || !strings.HasSuffix(cmd, `-- bash -c 'cat ../.env'`) || upd.HookSpecificOutput.UpdatedInput["description"] != "read" {
		t.Errorf("Bash under Copilot CLI: deny %v, answer %s; want it rewritten to run under picket run", deny, raw)
	}
	// Claude Code's own Bash (no Copilot CLI variable) passes untouched:
	// its shell prefix fences it.
	if a := h.run(h.pre("Bash", map[string]any{"command": "cat .env"}), "--agent", "claude"); a.kind() != wantPass {
		t.Errorf("Claude Code's Bash: %+v, want a pass", a)
	}

	b, _ := os.ReadFile(h.auditPath())
	if !bytes.Contains(b, []byte(`"agent":"copilot"`)) || bytes.Contains(b, []byte(`"agent":"claude"`)) {
		t.Errorf("audit log, want its lines to name copilot:\n%s", b)
	}

	// Without Copilot CLI's variable, the claude agent reads the same
	// events: nothing it cannot read passes.
	for _, tt := range []struct {
		tool  string
		input any
	}{
		{"Read", map[string]any{"path": "main.go"}},
		{"Grep", map[string]any{"pattern": "SECRET", "paths": []string{h.dir}}},
		{"Glob", map[string]any{"pattern": "*", "paths": []string{h.dir}}},
	} {
		a := h.run(h.copilotPre(true, tt.tool, tt.input), "--agent", "claude")
		if a.kind() != wantError {
			t.Errorf("%s %v as Claude Code's: %+v, want an error deny", tt.tool, tt.input, a)
		}
	}
}

// TestCopilotHook: Copilot CLI's own dialect through picket hook --agent
// copilot: a blocked read is exit 2 with picket's reason; a bash command
// comes back wrapped in picket run (this picket, the session, the
// agent), no decision given; a shell picket cannot wrap is denied.
func TestCopilotHook(t *testing.T) {
	h := newHookProject(t, hookFence)
	env := append(append([]string(nil), h.env...), "COPILOT_PROJECT_DIR="+h.dir)
	if deny, reason, _ := h.copilotAnswer(env, h.copilotPre(false, "view", map[string]any{"path": "../.env"}), "--agent", "copilot"); !deny || !strings.HasPrefix(reason, "picket: blocked view ") {
		t.Errorf("view ../.env: deny %v %q", deny, reason)
	}
	deny, _, out := h.copilotAnswer(env, h.copilotPre(false, "bash", map[string]any{"command": "cat '../.env'", "description": "read"}), "--agent", "copilot")
	var args map[string]string
	json.Unmarshal(out["modifiedArgs"], &args)
	exe, _ := hook.Executable("")
	want := exe + " run --cwd " + filepath.Join(h.dir, "src") + " --session " + h.session + ` --agent copilot -- bash -c 'cat '\''../.env'\'''`
	if deny || args["command"] != want || args["description"] != "read" || out["permissionDecision"] != nil {
		t.Errorf("bash: deny %v, answer %s; want modifiedArgs with %s and no decision", deny, out, want)
	}
	if deny, reason, _ := h.copilotAnswer(env, h.copilotPre(false, "powershell", map[string]any{"command": "gc .env"}), "--agent", "copilot"); !deny || !strings.Contains(reason, "PowerShell") {
		t.Errorf("powershell: deny %v %q", deny, reason)
	}
	// An event picket cannot read is denied, in a way both dialects read.
	if deny, reason, _ := h.copilotAnswer(env, `{"sessionId":"s","cwd":"/p","toolName":"view","tool_input":{}}`, "--agent", "copilot"); !deny || !strings.HasPrefix(reason, "picket: error: ") {
		t.Errorf("mixed event: deny %v %q", deny, reason)
	}
}
