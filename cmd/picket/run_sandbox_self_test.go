//go:build linux

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"github.com/picketdev/picket/sandbox"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hashTree hashes every file under dirs, so a test can say nothing changed.
func hashTree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			out[p] = fmt.Sprintf("%x", sha256.Sum256(b))
			return nil
		})
	}
	return out
}

// TestRunSelfProtection runs picket itself from inside the sandbox: it can
// neither widen what the outer sandbox allows nor change grants, settings
// or any policy file.
func TestRunSelfProtection(t *testing.T) {
	w := newEscapeWorld(t)
	policy := filepath.Join(w.ws, "fence.jsonc")
	write(t, policy, `{"extends": "code"}`)
	write(t, filepath.Join(w.home, ".claude", "settings.json"), `{}`)
	state := filepath.Join(w.home, ".local", "state", "picket")
	write(t, filepath.Join(state, "grants", "keep"), "grant")
	evil := `{"filesystem": {"allowWrite": ["/"], "allowRead": ["/"]}}`
	before := hashTree(t, filepath.Join(w.home, ".claude"), state, policy, filepath.Join(w.home, ".config"))
	b := w.bin
	lines := map[string]string{
		"grants-revoke":       b + " grants revoke read /etc/hosts && test ! -e " + filepath.Join(state, "grants", "keep"),
		"rm-grants":           "rm -rf " + filepath.Join(state, "grants"),
		"install-claude":      b + " install claude --user",
		"init-force":          b + " init --force",
		"edit-policy":         "echo '" + evil + "' > fence.jsonc",
		"user-config":         "mkdir -p ~/.config/fence && echo '" + evil + "' > ~/.config/fence/fence.jsonc",
		"evil-config-read":    "echo '" + evil + "' > evil.jsonc && " + b + " run --config evil.jsonc -- cat ~/.ssh/id_rsa | grep SECRET",
		"evil-config-write":   b + " run --config evil.jsonc -- sh -c 'echo pwn > ../outside/pwn'",
		"nested-unsandboxed":  b + " run --unsandboxed -- cat ~/.ssh/id_rsa | grep SECRET",
		"landlock-exec-wider": b + " run --landlock-exec --write / -- sh -c 'echo pwn > ../outside/pwn2'",
	}
	got := w.attempts(t, nil, lines)
	for name := range lines {
		if got[name] {
			t.Errorf("from inside the sandbox, %q succeeded: %s", name, lines[name])
		}
	}
	after := hashTree(t, filepath.Join(w.home, ".claude"), state, policy, filepath.Join(w.home, ".config"))
	for f, h := range before {
		if after[f] != h {
			t.Errorf("%s changed from inside the sandbox", f)
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok && !strings.HasPrefix(f, filepath.Join(state, "sandbox")) && !strings.HasPrefix(f, filepath.Join(state, "valid")) && !strings.HasSuffix(f, ".log") {
			t.Errorf("%s appeared from inside the sandbox", f)
		}
	}
	for _, f := range []string{"outside/pwn", "outside/pwn2"} {
		if _, err := os.Stat(filepath.Join(w.base, f)); err == nil {
			t.Errorf("%s was written from inside the sandbox", f)
		}
	}
}

// TestRunRefuses: without bubblewrap, or without user namespaces, picket
// run exits 126 saying what is missing and how to fix it, and nothing runs.
// --unsandboxed runs the command and is audited.
func TestRunRefuses(t *testing.T) {
	w := newEscapeWorld(t)
	marker := filepath.Join(w.ws, "ran")
	cmd := []string{"run", "--", "/bin/sh", "-c", ": > " + marker}
	// As Claude Code runs a Bash command through the shell prefix, where
	// no one can add --unsandboxed.
	prefix := []string{"--shell-prefix", ": > " + marker}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"no-bwrap", []string{"PATH=/nonexistent"}, cmd, []string{"bubblewrap", "apt-get install bubblewrap", "did not run", "--unsandboxed"}},
		{"no-userns", []string{sandbox.ProbeEnv + "=exit 1"}, cmd, []string{"user namespaces", "did not run"}},
		{"prefix-no-bwrap", []string{"PATH=/nonexistent"}, prefix, []string{"apt-get install bubblewrap", "did not run", "picket uninstall claude"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := pk(t, w.bin, w.ws, w.env(tc.env...), tc.args...)
			if tc.args[0] == "--shell-prefix" && strings.Contains(stderr, "--unsandboxed") {
				t.Errorf("the shell prefix's hint offers --unsandboxed, which Claude Code cannot pass: %s", stderr)
			}
			if code != 126 {
				t.Errorf("picket run = %d, want 126; stderr: %s", code, stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not say %q: %s", s, stderr)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran")
			}
		})
	}
	t.Run("unsandboxed", func(t *testing.T) {
		code, _, stderr := pk(t, w.bin, w.ws, w.env("PATH=/nonexistent"), append([]string{"run", "--unsandboxed", "--session", "s1"}, cmd[2:]...)...)
		if code != 0 {
			t.Fatalf("picket run --unsandboxed = %d: %s", code, stderr)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Error("the command did not run")
		}
		if !strings.Contains(stderr, "picket: warning: --unsandboxed") {
			t.Errorf("stderr = %q, want a warning that the command ran unsandboxed", stderr)
		}
		e := lastAudit(t, w.home)
		if e["decision"] != "run" || e["session"] != "s1" || !strings.Contains(fmt.Sprint(e["reason"]), "unsandboxed") {
			t.Errorf("audit line = %v, want a run entry saying unsandboxed", e)
		}
	})
}

