package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	codexhook "github.com/picketdev/picket/hook/codex"
)

// The Codex end-to-end tests: the real pinned binary, headless, against
// the scripted Responses server on 127.0.0.1, with picket installed by
// `picket install codex --trust` (the way docs/agents/codex.md tells a
// person without a TUI to trust it) and no bypass of Codex's hook trust.
// Several calls are scripted per run; the runs go in parallel.

// codexSecret is the .env secret: it must reach the model in no request.
// The model searches for its first word (codexSecretWord), which finds
// its line, so its own call carries that word but not the secret.
const (
	codexSecret     = codexSecretWord + "-c0d3x-7f3a"
	codexSecretWord = "SECRETVALUE"
)

// newCodexPicketWorld is a world (picket built, a git project with
// README.md, .env and the blocklist policy) with Codex's home in it,
// config.toml pointing Codex at model, and picket installed and trusted.
func newCodexPicketWorld(t *testing.T, model *Model) *world {
	t.Helper()
	w := newWorld(t, "CODEX_HOME="+filepath.Join(scratchHome(t), ".codex"), "PICKET_E2E_KEY=test", "SHELL=/bin/bash", "TERM=dumb", "LANG=C.UTF-8")
	writeFile(t, filepath.Join(w.project, ".env"), "SECRET="+codexSecret+"\n")
	writeFile(t, filepath.Join(w.project, "sub", "deep.txt"), "deep file in sub\n")
	writeFile(t, filepath.Join(codexHomeOf(w), "config.toml"), codexConfig(model, ""))
	out := mustRun(t, w.project, w.env, w.picket, "install", "codex", "--trust")
	t.Logf("picket install codex --trust:\n%s", out)
	return w
}

// scratchHome is where CODEX_HOME goes: beside the world's home, outside
// the system temp dir (Codex warns about a home in /tmp).
func scratchHome(t *testing.T) string {
	t.Helper()
	return scratch(t)
}

func codexHomeOf(w *world) string {
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			return v
		}
	}
	return ""
}

