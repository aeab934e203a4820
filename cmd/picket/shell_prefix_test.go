package main

import (
	"bytes"
	"github.com/picketdev/picket/sandbox"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook/claude"
)

// shellPrefixWorld is a workspace with a fake ~/.ssh key and the picket
// binary, as Claude Code would run `picket --shell-prefix LINE` there.
type shellPrefixWorld struct {
	bin, home, ws, key string
	env                []string
}

func newShellPrefixWorld(t *testing.T) *shellPrefixWorld {
	t.Helper()
	dir := sandboxScratch(t)
	w := &shellPrefixWorld{bin: picketBin(t, dir), home: filepath.Join(dir, "home"), ws: filepath.Join(dir, "ws")}
	w.key = "ssh-key-" + filepath.Base(dir)
	write(t, filepath.Join(w.home, ".ssh", "id_rsa"), w.key+"\n")
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "picket": {"blocklist": [".env"]}}`)
	write(t, filepath.Join(w.ws, ".env"), "SECRET=1\n")
	write(t, filepath.Join(w.ws, ".git", "HEAD"), "ref: refs/heads/main\n") // its own root
	w.env = sandboxEnv(w.home, w.ws)
	return w
}

// prefix runs `picket --shell-prefix line` in the workspace with stdin.
func (w *shellPrefixWorld) prefix(t *testing.T, line, stdin string, extraEnv ...string) (int, string, string) {
	t.Helper()
	return pkStdin(t, w.bin, w.ws, append(w.env, extraEnv...), stdin, "--shell-prefix", line)
}

func pkStdin(t *testing.T, bin, cwd string, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir, c.Env, c.Stdin = cwd, env, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("picket %q: %v", args, err)
		}
	}
	return c.ProcessState.ExitCode(), out.String(), errb.String()
}

func TestShellPrefixBashLine(t *testing.T) {
	requireBwrap(t)
	w := newShellPrefixWorld(t)
	cwdFile := filepath.Join("/tmp", "claude-"+filepath.Base(w.ws)+"-test-cwd")
	t.Cleanup(func() { os.Remove(cwdFile) })
	// The shape Claude Code 2.1.197 hands the prefix for a Bash command.
	wrap := func(cmd string) string {
		return "source " + filepath.Join(w.home, ".claude", "shell-snapshots", "snapshot-bash-1-x.sh") +
			" 2>/dev/null || true && eval '" + strings.ReplaceAll(cmd, "'", `'"'"'`) + "' < /dev/null && pwd -P >| " + cwdFile
	}

	code, out, errb := w.prefix(t, wrap("cat ~/.ssh/id_rsa"), "")
	if code == 0 || strings.Contains(out+errb, w.key) {
		t.Errorf("cat ~/.ssh/id_rsa through the prefix: exit %d, output %q %q; want a failure without the key", code, out, errb)
	}
	code, _, errb = w.prefix(t, wrap("touch ../outside"), "")
	if _, err := os.Stat(filepath.Join(filepath.Dir(w.ws), "outside")); code == 0 || err == nil {
		t.Errorf("touch ../outside through the prefix: exit %d (%s), want it to fail and create nothing", code, errb)
	}
	code, out, errb = w.prefix(t, wrap("ls; echo hi > inside.txt"), "")
	if code != 0 || !strings.Contains(out, "fence.jsonc") {
		t.Errorf("ls through the prefix: exit %d, stdout %q, stderr %q; want the listing", code, out, errb)
	}
	if got, _ := os.ReadFile(filepath.Join(w.ws, "inside.txt")); string(got) != "hi\n" {
		t.Errorf("echo hi > inside.txt through the prefix: file holds %q", got)
	}
	// Claude Code reads the cwd file from outside: it lands on the host.
	if got, _ := os.ReadFile(cwdFile); strings.TrimSpace(string(got)) != w.ws {
		t.Errorf("%s after the command = %q, want %s", cwdFile, got, w.ws)
	}
	// The status passes through.
	if code, _, _ := w.prefix(t, "exit 7", ""); code != 7 {
		t.Errorf("exit 7 through the prefix: exit %d, want 7", code)
	}
}

