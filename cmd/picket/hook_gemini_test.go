package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/internal/testenv"
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

// TestHookGeminiPromptTmux: Gemini CLI's calls get picket's prompt as
// Claude Code's do (TestHookPromptTmux): a grant for the session answers
// the call with nothing at all (Gemini CLI's own approval still applies;
// never an "allow"), the same session then passes without a prompt, and
// Enter in another session denies in Gemini CLI's schema. The audit lines
// name gemini.
func TestHookGeminiPromptTmux(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: builds picket and drives two tmux servers")
	}
	base := t.TempDir()
	bin := buildPicket(t)
	home, proj, outside := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{home, proj, outside} {
		os.MkdirAll(d, 0o755)
	}
	secret := filepath.Join(outside, "notes.txt")
	os.WriteFile(secret, []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`), 0o644)
	h := &hookTmux{t: t, base: base, bin: bin, home: home, proj: proj, secret: secret,
		inner: fmt.Sprintf("picket-inner-%d", time.Now().UnixNano()), outer: fmt.Sprintf("picket-outer-%d", time.Now().UnixNano())}
	h.start()
	call := func(session string) {
		h.n++
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": "", "cwd": proj, "hook_event_name": "BeforeTool",
			"timestamp": "2026-12-02T06:46:45.339Z", "tool_name": "read_file", "tool_input": map[string]string{"file_path": secret}})
		evFile := filepath.Join(base, fmt.Sprintf("ev%d.json", h.n))
		h.outFile, h.doneFile = filepath.Join(base, fmt.Sprintf("out%d.json", h.n)), filepath.Join(base, fmt.Sprintf("done%d", h.n))
		os.WriteFile(evFile, ev, 0o644)
		script := filepath.Join(base, fmt.Sprintf("run%d.sh", h.n))
		os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\nunset CI NO_COLOR\nexport HOME=%s XDG_STATE_HOME=%s/state XDG_CONFIG_HOME=%s/config GEMINI_PROJECT_DIR=%s\ncd %s\n%s hook --agent gemini < %s > %s 2>%s.err\ntouch %s\n",
			shellQuote(home), shellQuote(home), shellQuote(home), shellQuote(proj), shellQuote(proj), shellQuote(bin),
			shellQuote(evFile), shellQuote(h.outFile), shellQuote(h.outFile), shellQuote(h.doneFile))), 0o755)
		h.tmux(h.inner, "send-keys", "-t", "work", script, "Enter")
	}

	call("sess-A")
	h.waitClient("Allow read of this path?")
	h.waitClient("Enter/Esc deny")
	h.typeKey("s")
	if out := h.result(); out != "" {
		t.Fatalf("granted call answered %q, want nothing (never an allow)", out)
	}
	h.wantAudit("grant-session")
	start := time.Now()
	call("sess-A")
	if out := h.result(); out != "" || time.Since(start) > 5*time.Second {
		t.Fatalf("call with a session grant answered %q after %s, want nothing and no prompt", out, time.Since(start))
	}
	call("sess-B")
	h.waitClient("Allow read of this path?")
	h.waitClient("Enter/Esc deny")
	h.typeKey("Enter")
	var deny map[string]string
	if out := h.result(); json.Unmarshal([]byte(out), &deny) != nil || deny["decision"] != "deny" || !strings.HasPrefix(deny["reason"], "picket: blocked read_file "+secret) {
		t.Fatalf("session B answered %q, want Gemini CLI's deny", out)
	}
	h.wantAudit(`"decision":"block"`)
	b, _ := os.ReadFile(filepath.Join(home, "state", "picket", "audit.log"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, `"agent":"gemini"`) {
			t.Errorf("audit line %s does not name gemini", l)
		}
	}
}