// codexExec runs `codex exec` in the project, headless, with Codex's
// own approvals and sandbox off (the test is about picket's hook) and no
// bypass of hook trust: picket's hook runs because install trusted it.
func codexExec(t *testing.T, w *world, codex string) (stdout, stderr []byte) {
	t.Helper()
	pw := &probeWorld{env: w.env}
	stdout, stderr, took, err := pw.tryRun(w.project, nil, codex, "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-approvals-and-sandbox", "Do the scripted steps.")
	t.Logf("codex exec took %v", took)
	if err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(string(stdout), `"text":"DONE"`) {
		t.Errorf("codex exec did not finish the script:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	return stdout, stderr
}

// codexBlocked asserts that turn k was blocked by picket, with want (the
// first line of picket's reason) reaching the model.
func codexBlocked(t *testing.T, model *Model, k int, what, want string) {
	t.Helper()
	r, ok := model.Results()[ToolUseID(k)]
	if !ok || !strings.Contains(r.Text, want) || strings.Contains(r.Text, codexSecret) {
		t.Errorf("%s: the model got %q (present %v), want picket's block %q", what, r.Text, ok, want)
	}
}

const codexAddPatch = "*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch\n"

func addPatch(path string) string { return strings.Replace(codexAddPatch, "%s", path, 1) }

// TestCodex: with picket installed and trusted, a read of the
// blocklisted .env through the shell (in the session's directory, and
// from a subdirectory the model chose as workdir) is blocked and picket's
// reason reaches the model; a search for the secret's value is blocked; a
// patch writing outside the workspace, or a mandatory path (Codex's own
// hooks.json, a git hook, through apply_patch and through the shell's
// apply_patch), is blocked; a read and an edit inside the workspace pass.
// The secret is in no request Codex sent, and the audit lines name codex.
func TestCodex(t *testing.T) {
	t.Parallel()
	codex, version := AgentBinary(t, "codex")
	script := []Turn{
		0: codexShell("cat .env", ""),
		1: codexShell("cat README.md", ""),
		2: codexShell("rg "+codexSecretWord, ""),
		3: codexShell("cat ../.env", "sub"),
		4: CustomToolUse("apply_patch", "*** Begin Patch\n*** Update File: README.md\n@@\n-hello from the e2e readme\n+hello, edited by codex\n*** End Patch\n"),
		5: CustomToolUse("apply_patch", addPatch(".codex/hooks.json")),
		6: CustomToolUse("apply_patch", addPatch(".git/hooks/pre-commit")),
		7: codexShell("apply_patch <<'EOF'\n"+addPatch(".git/hooks/post-commit")+"EOF", ""),
		8: codexShell("cat sub/deep.txt", ""),
		// Filled in below: a path outside the workspace.
		9:  {},
		10: Text("DONE"),
	}
	model, err := StartResponses(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w := newCodexPicketWorld(t, model)
	outside := filepath.Join(w.home, "outside.txt")
	script[9] = CustomToolUse("apply_patch", addPatch(outside))
	model.script = script
	hooksBefore := readFileString(t, filepath.Join(codexHomeOf(w), "hooks.json"))
	codexDoctor(t, w, w.picket, 0, "ok: the canary apply_patch of "+filepath.Join(w.project, ".git", "hooks", "pre-commit")+" is blocked",
		"ok: Codex runs it: picket's hook in "+filepath.Join(codexHomeOf(w), "hooks.json")+" is trusted", "picket doctor: no problems")

	codexExec(t, w, codex)
	t.Logf("codex %s", version)

	codexBlocked(t, model, 0, "cat .env", "picket: blocked Bash "+filepath.Join(w.project, ".env"))
	checkGot(t, model, 1, "cat README.md", "hello from the e2e readme")
	codexBlocked(t, model, 2, "rg for the secret's value", "picket: blocked Bash "+filepath.Join(w.project, ".env"))
	codexBlocked(t, model, 3, "cat ../.env in workdir sub", "picket: blocked Bash ")
	checkGot(t, model, 4, "apply_patch editing README.md", "Success")
	codexBlocked(t, model, 5, "apply_patch of .codex/hooks.json", "picket: blocked apply_patch "+filepath.Join(w.project, ".codex", "hooks.json"))
	codexBlocked(t, model, 6, "apply_patch of .git/hooks/pre-commit", "picket: blocked apply_patch "+filepath.Join(w.project, ".git", "hooks", "pre-commit"))
	codexBlocked(t, model, 7, "apply_patch of a git hook through the shell", "picket: blocked Bash "+filepath.Join(w.project, ".git", "hooks", "post-commit"))
	checkGot(t, model, 8, "cat sub/deep.txt", "deep file in sub")
	codexBlocked(t, model, 9, "apply_patch outside the workspace", "picket: blocked apply_patch "+outside)

	if got := readFileString(t, filepath.Join(w.project, "README.md")); got != "hello, edited by codex\n" {
		t.Errorf("README.md holds %q after the allowed edit", got)
	}
	for _, p := range []string{outside, filepath.Join(w.project, ".codex", "hooks.json"), filepath.Join(w.project, ".git", "hooks", "pre-commit"), filepath.Join(w.project, ".git", "hooks", "post-commit")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a blocked patch wrote %s", p)
		}
	}
	if got := readFileString(t, filepath.Join(codexHomeOf(w), "hooks.json")); got != hooksBefore {
		t.Errorf("Codex's hooks.json changed during the run:\n%s", got)
	}
	for _, r := range model.RequestsContaining(codexSecret) {
		t.Errorf("request %s (turn %d) carries the .env secret to the model", r.Path, r.Turn)
	}
	lines := readAudit(t, filepath.Join(w.state, "picket", "audit.log"))
	blocks := 0
	for _, l := range lines {
		if l.Agent != "codex" {
			t.Errorf("audit line %+v does not name codex", l)
		}
		if l.Decision == "block" {
			blocks++
		}
	}
	if blocks < 7 {
		t.Errorf("%d audit lines block, want one per block (7):\n%+v", blocks, lines)
	}
	if b, _ := os.ReadFile(filepath.Join(w.state, "picket", "audit.log")); strings.Contains(string(b), codexSecret) {
		t.Errorf("the audit log carries the secret")
	}
}

// TestCodexFailsClosed: picket's executable missing, crashing (a
// stand-in that exits 1, one killed by SIGKILL) or hanging past its
// deadline (a stand-in that sleeps): the call picket would block is
// blocked all the same, where Codex itself would run it. (picket's own
// deadline, which denies when picket is stuck inside, is
// cmd/picket's TestHookDeadline.)
func TestCodexFailsClosed(t *testing.T) {
	t.Parallel()
	codex, _ := AgentBinary(t, "codex")
	for _, tt := range []struct {
		name   string
		setup  func(t *testing.T, w *world)
		calls  []string // modes, each a cat .env call
		want   string   // in what the model got
		doctor string   // in what picket doctor (another copy of picket) says
	}{
		{"missing", func(t *testing.T, w *world) { os.Remove(w.picket) }, []string{"missing"},
			"picket: error: the picket hook failed (exit 127)", "which is not there (no such file or directory): a stale install"},
		{"crashing", func(t *testing.T, w *world) {
			standIn := "#!/bin/sh\nin=$(cat)\ncase $in in\n*mode-exit1*) echo crashed >&2; exit 1 ;;\n*mode-kill*) kill -9 $$ ;;\nesac\nexit 0\n"
			if err := os.WriteFile(w.picket, []byte(standIn), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"exit1", "kill"}, "picket: error: the picket hook failed (exit ", "not blocked: the hook let it through (exit 0, no answer)"},
		{"hanging", func(t *testing.T, w *world) {
			// A picket that hangs is ended by the hook command's
			// timeout(1) before Codex's own timeout (150 s) runs the call.
			// Its 120 s become 3 here, the trust record following.
			hooks := filepath.Join(codexHomeOf(w), "hooks.json")
			b := readFileString(t, hooks)
			cmds, _ := codexhook.HookCommands([]byte(b))
			if len(cmds) != 1 || !strings.Contains(cmds[0], " -k 10 120 ") {
				t.Fatalf("picket's hook commands %q, want one bounded by timeout(1)", cmds)
			}
			short := strings.Replace(cmds[0], " -k 10 120 ", " -k 1 3 ", 1)
			writeFile(t, hooks, strings.Replace(b, " -k 10 120 ", " -k 1 3 ", 1))
			config := filepath.Join(codexHomeOf(w), "config.toml")
			writeFile(t, config, strings.Replace(readFileString(t, config), codexhook.HookHash(cmds[0]), codexhook.HookHash(short), 1))
			if err := os.WriteFile(w.picket, []byte("#!/bin/sh\nexec sleep 1000\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"hang"}, "picket: error: the picket hook failed (exit 124)", "picket did not judge it: picket: error: the picket hook failed (exit 124)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var script []Turn
			for _, m := range tt.calls {
				script = append(script, codexShell("cat .env # mode-"+m, ""))
			}
			model, err := StartResponses(append(script, Text("DONE")))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			w := newCodexPicketWorld(t, model)
			other := filepath.Join(w.base, "other", "picket")
			writeFile(t, other, readFileString(t, w.picket))
			os.Chmod(other, 0o755)
			tt.setup(t, w)
			codexDoctor(t, w, other, 1, tt.doctor)
			codexExec(t, w, codex)
			for k := range tt.calls {
				r, ok := model.Results()[ToolUseID(k)]
				if !ok || !strings.Contains(r.Text, tt.want) || strings.Contains(r.Text, codexSecret) {
					t.Errorf("call %d (%s): the model got %q (present %v), want a block naming %q", k, tt.calls[k], r.Text, ok, tt.want)
				}
			}
			for _, r := range model.RequestsContaining(codexSecret) {
				t.Errorf("request %s (turn %d) carries the .env secret to the model", r.Path, r.Turn)
			}
		})
	}
}

// codexDoctor runs picket doctor (the picket at exe) in the world's
// project and checks its exit status and that its output holds want.
func codexDoctor(t *testing.T, w *world, exe string, code int, want ...string) {
	t.Helper()
	cmd := exec.Command(exe, "doctor")
	cmd.Dir, cmd.Env = w.project, w.env
	b, err := cmd.CombinedOutput()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if got != code {
		t.Errorf("picket doctor exited %d, want %d:\n%s", got, code, out)
	}
	for _, l := range want {
		if !strings.Contains(out, l) {
			t.Errorf("picket doctor's output lacks %q:\n%s", l, out)
		}
	}
}