// TestShellPrefixOwnHook: the exact hook command install writes runs
// unsandboxed (it writes the audit log, which the sandbox keeps read-only);
// anything else, the hook command with more after it included, is fenced.
func TestShellPrefixOwnHook(t *testing.T) {
	requireBwrap(t)
	w := newShellPrefixWorld(t)
	own := claude.HookCommand(w.bin)
	event := `{"session_id":"s1","cwd":"` + w.ws + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + w.ws + `/.env"},"tool_use_id":"t1"}`
	audit := filepath.Join(w.home, ".local", "state", "picket", "audit.log")

	code, out, errb := w.prefix(t, own, event, "CLAUDE_PROJECT_DIR="+w.ws, "CI=1")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("own hook through the prefix: exit %d, stdout %q, stderr %q; want a deny", code, out, errb)
	}
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), `"decision":"block"`) {
		t.Errorf("own hook through the prefix wrote no audit block line (err %v): %s", err, b)
	}

	pwned := filepath.Join(w.home, ".local", "state", "picket", "pwned")
	for _, near := range []string{own, " " + own, own + " --headless"} {
		line := near + " </dev/null; echo x > " + pwned
		code, out, _ := w.prefix(t, line, "", "CLAUDE_PROJECT_DIR="+w.ws)
		if _, err := os.Stat(pwned); err == nil {
			t.Errorf("prefix line %q ran unsandboxed: it wrote %s (exit %d, %q)", line, pwned, code, out)
			os.Remove(pwned)
		}
	}
}

// TestShellPrefixNoSandbox: without user namespaces a Bash line fails with
// picket run's 126 and message, and runs nothing; picket's own hook still
// runs.
func TestShellPrefixNoSandbox(t *testing.T) {
	requireBwrap(t)
	w := newShellPrefixWorld(t)
	noUserns := sandbox.ProbeEnv + "=false"
	marker := filepath.Join(w.ws, "ran")
	code, _, errb := w.prefix(t, "touch "+marker, "", noUserns)
	if code != exitUnavailable || !strings.Contains(errb, "did not run") {
		t.Errorf("Bash line without a sandbox: exit %d, stderr %q; want 126 and picket run's message", code, errb)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("Bash line without a sandbox ran unfenced: %s exists", marker)
	}
	event := `{"session_id":"s1","cwd":"` + w.ws + `","hook_event_name":"SessionStart","source":"startup"}`
	if code, _, errb := w.prefix(t, claude.HookCommand(w.bin), event, noUserns, "CLAUDE_PROJECT_DIR="+w.ws); code != 0 {
		t.Errorf("own hook without a sandbox: exit %d, stderr %q; want 0", code, errb)
	}
}

func TestShellPrefixArguments(t *testing.T) {
	for _, args := range [][]string{{"shell-prefix"}, {"--shell-prefix", "a", "b"}} {
		r := runInstallCLI(nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "exactly one argument") {
			t.Errorf("picket %q: exit %d, stderr %q; want 2 and a usage error", args, r.code, r.stderr)
		}
	}
}

// TestInstallClaudeShellPrefix: install writes the prefix for the same
// executable as the hook command, --print shows it, uninstall removes it.
func TestInstallClaudeShellPrefix(t *testing.T) {
	project := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "CLAUDE_PROJECT_DIR=" + project}
	r := runInstallCLI(env, "install", "claude", "--print", "--exe", "/opt/picket/picket")
	if r.code != 0 || !strings.Contains(r.stdout, `"CLAUDE_CODE_SHELL_PREFIX": "/opt/picket/picket --shell-prefix"`) {
		t.Errorf("install --print: exit %d, stdout:\n%s\nwant env.CLAUDE_CODE_SHELL_PREFIX", r.code, r.stdout)
	}
	path := filepath.Join(project, ".claude", "settings.json")
	// The person's own (empty) settings, which uninstall keeps; a file
	// install created goes (TestUninstallRemovesWhatInstallCreated).
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{}\n"), 0o644)
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), claude.ShellPrefix("/opt/picket/picket")) {
		t.Errorf("install wrote no shell prefix:\n%s", b)
	}
	if r := runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("uninstall: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "{}\n" {
		t.Errorf("after uninstall the settings hold:\n%s", b)
	}
}
