package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook/claude"
	"github.com/picketdev/picket/sandbox"
)

// runOn runs the CLI in-process as it would run on the operating system
// goos: the shell sandbox's platform decision is a plain value.
func runOn(goos string, env []string, args ...string) installResult {
	var out, errb bytes.Buffer
	c := &cli{env: env, stdin: strings.NewReader(""), stdout: &out, stderr: &errb, goos: goos}
	code := commands[args[0]](c, args[1:])
	return installResult{code, out.String(), errb.String()}
}

// TestInstallClaudeWithoutSandbox guards against `picket install claude`
// on macOS setting CLAUDE_CODE_SHELL_PREFIX, after which every Bash
// command exited 126 (the sandbox needs Linux): there install writes the
// hooks and deny rules, leaves the prefix out, takes out the one an
// earlier install set (not one the person set), and says that shell
// commands are not fenced; picket show says the same.
func TestInstallClaudeWithoutSandbox(t *testing.T) {
	const exe = "/opt/picket/picket"
	prefix := claude.ShellPrefix(exe)
	for _, goos := range []string{"darwin", "freebsd", "windows"} {
		t.Run(goos, func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "CLAUDE_PROJECT_DIR=" + project, "PATH=" + os.Getenv("PATH")}
			path := filepath.Join(project, ".claude", "settings.json")
			r := runOn(goos, env, "install", "claude", "--exe", exe)
			b, _ := os.ReadFile(path)
			if r.code != 0 || !bytes.Contains(b, []byte(claude.HookCommand(exe))) || bytes.Contains(b, []byte(claude.ShellPrefixEnv)) {
				t.Fatalf("install on %s: exit %d, settings:\n%s\nwant the hooks and no shell prefix (%s)", goos, r.code, b, r.stderr)
			}
			want := "picket: warning: Claude Code's Bash commands are not fenced on " + goos + ": picket's shell sandbox needs Linux, so install leaves them to run as they would without picket (the file tools are still fenced)"
			if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "shell prefix in") {
				t.Errorf("install on %s said:\n%s\nwant %q", goos, r.stderr, want)
			}
			if !strings.Contains(string(b), `"Edit(`) {
				t.Errorf("install on %s wrote no deny rules:\n%s", goos, b)
			}

			// An earlier install (on Linux, or an older picket) set it.
			if r := runOn("linux", env, "install", "claude", "--exe", exe); r.code != 0 {
				t.Fatalf("install on linux: %s", r.stderr)
			}
			if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(prefix)) {
				t.Fatalf("install on linux set no prefix:\n%s", b)
			}
			runOn(goos, env, "install", "claude", "--exe", exe)
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(claude.ShellPrefixEnv)) {
				t.Errorf("install on %s left the earlier install's prefix:\n%s", goos, b)
			}

			r = runOn(goos, env, "show", "--cwd", project)
			if want := sandbox.UnsupportedLine(goos); r.code != 0 || !strings.Contains(r.stdout, want) {
				t.Errorf("show on %s:\n%s\nwant %q", goos, r.stdout, want)
			}
		})
	}

	// One the person set before any install stays, as on Linux, whether
	// the first install was on Linux or not, and uninstall leaves it.
	mine := `{"env": {"CLAUDE_CODE_SHELL_PREFIX": "` + prefix + `"}}`
	for _, first := range []string{"linux", "darwin"} {
		project, home := t.TempDir(), t.TempDir()
		env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "CLAUDE_PROJECT_DIR=" + project}
		path := filepath.Join(project, ".claude", "settings.json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(mine), 0o644)
		runOn(first, env, "install", "claude", "--exe", exe) // records that the person had it
		runOn("darwin", env, "install", "claude", "--exe", exe)
		if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(prefix)) || !bytes.Contains(b, []byte(claude.HookCommand(exe))) {
			t.Errorf("install on %s, then on darwin: took out the prefix the person had set, or wrote no hooks:\n%s", first, b)
		}
		runOn("darwin", env, "uninstall", "claude", "--exe", exe)
		if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(prefix)) || bytes.Contains(b, []byte(claude.HookCommand(exe))) {
			t.Errorf("uninstall on darwin after install on %s: want the person's prefix kept and the hooks gone:\n%s", first, b)
		}
	}
}

// TestInstallClaudeIgnoredTmpDir: Claude Code writes its cwd file after
// every Bash command in its temp dir; where that is a TMPDIR picket does
// not take (below /var/lib, as some CI runners set it), the sandbox keeps
// it read-only and every Bash command ends in an error. install says so;
// with a TMPDIR picket takes, or none, it says nothing of it.
func TestInstallClaudeIgnoredTmpDir(t *testing.T) {
	const exe = "/opt/picket/picket"
	mine := t.TempDir()
	for tmpdir, warn := range map[string]bool{"/var/lib": true, "": false, "/tmp": false, mine: false} {
		project, home := t.TempDir(), t.TempDir()
		env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "CLAUDE_PROJECT_DIR=" + project, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmpdir}
		r := runOn("linux", env, "install", "claude", "--exe", exe)
		want := "picket: warning: Claude Code writes its cwd file after every Bash command in its temp dir /var/lib, which picket does not take as a temp dir (/var/lib is in /var, a system directory), so the shell sandbox keeps it read-only and every Bash command will end in an error"
		if r.code != 0 || strings.Contains(r.stderr, want) != warn || !warn && strings.Contains(r.stderr, "cwd file") {
			t.Errorf("install with TMPDIR=%q: exit %d, said:\n%s\nwant the warning: %v", tmpdir, r.code, r.stderr, warn)
		}
	}
}
