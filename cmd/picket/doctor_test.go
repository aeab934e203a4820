package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doctorWorld is a person's home and a git project with a policy, and
// the built picket, run as the person would run it.
type doctorWorld struct {
	t                  *testing.T
	bin, home, project string
	env                []string
}

func newDoctorWorld(t *testing.T) *doctorWorld {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &doctorWorld{t: t, bin: buildPicket(t), home: filepath.Join(root, "home"), project: filepath.Join(root, "project")}
	for _, d := range []string{w.home, w.project} {
		os.MkdirAll(d, 0o755)
	}
	w.env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh",
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config")}
	if out, err := exec.Command("git", "init", "-q", w.project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(w.project, "fence.jsonc"), []byte(`{"extends": "code"}`), 0o644)
	return w
}

// picket runs the built picket in the project and returns its exit
// status and output.
func (w *doctorWorld) picket(args ...string) (int, string) {
	w.t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.project, w.env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return code, string(out)
}

func (w *doctorWorld) must(args ...string) {
	w.t.Helper()
	if code, out := w.picket(args...); code != 0 {
		w.t.Fatalf("picket %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
}

// doctor runs picket doctor and checks its exit status and that its
// output holds every line of want.
func (w *doctorWorld) doctor(what string, wantCode int, want ...string) {
	w.t.Helper()
	code, out := w.picket("doctor")
	if code != wantCode {
		w.t.Errorf("%s: picket doctor exited %d, want %d\n%s", what, code, wantCode, out)
	}
	for _, l := range want {
		l = strings.NewReplacer("PROJECT", w.project, "HOME", w.home, "BIN", w.bin).Replace(l)
		if !strings.Contains(out, l) {
			w.t.Errorf("%s: picket doctor's output lacks %q:\n%s", what, l, out)
		}
	}
}

// TestDoctor: picket doctor on a working install of Claude Code, Pi and
// Codex (every canary blocked, Codex's trust, its best-effort shell), on
// Claude Code's hooks turned off, on an untrusted Codex hook, on a stale executable path and on an install
// of a program that is not picket (a hook that lets everything through),
// and on an install removed again.
func TestDoctor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	w := newDoctorWorld(t)
	canary := "PROJECT/.git/hooks/pre-commit is blocked: picket: blocked "
	w.doctor("nothing installed", 1, "note: not installed (run 'picket install codex' to fence it)",
		"problem: picket is installed in no agent", "picket doctor: 1 problem")

	w.must("install", "claude")
	w.must("install", "pi")
	w.must("install", "codex", "--trust")
	w.doctor("a working install", 0,
		"Claude Code (claude):\n  ok: project wiring in PROJECT/.claude/settings.json\n  ok: it runs this picket, BIN\n  ok: the canary Write of "+canary+"Write PROJECT/.git/hooks/pre-commit\n",
		"Pi (pi):\n  ok: user wiring in HOME/.pi/agent/extensions/picket/index.ts\n  ok: it runs this picket, BIN\n  ok: the canary write of "+canary+"write",
		"Codex (codex):\n  ok: user wiring in HOME/.codex/hooks.json\n  ok: it runs this picket, BIN\n  ok: the canary apply_patch of "+canary+"apply_patch",
		"ok: Claude Code runs it: no settings turn hooks off",
		"ok: Codex runs it: picket's hook in HOME/.codex/hooks.json is trusted",
		"note: Codex's shell commands are judged by their words before they run, which is best effort",
		"picket doctor: no problems")

	local := filepath.Join(w.project, ".claude", "settings.local.json")
	os.WriteFile(local, []byte(`{"disableAllHooks": true}`), 0o644)
	w.doctor("Claude Code's hooks turned off", 1, "problem: Claude Code does not run it: disableAllHooks is true in "+local)
	os.Remove(local)

	w.must("uninstall", "codex")
	w.must("install", "codex")
	w.doctor("an untrusted Codex hook", 1, "problem: Codex does not run it:", "/hooks", "picket doctor: 1 problem")
	w.must("uninstall", "codex")

	// Claude Code's wiring runs a copy of picket that is then removed.
	stale := filepath.Join(filepath.Dir(w.bin), "old", "picket")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	if out, err := exec.Command("cp", w.bin, stale).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	w.must("uninstall", "claude")
	w.must("install", "claude", "--exe", stale)
	w.doctor("a copy of this build", 0, "ok: it runs "+stale+", the same build as this picket (BIN)")
	os.Remove(stale)
	w.doctor("a stale executable path", 1,
		"problem: it runs "+stale+", which is not there (no such file or directory): a stale install\n    fix: run 'picket install claude --project' with the picket you use",
		"problem: the canary Write of PROJECT/.git/hooks/pre-commit: not blocked: the hook exited 127, where picket's block for Claude Code exits 0")

	// A hook that answers nothing lets every call through.
	w.must("uninstall", "claude")
	w.must("install", "claude", "--exe", "/bin/true")
	w.doctor("a hook that is not picket", 1, "true, another picket than this one (BIN)",
		"problem: the canary Write of PROJECT/.git/hooks/pre-commit: not blocked: the hook let it through (exit 0, no answer)")

	w.must("uninstall", "claude")
	w.must("uninstall", "pi")
	w.doctor("a removed install", 1, "Claude Code (claude):\n  note: not installed", "Pi (pi):\n  note: not installed",
		"Codex (codex):\n  note: not installed", "problem: picket is installed in no agent")
}
