package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/claude"
	"github.com/picketdev/picket/hook/codex"
	"github.com/picketdev/picket/hook/pi"
)

// TestCanaryEveryAgent holds every registered agent to what doctor needs:
// a canary event (its own, or one of the shared shapes) that its Decode
// and Targets read as a write of the canary path. An agent package that
// fails here gives hook.Agent.Canary.
func TestCanaryEveryAgent(t *testing.T) {
	dir := t.TempDir()
	for _, a := range agents.All {
		if _, call, err := Canary(a, dir, CanaryPath(dir)); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		} else if call.Tool == "" {
			t.Errorf("%s: the canary names no tool", a.Name)
		}
	}
}

// TestCanaryShared: without a Canary of its own, an agent whose hook
// speaks Claude Code's shape gets one; one whose events are another shape
// gets none, rather than an event that means something else.
func TestCanaryShared(t *testing.T) {
	dir := t.TempDir()
	path := CanaryPath(dir)
	a := claude.Agent
	a.Canary = nil
	ev, call, err := Canary(&a, dir, path)
	if err != nil || call.Tool == "" || !bytes.Contains(ev, []byte(`"hook_event_name":"PreToolUse"`)) {
		t.Errorf("Claude Code's shape: %s, %+v, %v", ev, call, err)
	}
	for _, b := range []hook.Agent{pi.Agent, codex.Agent} {
		b.Canary = nil
		if ev, _, err := Canary(&b, dir, path); err == nil {
			t.Errorf("%s without a canary: got %s, want none", b.Name, ev)
		}
	}
	// A canary that is not a write of the path is a bug, never a check.
	b := claude.Agent
	b.Canary = func(dir, _ string) []byte { return claude.Agent.Canary(dir, filepath.Join(dir, "README.md")) }
	if _, _, err := Canary(&b, dir, path); err == nil {
		t.Errorf("a canary writing another path was taken")
	}
}

// TestBlocked reads command hooks' answers: a block in the agent's own
// schema with picket's reason passes; an allow, another exit status,
// stdout an agent cannot read, or the wrapper's error does not.
func TestBlocked(t *testing.T) {
	reason := "picket: blocked Write /p/.git/hooks/pre-commit\n{\"layer\":\"mandatory\"}"
	for _, tt := range []struct {
		name  string
		agent *hook.Agent
		r     hook.Reply
		ok    string // the reason line doctor reports; "" for a problem
	}{
		{"claude deny", &claude.Agent, claude.Agent.Reply(hook.Answer{Deny: true, Reason: reason}), "picket: blocked Write /p/.git/hooks/pre-commit"},
		{"claude allow", &claude.Agent, hook.Reply{}, ""},
		{"claude deny, exit 1", &claude.Agent, hook.Reply{Stdout: claude.Deny(reason), Exit: 1}, ""},
		{"claude deny after a line of noise", &claude.Agent, hook.Reply{Stdout: append([]byte("welcome\n"), claude.Deny(reason)...)}, ""},
		{"codex deny", &codex.Agent, codex.Agent.Reply(hook.Answer{Deny: true, Reason: reason}), "picket: blocked Write /p/.git/hooks/pre-commit"},
		{"codex deny, profile noise on stdout", &codex.Agent, hook.Reply{Stdout: []byte("welcome\n"), Stderr: []byte(reason), Exit: 2}, "picket: blocked Write /p/.git/hooks/pre-commit"},
		{"codex exit 1", &codex.Agent, hook.Reply{Stderr: []byte(reason), Exit: 1}, ""},
		{"codex wrapper", &codex.Agent, hook.Reply{Stderr: []byte("picket: error: the picket hook failed (exit 127), so the call is blocked; run picket doctor\n"), Exit: 2}, ""},
		{"codex exit 2, no reason", &codex.Agent, hook.Reply{Exit: 2}, ""},
	} {
		got, err := blocked(tt.agent, tt.r)
		if got != tt.ok || (err == nil) != (tt.ok != "") {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.ok)
		}
	}
}