// TestRunLogsCommands: with picket.audit.logCommands, each command is one
// audit line with its command, cwd and exit status; the status passes
// through.
func TestRunLogsCommands(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "picket": {"audit": {"logCommands": true}}}`)
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--session", "s2", "--", "sh", "-c", "exit 7")
	if code != 7 {
		t.Fatalf("picket run = %d, want the command's 7: %s", code, stderr)
	}
	e := lastAudit(t, w.home)
	if e["decision"] != "run" || e["command"] != `sh -c "exit 7"` || e["cwd"] != w.ws || e["exit"] != float64(7) || e["session"] != "s2" {
		t.Errorf("audit line = %v", e)
	}
}

func lastAudit(t *testing.T, home string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(home, ".local", "state", "picket", "audit.log"))
	if err != nil {
		matches, _ := filepath.Glob(filepath.Join(home, ".local", "state", "picket", "*"))
		t.Fatalf("no audit log: %v (state dir: %v)", err, matches)
	}
	defer f.Close()
	var last map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		last = nil
		json.Unmarshal(sc.Bytes(), &last)
	}
	return last
}

// TestRunClaudeBashLine: Claude Code's Bash line sources a snapshot under
// ~/.claude and writes its cwd to /tmp/claude-*-cwd, which it reads from
// outside: --read keeps the snapshot readable under defaultDenyRead and
// --bind-tmp binds that file through the private /tmp. A symlink there is
// never followed.
func TestRunClaudeBashLine(t *testing.T) {
	w := newEscapeWorld(t)
	cfg := filepath.Join(w.base, "strict.jsonc")
	write(t, cfg, `{"extends": "code-strict"}`)
	snap := filepath.Join(w.home, ".claude", "shell-snapshots", "snapshot-bash-1.sh")
	write(t, snap, "greet() { echo hello; }")
	cwdFile := fmt.Sprintf("/tmp/claude-%d-cwd", os.Getpid())
	t.Cleanup(func() { os.Remove(cwdFile) })
	line := fmt.Sprintf("source %s && eval 'greet' < /dev/null && pwd -P >| %s", snap, cwdFile)
	code, stdout, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--config", cfg,
		"--read", "~/.claude/shell-snapshots", "--bind-tmp", "/tmp/claude-*-cwd", "--", "bash", "-c", line)
	if code != 0 || strings.TrimSpace(stdout) != "hello" {
		t.Fatalf("picket run = %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(cwdFile); err != nil || strings.TrimSpace(string(b)) != w.ws {
		t.Errorf("%s = %q, %v; want the workspace", cwdFile, b, err)
	}
	evil := fmt.Sprintf("/tmp/claude-%d-evil-cwd", os.Getpid())
	if err := os.Symlink(filepath.Join(w.home, ".bashrc"), evil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(evil) })
	pk(t, w.bin, w.ws, w.env(), "run", "--bind-tmp", "/tmp/claude-*-cwd", "--", "sh", "-c", "echo pwn >| "+evil)
	if b, _ := os.ReadFile(filepath.Join(w.home, ".bashrc")); string(b) != "# rc" {
		t.Errorf("a symlink in /tmp was bound through: .bashrc = %q", b)
	}
}

// TestRunUnwalkedTreesHiddenOnce: a tree of home the walk could not read
// within its budget is hidden (fail closed), said once on the command
// that first hides it, not again on every later one (stderr lands in the
// agent's tool result each time); later commands read on where it
// stopped until nothing is hidden, and what check denies stays hidden
// throughout. The workspace is read whole whatever the budget.
func TestRunUnwalkedTreesHiddenOnce(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "picket": {"sandbox": {"expandMaxEntries": 40}}}`)
	for i := range 30 {
		write(t, filepath.Join(w.home, "proj", fmt.Sprintf("d%02d", i), "notes.txt"), "notes")
		write(t, filepath.Join(w.ws, "src", fmt.Sprintf("d%02d", i), "code.go"), "package x")
	}
	write(t, filepath.Join(w.home, "proj", "d29", "deep", "id_rsa"), "SECRET-DEEP")
	write(t, filepath.Join(w.ws, "src", "d29", "id_rsa"), "SECRET-WS")
	const warning = "could not read in time"
	lines := map[string]string{
		"home notes": "cat " + filepath.Join(w.home, "proj", "d00", "notes.txt") + " " + filepath.Join(w.home, "proj", "d29", "notes.txt"),
		"home key":   "cat " + filepath.Join(w.home, "proj", "d29", "deep", "id_rsa"),
		"ws code":    "cat " + filepath.Join(w.ws, "src", "d00", "code.go") + " " + filepath.Join(w.ws, "src", "d29", "code.go"),
		"ws key":     "cat " + filepath.Join(w.ws, "src", "d29", "id_rsa"),
	}
	warned, whole := 0, false
	for i := range 12 {
		code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "true")
		if code != 0 {
			t.Fatalf("run %d: picket run = %d: %s", i+1, code, stderr)
		}
		if strings.Contains(stderr, warning) {
			warned++
			if i != 0 {
				t.Errorf("run %d warned again: %q", i+1, stderr)
			}
		}
		got := w.attempts(t, nil, lines)
		if got["home key"] || got["ws key"] {
			t.Errorf("run %d: a key check denies was readable: %v", i+1, got)
		}
		if !got["ws code"] {
			t.Errorf("run %d: the workspace's code was hidden: %v", i+1, got)
		}
		if got["home notes"] {
			if i == 0 {
				t.Fatalf("home was read whole on the first command: the budget does not bite, so this tests nothing")
			}
			t.Logf("home was read whole by command %d", 2*i+2)
			whole = true
			break
		}
	}
	if warned != 1 {
		t.Errorf("warned %d times, want once", warned)
	}
	if !whole {
		t.Errorf("home's notes were still hidden after 12 commands: the walk does not read on where it stopped")
	}
}

