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
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/sandbox"
)

// piFenced is the footer Pi shows with picket on: "bash + fs" where the
// shell sandbox works on this machine, else a warning that bash is not.
func piFenced() string {
	if sandbox.Probe(os.Getenv("PATH"), "").Works() {
		return "🔒 fenced (bash + fs)"
	}
	return piNoSandbox
}

const piNoSandbox = "🔒 fenced (fs); bash UNFENCED: no shell sandbox here"

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
	// Pi takes no second !cmd while one runs: wait for it to end (picket
	// run looks for files the command made before it exits).
	s = tm.waitScreen("a", "(exit 1)", 15*time.Second)
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

	// No user namespaces (simulated): bash stays Pi's, the footer says so.
	// A tmux server keeps the environment it started with: start another.
	w.env = append(w.env, "PICKET_SANDBOX_PROBE=false")
	tm = newPiTmux(t, w)
	tm.start("nosandbox", pi)
	s = tm.waitScreen("nosandbox", piNoSandbox, 20*time.Second)
	t.Logf("without a working sandbox:\n%s", s)
}

// TestPiBrokenPolicyBash guards against a policy that fails to load
// unfencing bash (F3): status fails, and the extension used to leave Pi's
// own bash in place while the footer said "fenced". Bash and !cmd must
// still go through picket run, which refuses.
func TestPiBrokenPolicyBash(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": 5}}`)
	model, err := StartModel([]Turn{
		0: ToolUse("bash", map[string]any{"command": "cat ~/.ssh/id_rsa"}),
		1: Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	w.runPiPrint(t, pi)
	reqs := model.Requests()
	r := toolResults(t, reqs)[ToolUseID(0)]
	if !r.IsError || !strings.Contains(r.text(), "fix the policy") {
		t.Errorf("bash with a broken policy: tool_result = %q (is_error %v), want picket run's refusal", r.text(), r.IsError)
	}
	for i, req := range reqs {
		if strings.Contains(string(req.Body), key) {
			t.Errorf("request %d carries the ssh key to the model", i)
		}
	}

	tm := newPiTmux(t, w)
	tm.start("broken", pi)
	s := tm.waitScreen("broken", "⛔ picket status failed", 20*time.Second)
	t.Logf("with a broken policy:\n%s", s)
	tm.say("broken", "!cat ~/.ssh/id_rsa")
	s = tm.waitScreen("broken", "fix the policy", 15*time.Second)
	if strings.Contains(s, key) {
		t.Errorf("!cat ~/.ssh/id_rsa showed the key:\n%s", s)
	}
}

// TestPiParallelLinkSwap guards against a check-then-use race (F1): Pi
// judges every call of a message before it runs any, so a bash call that
// swaps a symlink ran after the read and write of the same message were
// judged through the old target. With picket's bash "sequential", each
// call is judged right before it runs: the read of ~/.ssh/id_rsa and the
// write outside the workspace are blocked.
func TestPiParallelLinkSwap(t *testing.T) {
	pi := piBinary(t)
	requireSandbox(t)
	w := newPiWorld(t)
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
	pwned := filepath.Join(w.base, "outside", "pwned")
	if err := os.MkdirAll(filepath.Dir(pwned), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.project, "target.txt"), "x\n")
	for link, to := range map[string]string{"link": "README.md", "wlink": "target.txt"} {
		if err := os.Symlink(to, filepath.Join(w.project, link)); err != nil {
			t.Fatal(err)
		}
	}
	bash := func(c string) map[string]any {
		return map[string]any{"name": "bash", "input": map[string]any{"command": c}}
	}
	read := map[string]any{"name": "read", "input": map[string]any{"path": "link"}}
	write := map[string]any{"name": "write", "input": map[string]any{"path": "wlink", "content": "PWNED\n"}}
	model, url := startBatchModel(t, "done", [][]map[string]any{
		{bash("ln -sfn ~/.ssh/id_rsa link && ln -sfn ../outside/pwned wlink && echo swapped"), read, write},
	})
	w.useModel(t, &Model{URL: url})
	w.runPiPrint(t, pi)

	reqs := model.Requests()
	results := toolResults(t, reqs)
	if r := results["toolu_batch_0_0"]; r.IsError || !strings.Contains(r.text(), "swapped") {
		t.Fatalf("the swap: tool_result = %q (is_error %v), want it done", r.text(), r.IsError)
	}
	for id, what := range map[string]string{"toolu_batch_0_1": "read link after the swap", "toolu_batch_0_2": "write wlink after the swap"} {
		if r := results[id]; !r.IsError || !strings.Contains(r.text(), "picket: blocked") {
			t.Errorf("%s: tool_result = %q (is_error %v), want a picket block", what, r.text(), r.IsError)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the write through the swapped link created %s", pwned)
	}
	for i, req := range reqs {
		if strings.Contains(string(req.Body), key) {
			t.Errorf("request %d carries the ssh key to the model", i)
		}
	}
}

// startBatchModel serves turns of several tool calls each, with ids
// toolu_batch_<turn>_<call> (Model gives every call of a turn one id), then
// the text final. It returns the model that records the requests and the
// URL to point Pi at.
func startBatchModel(t *testing.T, final string, turns [][]map[string]any) (*Model, string) {
	t.Helper()
	model, err := StartModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req messagesRequest
		if json.Unmarshal(body, &req) != nil || len(req.Tools) == 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			model.ServeHTTP(rw, r)
			return
		}
		k := countAssistant(req)
		model.record(Request{Method: r.Method, Path: r.URL.Path, Body: body, Turn: k})
		msg := message(req.Model, k, Text(final))
		if k < len(turns) {
			var content []map[string]any
			for i, c := range turns[k] {
				id := "toolu_batch_" + strconv.Itoa(k) + "_" + strconv.Itoa(i)
				content = append(content, map[string]any{"type": "tool_use", "id": id, "name": c["name"], "input": c["input"]})
			}
			msg["content"], msg["stop_reason"] = content, "tool_use"
		}
		writeStream(rw, msg)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		model.Close()
	})
	return model, "http://" + ln.Addr().String()
}

// TestPiNoSandboxWarning: where the shell sandbox cannot work, bash runs
// unfenced, and `pi -p` has no footer to say so: the extension says it
// once on stderr, so the person does not take the run for a fenced one.
func TestPiNoSandboxWarning(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	w.env = append(w.env, "PICKET_SANDBOX_PROBE=false")
	model, err := StartModel([]Turn{
		0: ToolUse("bash", map[string]any{"command": "echo one"}),
		1: ToolUse("bash", map[string]any{"command": "echo two"}),
		2: Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	_, stderr := w.runPiPrintErr(t, pi)
	const warning = "picket: warning: bash runs UNFENCED"
	if n := bytes.Count(stderr, []byte(warning)); n != 1 {
		t.Errorf("pi -p stderr says %q %d times, want once:\n%s", warning, n, stderr)
	}
}
