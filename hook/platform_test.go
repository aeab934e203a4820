package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
)

// TestShellSandboxedByPlatform guards against an agent's shell being
// wired to picket run where picket run cannot build its sandbox: on
// macOS `picket install claude` set CLAUDE_CODE_SHELL_PREFIX and every
// Bash command exited 126. The platform is a plain value: on Linux a
// shell command is wrapped and install says nothing; elsewhere Line
// wraps nothing, the pipeline leaves the command as the model wrote it
// (unfenced, as install said, and not denied), and install warns that
// the shell is not fenced while the file tools are.
func TestShellSandboxedByPlatform(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	os.MkdirAll(proj, 0o755)
	env := decide.EnvFromOS(func(k string) string { return map[string]string{"HOME": filepath.Join(base, "home")}[k] }, proj)
	cmd, _ := json.Marshal("make test")
	for _, tc := range []struct {
		goos string
		want bool
	}{
		{"linux", true}, {"darwin", false}, {"freebsd", false}, {"openbsd", false}, {"windows", false},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			if got := ShellSandboxed(tc.goos); got != tc.want {
				t.Errorf("ShellSandboxed(%q) = %v, want %v", tc.goos, got, tc.want)
			}

			line, err := ShellRun{Exe: "/opt/picket", GOOS: tc.goos}.Line(proj, "bash", "-c", "make test")
			if wrapped := err == nil && strings.HasPrefix(line, "/opt/picket run "); wrapped != tc.want || !tc.want && !errors.Is(err, ErrShellUnsandboxed) {
				t.Errorf("ShellRun.Line on %s = %q, %v; want wrapped: %v", tc.goos, line, err, tc.want)
			}

			sink := &memAudit{}
			p := &Pipeline{
				Agent:    &rewriteAgent,
				Policies: func(string) (*decide.Loaded, error) { return LoadPolicy(env) },
				Grants:   grants.Store{Dir: filepath.Join(base, "grants")},
				StateDir: filepath.Join(base, "state"),
				Audit:    sink,
				Headless: true,
				Exe:      "/opt/picket",
				GOOS:     tc.goos,
			}
			a := p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "shell", Input: map[string]json.RawMessage{"cmd": cmd}})
			if a.Deny || (a.Input != nil) != tc.want || len(sink.lines) != 0 {
				t.Errorf("shell call on %s: %+v, audit %v; want allowed, rewritten: %v", tc.goos, a, sink.lines, tc.want)
			}

			var warned []string
			o := InstallOptions{GOOS: tc.goos, Getenv: func(string) string { return "" },
				Warn: func(f string, args ...any) { warned = append(warned, fmt.Sprintf(f, args...)) }}
			if got := o.ShellSandboxed("Claude Code's Bash commands"); got != tc.want {
				t.Errorf("InstallOptions{GOOS: %q}.ShellSandboxed = %v, want %v", tc.goos, got, tc.want)
			}
			want := "Claude Code's Bash commands are not fenced on " + tc.goos + ": picket's shell sandbox needs Linux, so install leaves them to run as they would without picket (the file tools are still fenced)"
			if tc.want && len(warned) != 0 || !tc.want && (len(warned) != 1 || warned[0] != want) {
				t.Errorf("install on %s warned %q, want %q", tc.goos, warned, map[bool]string{false: want}[tc.want])
			}
		})
	}
}
