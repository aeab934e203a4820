package e2e

// What the real Pi (0.73.1) offers for fencing bash, read from its
// dist/core/tools/bash.js and docs/extensions.md, and used by
// hook/pi/index.ts:
//
//   - createBashToolDefinition(cwd, { spawnHook }) (createBashTool is the
//     same without Pi's rendering) calls spawnHook({command, cwd, env})
//     right before it runs `<shell> -c <command>`; an extension tool named
//     "bash" replaces the built-in one, also when registered after startup.
//   - `!cmd` and `!!cmd` fire "user_bash"; a handler returning
//     {operations} has the command (with Pi's shellCommandPrefix already
//     applied) run through them. A handler that throws is skipped and the
//     command runs unwrapped, so the extension's handler never throws.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/sandbox"
)

// piFenced is the footer Pi shows with picket on: "bash + fs" where the
// shell sandbox works on this machine, "fs" where it does not.
func piFenced() string {
	if sandbox.Probe(os.Getenv("PATH"), "").Works() {
		return "🔒 fenced (bash + fs)"
	}
	return "🔒 fenced (fs)"
}

// requireSandbox skips without bubblewrap (see requireBwrap), and fails
// when bubblewrap is there but cannot build a sandbox: that is a broken
// machine, not a missing tool.
func requireSandbox(t *testing.T) {
	t.Helper()
	requireBwrap(t)
	if st := sandbox.Probe(os.Getenv("PATH"), ""); !st.Works() {
		t.Fatalf("%s: picket cannot fence bash here", st)
	}
}

// TestPiBashHeadless: `pi -p` with the scripted model running bash: the
// commands run under picket run, so ~/.ssh stays unreadable and the tree
// outside the workspace unwritable, while ls and writes inside work.
func TestPiBashHeadless(t *testing.T) {
	pi := piBinary(t)
	requireSandbox(t)
	w := newPiWorld(t)
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
	outside := filepath.Join(w.base, "outside")

	model, err := StartModel([]Turn{
		0: ToolUse("bash", map[string]any{"command": "cat ~/.ssh/id_rsa"}),
		1: ToolUse("bash", map[string]any{"command": "touch ../outside"}),
		2: ToolUse("bash", map[string]any{"command": "ls"}),
		3: ToolUse("bash", map[string]any{"command": "echo hi > inside.txt"}),
		4: Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)

	start := time.Now()
	w.runPiPrint(t, pi)
	t.Logf("pi -p took %v, %d requests to the model", time.Since(start), len(model.Requests()))

	reqs := model.Requests()
	results := toolResults(t, reqs)
	checkBashFence(t, results, w.project, outside, key)
	for i, r := range reqs {
		if strings.Contains(string(r.Body), key) {
			t.Errorf("request %d (%s %s) carries the ssh key to the model", i, r.Method, r.Path)
		}
	}
}

// TestPiBashInteractive: in Pi's terminal the footer says bash is fenced,
// and a `!cmd` the person types runs in the sandbox too. Where the sandbox
// probe fails, the footer says "fs" only.
func TestPiBashInteractive(t *testing.T) {
	pi := piBinary(t)
	requireSandbox(t)
	w := newPiWorld(t)
	tm := newPiTmux(t, w)
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
	model, err := StartModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)

	tm.start("a", pi)
	s := tm.waitScreen("a", "🔒 fenced (bash + fs)", 20*time.Second)
	t.Logf("Pi's terminal at start:\n%s", s)
	tm.say("a", "!cat ~/.ssh/id_rsa")
	s = tm.waitScreen("a", "Permission denied", 15*time.Second)
	t.Logf("after !cat ~/.ssh/id_rsa:\n%s", s)
	if strings.Contains(s, key) {
		t.Errorf("!cat ~/.ssh/id_rsa showed the key:\n%s", s)
	}
	tm.say("a", "!echo hi > inside.txt && echo wrote-$((6*7))")
	tm.waitScreen("a", "wrote-42", 15*time.Second)
	if got, _ := os.ReadFile(filepath.Join(w.project, "inside.txt")); string(got) != "hi\n" {
		t.Errorf("inside.txt holds %q, want the !cmd write", got)
	}
	tm.keys("a", "C-c")
	tm.keys("a", "C-c")

	// No user namespaces (simulated): bash stays Pi's, the footer says fs.
	// A tmux server keeps the environment it started with: start another.
	w.env = append(w.env, "PICKET_SANDBOX_PROBE=false")
	tm = newPiTmux(t, w)
	tm.start("nosandbox", pi)
	s = tm.waitScreen("nosandbox", "🔒 fenced (fs)", 20*time.Second)
	t.Logf("without a working sandbox:\n%s", s)
}