// TestCheckExe: the wiring's executable is this picket when it is the
// same file or the same bytes; a missing, non-executable or different
// one is a problem.
func TestCheckExe(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "picket")
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("picket", "build 1", 0o755)
	link := filepath.Join(dir, "link")
	os.Symlink(self, link)
	for _, tt := range []struct {
		exe   string
		level Level
		text  string
	}{
		{self, OK, "this picket"},
		{link, OK, "this picket"},
		{write("copy", "build 1", 0o755), OK, "the same build"},
		{write("other", "build 2", 0o755), Problem, "another picket"},
		{write("plain", "build 1", 0o644), Problem, "not an executable"},
		{filepath.Join(dir, "gone"), Problem, "not there"},
		{"", Problem, "no picket executable"},
		{"picket", Problem, "no picket executable"},
	} {
		f := checkExe(&codex.Agent, hook.Wiring{Scope: "user", Exe: tt.exe}, self)
		if f.Level != tt.level || !strings.Contains(f.Text, tt.text) || (f.Level == Problem && !strings.Contains(f.Fix, "picket install codex --user")) {
			t.Errorf("%s: %+v, want level %d and %q", tt.exe, f, tt.level, tt.text)
		}
	}
}

// TestCheckNothingWired: an agent without Wired is not checked, one with
// nothing wired is not installed, and with no agent installed doctor
// fails, saying what to do.
func TestCheckNothingWired(t *testing.T) {
	none := hook.Agent{Name: "none", Title: "None", Wired: func(hook.InstallOptions) ([]hook.Wiring, error) { return nil, nil }}
	blind := hook.Agent{Name: "blind", Title: "Blind"}
	var out bytes.Buffer
	n := Write(&out, Check(t.Context(), Options{Agents: []*hook.Agent{&none, &blind}}))
	want := "None (none):\n  note: not installed (run 'picket install none' to fence it)\n" +
		"Blind (blind):\n  note: not checked: picket doctor cannot read Blind's wiring yet\n" +
		"problem: picket is installed in no agent, so no agent is fenced\n  fix: run 'picket install AGENT' (none, blind)\n" +
		"picket doctor: 1 problem\n"
	if n != 1 || out.String() != want {
		t.Errorf("%d problems, output:\n%s\nwant:\n%s", n, out.String(), want)
	}
}

// TestCheckCanary runs hook commands as an agent would: one that blocks
// in the agent's schema passes; one that hangs past the agent's hook
// timeout, exits 1, or cannot be started does not.
func TestCheckCanary(t *testing.T) {
	dir := t.TempDir()
	a := claude.Agent
	a.Hook = &hook.CommandHook{Timeout: time.Second}
	deny := string(claude.Deny("picket: blocked Write " + CanaryPath(dir) + "\n{}"))
	for _, tt := range []struct {
		name, script string
		level        Level
		text         string
	}{
		{"blocks", "cat >/dev/null; printf '%s' '" + deny + "'", OK, "is blocked: picket: blocked Write " + CanaryPath(dir)},
		{"hangs", "cat >/dev/null; sleep 30", Problem, "not blocked: no answer within 1s"},
		{"exit 1", "cat >/dev/null; echo oops >&2; exit 1", Problem, "not blocked: the hook exited 1"},
		{"missing", "", Problem, "picket did not judge it: cannot run"},
	} {
		run := []string{"/bin/sh", "-c", tt.script}
		if tt.script == "" {
			run = []string{filepath.Join(dir, "gone")}
		}
		o := Options{InstallOptions: hook.InstallOptions{Dir: dir, Env: os.Environ()}, Agents: []*hook.Agent{&a}}
		f := checkCanary(t.Context(), o, &a, hook.Wiring{Scope: "user", Run: run})
		if f.Level != tt.level || !strings.Contains(f.Text, tt.text) {
			t.Errorf("%s: %+v, want level %d and %q", tt.name, f, tt.level, tt.text)
		}
	}
}
