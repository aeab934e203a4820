package e2e

// What the real Claude Code does with CLAUDE_CODE_SHELL_PREFIX, verified
// with 2.1.197 and a prefix script that logged its arguments and
// environment:
//
//   - Set in the settings' "env", the prefix wraps the Bash tool's command
//     lines and every hook command (picket's own included). Hook commands
//     arrive with CLAUDE_PROJECT_DIR set, Bash command lines without it.
//   - The prefix is cut at its last " -": what comes before is shell-quoted
//     as ONE word, what follows is appended as is, then the command line,
//     quoted, as one more argument. So "/x/picket shell-prefix" runs a
//     program named "/x/picket shell-prefix" (exit 127, and every hook,
//     picket's included, silently fails open), while "/x/picket
//     --shell-prefix" runs picket with two arguments: --shell-prefix and the
//     command line.
//   - A Bash command line is `source ~/.claude/shell-snapshots/snapshot-
//     bash-….sh 2>/dev/null || true && { shopt -u extglob || setopt
//     NO_EXTENDED_GLOB NO_BARE_GLOB_QUAL; } >/dev/null 2>&1 || true && eval
//     '<the model's command>' < /dev/null && pwd -P >| /tmp/claude-XXXX-cwd`;
//     Claude Code reads the cwd file afterwards, from outside.

import (
	"bytes"
	"context"
	"github.com/picketdev/picket/internal/testenv"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	claudeagent "github.com/picketdev/picket/hook/claude"
)

// requireBwrap skips without bubblewrap, unless CI or PICKET_E2E=1 says the
// sandbox must be there.
func requireBwrap(t *testing.T) {
	t.Helper()
	testenv.Bwrap(t)
}

// TestClaudeCodeBash runs the model's Bash commands through Claude Code's
// own Bash tool with picket installed: reading ~/.ssh and writing outside
// the workspace fail in the sandbox, listing and writing inside work, and
// picket's file-tool hook still blocks a Read of .env in the same session.
func TestClaudeCodeBash(t *testing.T) {
	claude := claudeBinary(t)
	requireBwrap(t)
	w := newWorld(t)
	home, state, project, picket, env := w.home, w.state, w.project, w.picket, w.env
	outside := filepath.Join(w.base, "outside")
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), key+"\n")
	secret := "hunter2-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(project, ".env"), "SECRET_VALUE="+secret+"\n")
	if settings := w.installClaude(t); !bytes.Contains(settings, []byte(`"CLAUDE_CODE_SHELL_PREFIX": "`+claudeagent.ShellPrefix(picket)+`"`)) {
		t.Fatalf("picket install claude --project set no shell prefix for %s:\n%s", picket, settings)
	}

	model, err := StartModel([]Turn{
		0: ToolUse("Bash", map[string]any{"command": "cat ~/.ssh/id_rsa"}),
		1: ToolUse("Bash", map[string]any{"command": "touch ../outside"}),
		2: ToolUse("Bash", map[string]any{"command": "ls"}),
		3: ToolUse("Bash", map[string]any{"command": "echo hi > inside.txt"}),
		4: ToolUse("Read", map[string]any{"file_path": filepath.Join(project, ".env")}),
		// Claude Code learns the new cwd from the file the command line
		// writes in /tmp: it must reach the host's /tmp.
		5: ToolUse("Bash", map[string]any{"command": "mkdir -p sub && cd sub"}),
		6: ToolUse("Bash", map[string]any{"command": "pwd"}),
		7: Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	start := time.Now()
	runClaudeWith(t, claude, project, env, model, "Read,Write,Edit,NotebookEdit,Grep,Glob,Bash")
	t.Logf("claude -p took %v, %d requests to the model", time.Since(start), len(model.Requests()))

	reqs := model.Requests()
	results := toolResults(t, reqs)
	result := checkBashFence(t, results, project, outside, key)
	if r := result(4, "Read .env"); !r.IsError || !strings.Contains(r.text(), "picket: blocked") {
		t.Errorf("Read .env: tool_result = %q (is_error %v), want picket's hook block", r.text(), r.IsError)
	}
	if r := result(6, "pwd after cd sub"); strings.TrimSpace(r.text()) != filepath.Join(project, "sub") {
		t.Errorf("pwd after cd sub: tool_result = %q, want %s: Claude Code lost the cwd file", r.text(), filepath.Join(project, "sub"))
	}
	for i, r := range reqs {
		for _, s := range []string{key, secret} {
			if bytes.Contains(r.Body, []byte(s)) {
				t.Errorf("request %d (%s %s) carries a secret (%s…) to the model", i, r.Method, r.Path, s[:8])
			}
		}
	}
	found := false
	for _, l := range readAudit(t, filepath.Join(state, "picket", "audit.log")) {
		found = found || l.Decision == "block" && l.Tool == "Read" && strings.HasSuffix(l.Path, ".env") && l.Agent == "claude"
	}
	if !found {
		t.Errorf("the audit log has no block line for Read .env: picket's own hook did not run unsandboxed")
	}
}

// runClaudeWith is runClaude with the given --allowedTools.
func runClaudeWith(t *testing.T, claude, dir string, env []string, model *Model, tools string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Do the scripted steps.",
		"--output-format", "json", "--permission-mode", "acceptEdits", "--allowedTools", tools)
	cmd.Dir = dir
	cmd.Env = append(env,
		"ANTHROPIC_BASE_URL="+model.URL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude -p: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}