// TestRunBigWorkspaceKeepsHomeSecrets: a workspace with more entries than
// the walk may read must not leave the secrets that only an anchored glob
// names ("~/.ssh/id_*" in code) readable: the directories such patterns
// name are walked before the workspace.
func TestRunBigWorkspaceKeepsHomeSecrets(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "picket": {"sandbox": {"expandMaxEntries": 50}}}`)
	write(t, filepath.Join(w.home, ".ssh", "id_rsa_work"), "SECRET-WORK-KEY")
	for i := range 200 {
		write(t, filepath.Join(w.ws, "node_modules", fmt.Sprintf("m%03d.js", i)), "x")
	}
	got := w.attempts(t, nil, map[string]string{
		"work key": "cat " + filepath.Join(w.home, ".ssh", "id_rsa_work"),
		"id_rsa":   "cat " + filepath.Join(w.home, ".ssh", "id_rsa"),
		"readme":   "cat " + filepath.Join(w.ws, "main.go"),
	})
	for _, name := range []string{"work key", "id_rsa"} {
		if got[name] {
			t.Errorf("%s was readable inside picket run with the walk truncated", name)
		}
	}
	if !got["readme"] {
		t.Errorf("a workspace file was not readable: %v", got)
	}
}

// TestRunCaseInsensitiveGlobDir: with caseInsensitive, a glob whose
// literal directory is spelled in another case than the disk's still
// hides what check denies.
func TestRunCaseInsensitiveGlobDir(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": ["~/proj/*.dat", "~/proj/deep/*.dat"]}, "picket": {"caseInsensitive": true}}`)
	write(t, filepath.Join(w.home, "Proj", "b.dat"), "S")
	write(t, filepath.Join(w.home, "Proj", "Deep", "a.dat"), "S")
	got := w.attempts(t, nil, map[string]string{
		"b.dat": "cat " + filepath.Join(w.home, "Proj", "b.dat"),
		"a.dat": "cat " + filepath.Join(w.home, "Proj", "Deep", "a.dat"),
	})
	for name, ok := range got {
		if ok {
			t.Errorf("%s was readable inside picket run, which check denies", name)
		}
	}
}

// TestRunSessionModeAndAgent: --mode holds the shell to a session's
// switched mode (read-only: nothing writable but /tmp), and --agent names
// the agent in the audit lines.
func TestRunSessionModeAndAgent(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "picket": {"audit": {"logCommands": true}}}`)
	got := w.attempts(t, []string{"--mode", "read-only", "--agent", "pi", "--session", "s-ro"}, map[string]string{
		"workspace write": "echo x > " + filepath.Join(w.ws, "ro.txt"),
		"tmp write":       "echo x > /tmp/ro.txt",
	})
	if got["workspace write"] || !got["tmp write"] {
		t.Errorf("read-only session: got %v, want only /tmp writable", got)
	}
	if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--mode", "sideways", "--", "true"); code != 2 || !strings.Contains(stderr, "unknown mode") {
		t.Errorf("run --mode sideways = %d %q, want a usage error", code, stderr)
	}
	log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "picket", "audit.log"))
	if !strings.Contains(string(log), `"session":"s-ro","agent":"pi","decision":"run"`) {
		t.Errorf("audit log lacks the run line with agent pi:\n%s", log)
	}
}
