package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/picketdev/picket/internal/testenv"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
)

// piBinary finds the pi that .ci/agents.sh installed (or PICKET_PI
// names); see AgentBinary.
func piBinary(t *testing.T) string {
	t.Helper()
	bin, _ := AgentBinary(t, "pi")
	return bin
}

// piWorld is one test's machine with Pi's config and picket's extension
// installed for the user.
type piWorld struct{ *world }

// The provider and model the scripted server plays in ~/.pi/agent/models.json.
const (
	piProvider = "picket-e2e"
	piModel    = "claude-scripted"
)

func newPiWorld(t *testing.T) *piWorld {
	t.Helper()
	w := &piWorld{newWorld(t, "TERM=xterm-256color", "PI_OFFLINE=1", "PI_TELEMETRY=0")}
	out := mustRun(t, w.project, w.env, w.picket, "install", "pi", "--user")
	ext := filepath.Join(w.home, ".pi", "agent", "extensions", "picket", "index.ts")
	if src, err := os.ReadFile(ext); err != nil || !bytes.Contains(src, []byte(`const PICKET = "`+w.picket+`";`)) {
		t.Fatalf("picket install pi --user wrote no extension running %s (err %v): %s", w.picket, err, out)
	}
	return w
}

// useModel points Pi's models.json at model, with the Anthropic Messages API.
func (w *piWorld) useModel(t *testing.T, model *Model) {
	t.Helper()
	cfg := map[string]any{"providers": map[string]any{
		piProvider: map[string]any{
			"baseUrl": model.URL,
			"api":     "anthropic-messages",
			"apiKey":  "test",
			"models":  []map[string]any{{"id": piModel, "contextWindow": 200000, "maxTokens": 8192}},
		},
	}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	writeFile(t, filepath.Join(w.home, ".pi", "agent", "models.json"), string(b))
}

// piArgs are the flags every run uses: the scripted model and all six
// file tools (Pi offers only read, bash, edit and write by default).
func piArgs(extra ...string) []string {
	return append([]string{"--provider", piProvider, "--model", piModel,
		"--tools", "read,bash,edit,write,grep,find,ls", "--no-context-files"}, extra...)
}

// runPiPrint runs `pi -p` in the project and returns its stdout.
func (w *piWorld) runPiPrint(t *testing.T, pi string, extra ...string) []byte {
	t.Helper()
	stdout, _ := w.runPiPrintErr(t, pi, extra...)
	return stdout
}

// runPiPrintErr runs `pi -p` in the project and returns its stdout and
// stderr.
func (w *piWorld) runPiPrintErr(t *testing.T, pi string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pi, piArgs(append(extra, "-p", "Do the scripted steps.")...)...)
	cmd.Dir = w.project
	cmd.Env = w.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi -p: %v\nstdout:\n%s\nstderr:\n%s", err, out.Bytes(), errOut.Bytes())
	}
	if errOut.Len() > 0 {
		t.Logf("pi -p stderr:\n%s", errOut.Bytes())
	}
	return out.Bytes(), errOut.Bytes()
}

// piSessions returns the ids of Pi's sessions (the header line of each
// session file under ~/.pi/agent/sessions).
func (w *piWorld) piSessions(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.home, ".pi", "agent", "sessions", "*", "*.jsonl"))
	var ids []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		var h struct{ Type, ID string }
		if json.Unmarshal(first, &h) == nil && h.Type == "session" {
			ids = append(ids, h.ID)
		}
	}
	return ids
}

func (w *piWorld) auditPath() string { return filepath.Join(w.state, "picket", "audit.log") }

func TestPiHeadless(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	secret := "hunter2-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.project, ".env"), "SECRET_VALUE="+secret+"\n")
	sshKey := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), sshKey+"\n")
	if err := os.Symlink(filepath.Join(w.home, ".ssh"), filepath.Join(w.project, "innocent")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(w.base, "outside", "escape.txt")
	readme := filepath.Join(w.project, "README.md")

	script := []Turn{
		0: ToolUse("read", map[string]any{"path": ".env"}),
		1: ToolUse("write", map[string]any{"path": outside, "content": "escaped\n"}),
		2: ToolUse("read", map[string]any{"path": "innocent/id_rsa"}),
		// Pi's own spellings: "@" dropped, "~/" on the home.
		3: ToolUse("read", map[string]any{"path": "@.env"}),
		4: ToolUse("read", map[string]any{"path": "~/.ssh/id_rsa"}),
		// The pattern matches the secret without spelling it.
		5: ToolUse("grep", map[string]any{"pattern": "hunter2-e2e-[0-9a-f]+"}),
		6: ToolUse("read", map[string]any{"path": "README.md"}),
		7: ToolUse("edit", map[string]any{"path": "@README.md", "edits": []map[string]any{{"oldText": "hello from", "newText": "edited by"}}}),
		8: ToolUse("ls", map[string]any{}),
		9: Text("done"),
	}
	model, err := StartModel(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)

	start := time.Now()
	out := w.runPiPrint(t, pi)
	t.Logf("pi -p took %v, %d requests to the model; it printed %q", time.Since(start), len(model.Requests()), out)

	reqs := model.Requests()
	results := toolResults(t, reqs)
	blocked := map[int]string{0: "read .env", 1: "write outside the workspace", 2: "read innocent/id_rsa (a symlink to ~/.ssh)",
		3: "read @.env", 4: "read ~/.ssh/id_rsa", 5: "grep over a tree holding .env"}
	for k, what := range blocked {
		r, ok := results[ToolUseID(k)]
		if !ok {
			t.Errorf("%s: the model never received a tool_result", what)
			continue
		}
		if !r.IsError || !strings.Contains(r.text(), "picket: blocked") {
			t.Errorf("%s: tool_result = %q (is_error %v), want a picket block", what, r.text(), r.IsError)
		}
	}
	t.Logf("the model read for read .env: %q", results[ToolUseID(0)].text())
	if r := results[ToolUseID(6)]; r.IsError || !strings.Contains(r.text(), "hello from the e2e readme") {
		t.Errorf("read README.md: tool_result = %q (is_error %v), want the file's content", r.text(), r.IsError)
	}
	if r := results[ToolUseID(7)]; r.IsError {
		t.Errorf("edit @README.md: tool_result = %q, want success", r.text())
	}
	if got, _ := os.ReadFile(readme); string(got) != "edited by the e2e readme\n" {
		t.Errorf("README.md after edit = %q, want the edit applied", got)
	}
	if r := results[ToolUseID(8)]; r.IsError || !strings.Contains(r.text(), "README.md") {
		t.Errorf("ls: tool_result = %q (is_error %v), want the listing", r.text(), r.IsError)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("write outside the workspace created %s", outside)
	}
	for i, r := range reqs {
		for _, s := range []string{secret, sshKey} {
			if bytes.Contains(r.Body, []byte(s)) {
				t.Errorf("request %d (%s %s) carries a secret (%s…) to the model", i, r.Method, r.Path, s[:8])
			}
		}
	}

	sessions := w.piSessions(t)
	if len(sessions) != 1 {
		t.Fatalf("Pi sessions = %v, want exactly one", sessions)
	}
	lines := readAudit(t, w.auditPath())
	find := func(tool, pathPart string) {
		t.Helper()
		for _, l := range lines {
			if l.Decision == "block" && l.Tool == tool && strings.Contains(l.Path, pathPart) {
				if l.Agent != "pi" || l.Session != sessions[0] || l.Layer == "" || l.Rule == "" {
					t.Errorf("audit line for %s %s: %+v, want agent pi, session %s, a layer and a rule", tool, pathPart, l, sessions[0])
				}
				return
			}
		}
		t.Errorf("no audit block line for %s %s in %+v", tool, pathPart, lines)
	}
	find("read", ".env")
	find("write", outside)
	find("read", "id_rsa")
	find("grep", w.project)
	for _, l := range lines {
		if l.Decision == "block" && strings.HasSuffix(l.Path, "README.md") {
			t.Errorf("audit log blocks the allowed README.md: %+v", l)
		}
	}
}

// childPids lists the processes whose parent is pid, from /proc.
func childPids(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := os.Open(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		f.Close()
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ")".
		line := sc.Text()
		i := strings.LastIndexByte(line, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(line[i+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// piTmux runs Pi in its own tmux server, as a person's terminal would.
type piTmux struct {
	t      *testing.T
	w      *piWorld
	socket string
}

func newPiTmux(t *testing.T, w *piWorld) *piTmux {
	t.Helper()
	testenv.Tmux(t)
	p := &piTmux{t: t, w: w, socket: "picket-pi-e2e-" + randomHex(t)}
	t.Cleanup(func() {
		c := exec.Command("tmux", "-f", os.DevNull, "-L", p.socket, "kill-server")
		c.Env = w.env
		c.Run()
	})
	return p
}

func (p *piTmux) tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-f", os.DevNull, "-L", p.socket}, args...)...)
	cmd.Env = p.w.env // no CI, no TMUX: a person's terminal
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs pi (interactive) in a new 120x40 window named name.
func (p *piTmux) start(name, pi string, extra ...string) {
	p.t.Helper()
	words := []string{"exec", shellQuote(pi)}
	for _, a := range piArgs(extra...) {
		words = append(words, shellQuote(a))
	}
	p.tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", p.w.project, strings.Join(words, " "))
}

func (p *piTmux) screen(name string) string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-t", name)
}

// waitScreen waits until the pane shows want, and returns the screen.
func (p *piTmux) waitScreen(name, want string, d time.Duration) string {
	p.t.Helper()
	var s string
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s = p.screen(name); strings.Contains(s, want) {
			return s
		}
	}
	p.t.Fatalf("Pi's terminal never showed %q; screen:\n%s", want, s)
	return ""
}

func (p *piTmux) keys(name string, keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", name}, keys...)...)
}

// say types a user prompt into Pi's editor and submits it.
func (p *piTmux) say(name, text string) {
	p.tmux("send-keys", "-t", name, "-l", text)
	p.keys(name, "Enter")
}

// waitTurn waits until the model was asked for script turn k, that is until
// the tool result of turn k-1 is in, watching that no prompt pops meanwhile
// unless prompted says one may.
func (p *piTmux) waitTurn(name string, model *Model, k int, prompted bool) {
	p.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, r := range model.Requests() {
			if r.Turn == k {
				return
			}
		}
		if s := p.screen(name); !prompted && strings.Contains(s, promptQuestion) {
			p.t.Fatalf("picket prompted where it should not have:\n%s", s)
		}
	}
	p.t.Fatalf("the model was never asked for turn %d; screen:\n%s", k, p.screen(name))
}

// What picket's prompt shows (tui/view.go): the question, the guard's note
// for its first 500 ms, then the deny default's.
const (
	promptQuestion = "this path?"
	promptGuard    = "keys ignored"
	promptArmed    = "Enter/Esc deny"
	promptConfirm  = "[y] yes, persist"

	promptConfirmArmed = "any other key denies"
)

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func TestPiInteractive(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	tm := newPiTmux(t, w)
	creds := filepath.Join(w.home, ".aws", "credentials")
	writeFile(t, creds, "aws-e2e-"+randomHex(t)+"\n")
	outside := filepath.Join(w.base, "outside", "persisted.txt")
	os.MkdirAll(filepath.Dir(outside), 0o755)

	model, err := StartModel([]Turn{
		0: ToolUse("read", map[string]any{"path": "~/.aws/credentials"}),
		1: Text("first done"),
		2: ToolUse("read", map[string]any{"path": "~/.aws/credentials"}),
		3: ToolUse("read", map[string]any{"path": creds}),
		4: Text("second done"),
		5: ToolUse("write", map[string]any{"path": outside, "content": "persisted\n"}),
		6: Text("third done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)

	tm.start("a", pi)
	footer := tm.waitScreen("a", piFenced(), 20*time.Second)
	t.Logf("Pi's terminal at start:\n%s", footer)

	// 1. A block pops the prompt; keys in the guard are ignored; Enter denies.
	tm.say("a", "first")
	s := tm.waitScreen("a", promptGuard, 15*time.Second)
	tm.keys("a", "Enter")
	s = tm.waitScreen("a", promptArmed, 5*time.Second)
	t.Logf("the prompt in Pi's terminal:\n%s", s)
	tm.keys("a", "Enter")
	tm.waitTurn("a", model, 1, true)
	results := toolResults(t, model.Requests())
	if r := results[ToolUseID(0)]; !r.IsError || !strings.Contains(r.text(), "picket: blocked") {
		t.Errorf("Enter: tool_result = %q, want picket's block", r.text())
	}
	tm.waitScreen("a", "first done", 10*time.Second)

	// 2. s after the guard grants for the session; the same read then
	// passes without a prompt.
	tm.say("a", "second")
	tm.waitScreen("a", promptArmed, 15*time.Second)
	tm.keys("a", "s")
	tm.waitTurn("a", model, 3, true)
	tm.waitTurn("a", model, 4, false)
	results = toolResults(t, model.Requests())
	for _, k := range []int{2, 3} {
		if r := results[ToolUseID(k)]; r.IsError || !strings.Contains(r.text(), "aws-e2e-") {
			t.Errorf("read after the session grant (turn %d): tool_result = %q, want the file", k, r.text())
		}
	}
	tm.waitScreen("a", "second done", 10*time.Second)

	// 3. p, then y on the confirm, persists the write to fence.jsonc.
	tm.say("a", "third")
	tm.waitScreen("a", promptArmed, 15*time.Second)
	tm.keys("a", "p")
	s = tm.waitScreen("a", promptConfirm, 5*time.Second)
	t.Logf("the persist confirm:\n%s", s)
	tm.waitScreen("a", promptConfirmArmed, 5*time.Second) // the confirm's own guard
	tm.keys("a", "y")
	tm.waitTurn("a", model, 6, true)
	if got, _ := os.ReadFile(outside); string(got) != "persisted\n" {
		t.Errorf("write after p, y: %s holds %q, want the write", outside, got)
	}
	fence, _ := os.ReadFile(filepath.Join(w.project, "fence.jsonc"))
	// The entry names the file alone (see decide.ExactPattern).
	entry, _ := decide.ExactPattern(outside)
	if !bytes.Contains(fence, []byte(entry)) || !bytes.Contains(fence, []byte("The project's policy")) {
		t.Errorf("fence.jsonc after persist lacks %s or lost its comment:\n%s", entry, fence)
	}
	s = tm.waitScreen("a", "third done", 10*time.Second)
	t.Logf("Pi's terminal after the persist:\n%s", s)

	// The /fence commands answer in Pi's terminal.
	tm.say("a", "/fence grants")
	tm.waitScreen("a", "session grants:", 10*time.Second)
	tm.waitScreen("a", "read   "+creds, 5*time.Second)
	tm.say("a", "/fence")
	s = tm.waitScreen("a", "picket.blocklist (applies to: both, from", 10*time.Second)
	t.Logf("/fence:\n%s", s)
	tm.say("a", "/fence log 2")
	tm.waitScreen("a", "grant-persist write write", 10*time.Second)
	tm.say("a", "/fence mode read-only")
	tm.waitScreen("a", "mode read-only for this session", 10*time.Second)
	tm.keys("a", "C-c")
	tm.keys("a", "C-c")

	sessionA := w.piSessions(t)
	if len(sessionA) != 1 {
		t.Fatalf("Pi sessions = %v, want one", sessionA)
	}
	files, _ := filepath.Glob(filepath.Join(w.home, ".pi", "agent", "sessions", "*", "*"+sessionA[0]+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("no session file for %s", sessionA[0])
	}
	if data, _ := os.ReadFile(files[0]); !bytes.Contains(data, []byte(`"customType":"picket-grant","data":{"access":"read","path":`+strconv.Quote(creds))) {
		t.Errorf("the session file keeps no picket-grant entry for %s:\n%s", creds, data)
	}

	// 4. A fresh Pi session writes the persisted path without a prompt.
	model2, err := StartModel([]Turn{
		0: ToolUse("write", map[string]any{"path": outside, "content": "again\n"}),
		1: Text("fresh done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model2.Close()
	w.useModel(t, model2)
	tm.start("b", pi)
	tm.waitScreen("b", piFenced(), 20*time.Second)
	tm.say("b", "fresh")
	tm.waitTurn("b", model2, 1, false)
	if got, _ := os.ReadFile(outside); string(got) != "again\n" {
		t.Errorf("a fresh session's write of the persisted path: %s holds %q", outside, got)
	}

	tm.keys("b", "C-c")
	tm.keys("b", "C-c")

	// 5. Resuming the first session restores its session grant from Pi's
	// session entries: the read passes without a prompt.
	resumed := make([]Turn, 7, 9) // the first session's seven turns
	for i := range resumed {
		resumed[i] = Text("earlier")
	}
	model3, err := StartModel(append(resumed, ToolUse("read", map[string]any{"path": creds}), Text("resumed done")))
	if err != nil {
		t.Fatal(err)
	}
	defer model3.Close()
	w.useModel(t, model3)
	tm.start("c", pi, "--session", sessionA[0])
	tm.waitScreen("c", piFenced(), 20*time.Second)
	tm.say("c", "resumed")
	tm.waitTurn("c", model3, 8, false)
	if r := toolResults(t, model3.Requests())[ToolUseID(7)]; r.IsError || !strings.Contains(r.text(), "aws-e2e-") {
		t.Errorf("read in the resumed session: tool_result = %q, want the file (the restored session grant)", r.text())
	}

	lines := readAudit(t, w.auditPath())
	var decisions []string
	for _, l := range lines {
		decisions = append(decisions, l.Decision+" "+l.Tool)
	}
	want := []string{"block read", "grant-session read", "grant-persist write"}
	if strings.Join(decisions, ",") != strings.Join(want, ",") {
		t.Errorf("audit decisions = %q, want %q", decisions, want)
	}
}

// gate holds the model's answer to script turn k until released, so a test
// can act between two tool calls; every request still reaches model.
type gate struct {
	model   *Model
	k       int
	arrived chan struct{}
	release chan struct{}
	srv     *http.Server
	URL     string
}

func startGate(t *testing.T, model *Model, k int) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{model: model, k: k, arrived: make(chan struct{}), release: make(chan struct{}), URL: "http://" + ln.Addr().String()}
	var once sync.Once
	g.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req messagesRequest
		if json.Unmarshal(body, &req) == nil && len(req.Tools) > 0 && countAssistant(req) == g.k {
			once.Do(func() { close(g.arrived) })
			<-g.release
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		model.ServeHTTP(w, r)
	})}
	go g.srv.Serve(ln)
	t.Cleanup(func() { g.srv.Close() })
	return g
}

// TestPiSidecarKilled kills `picket serve` between two tool calls of one
// `pi -p` run: the next file tool call is judged by a restarted sidecar;
// a sidecar that hangs (SIGSTOP) is given up on after the extension's
// 15 s timeout and restarted; and when no sidecar can start again, every
// file tool call is blocked.
func TestPiSidecarKilled(t *testing.T) {
	pi := piBinary(t)
	for _, tc := range []struct {
		name        string
		sig         syscall.Signal
		restartable bool
	}{
		{"restarted", syscall.SIGKILL, true},
		{"hung", syscall.SIGSTOP, true},
		{"down", syscall.SIGKILL, false},
	} {
		restartable := tc.restartable
		t.Run(tc.name, func(t *testing.T) {
			w := newPiWorld(t)
			secret := "hunter2-e2e-" + randomHex(t)
			writeFile(t, filepath.Join(w.project, ".env"), "SECRET_VALUE="+secret+"\n")
			model, err := StartModel([]Turn{
				0: ToolUse("read", map[string]any{"path": "README.md"}),
				1: ToolUse("read", map[string]any{"path": ".env"}),
				2: ToolUse("read", map[string]any{"path": "README.md"}),
				3: Text("done"),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			g := startGate(t, model, 1)
			w.useModel(t, &Model{URL: g.URL})

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, pi, piArgs("-p", "Do the scripted steps.")...)
			cmd.Dir, cmd.Env = w.project, w.env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-g.arrived:
			case <-ctx.Done():
				t.Fatalf("pi never asked for turn 1; stderr:\n%s", stderr.Bytes())
			}
			before := serveChildren(cmd.Process.Pid)
			if len(before) != 1 {
				t.Fatalf("pi runs %d picket serve children (%v), want 1", len(before), before)
			}
			if !restartable {
				// No picket to start again: the extension must block.
				if err := os.Rename(w.picket, w.picket+".gone"); err != nil {
					t.Fatal(err)
				}
			}
			if err := syscall.Kill(before[0], tc.sig); err != nil {
				t.Fatal(err)
			}
			t.Logf("sent %v to picket serve (pid %d) between two tool calls", tc.sig, before[0])
			close(g.release)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("pi -p: %v\nstderr:\n%s", err, stderr.Bytes())
			}

			results := toolResults(t, model.Requests())
			if r := results[ToolUseID(0)]; r.IsError {
				t.Errorf("read README.md before the kill: %q", r.text())
			}
			env := results[ToolUseID(1)]
			if !env.IsError || strings.Contains(env.text(), secret) {
				t.Fatalf("read .env after the kill: tool_result = %q (is_error %v), want a block", env.text(), env.IsError)
			}
			t.Logf("read .env after the kill: %q", firstLine(env.text()))
			readme := results[ToolUseID(2)]
			if restartable {
				if !strings.Contains(env.text(), "picket: blocked") {
					t.Errorf("read .env after the kill: %q, want the restarted sidecar's block", env.text())
				}
				if readme.IsError || !strings.Contains(readme.text(), "hello from the e2e readme") {
					t.Errorf("read README.md after the restart: %q, want the file", readme.text())
				}
				return
			}
			for k, r := range map[int]toolResult{1: env, 2: readme} {
				if !r.IsError || !strings.Contains(r.text(), "the picket sidecar is not running; file tools are blocked") {
					t.Errorf("turn %d with no sidecar: tool_result = %q, want the sidecar-down block", k, r.text())
				}
			}
		})
	}
}

// serveChildren returns the pids of the `picket serve` children of pid.
func serveChildren(pid int) []int {
	var out []int
	for _, c := range childPids(pid) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(c), "cmdline"))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) == 2 && filepath.Base(args[0]) == "picket" && args[1] == "serve" {
			out = append(out, c)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// fakePicket writes a stand-in for picket whose sidecar answers every
// request with reply (its id spliced in), and installs the extension
// pointing at it.
func (w *piWorld) fakePicket(t *testing.T, reply string) {
	t.Helper()
	fake := filepath.Join(w.base, "bin", "fake-picket")
	writeFile(t, fake, `#!/bin/sh
[ "$1" = serve ] || exit 2
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/^{"id":\([0-9]*\).*/\1/p')
	printf '{"id":%s,`+reply+`}\n' "$id"
done
`)
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, w.project, w.env, w.picket, "install", "pi", "--user", "--exe", fake)
}

// TestPiProtocolMismatch: a picket whose sidecar speaks another protocol
// is refused, every file tool call is blocked saying why, and bash still
// runs under picket run.
func TestPiProtocolMismatch(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	w.fakePicket(t, `"ok":true,"picket":"9.9.9","protocol":2,"allow":true`)
	key := "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
	model, err := StartModel([]Turn{
		ToolUse("read", map[string]any{"path": "README.md"}),
		ToolUse("bash", map[string]any{"command": "cat ~/.ssh/id_rsa"}),
		Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	w.runPiPrint(t, pi)
	results := toolResults(t, model.Requests())
	r := results[ToolUseID(0)]
	if !r.IsError || !strings.Contains(r.text(), "file tools are blocked") || !strings.Contains(r.text(), "protocol 2") {
		t.Errorf("read with a protocol 2 sidecar: tool_result = %q (is_error %v), want a block naming the protocol", r.text(), r.IsError)
	}
	// A sidecar that is down must not unfence bash (F4): it still runs
	// under picket run, here the stand-in, which refuses everything.
	if r := results[ToolUseID(1)]; !r.IsError || strings.Contains(r.text(), key) {
		t.Errorf("bash with the sidecar down: tool_result = %q (is_error %v), want a failure without the key", r.text(), r.IsError)
	}
}

// TestPiFooter checks the footer's states and the lint warnings shown at
// session start, in Pi's terminal.
func TestPiFooter(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	tm := newPiTmux(t, w)
	model, err := StartModel(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), `{"extends": "code", "filesystem": {"allowWrite": ["**"]}}`)

	tm.start("lint", pi)
	tm.waitScreen("lint", piFenced(), 20*time.Second)
	s := tm.waitScreen("lint", "[top-globstar]", 5*time.Second)
	t.Logf("a policy lint warns about, at session start:\n%s", s)

	tm.start("nofence", pi, "--no-fence")
	t.Logf("--no-fence:\n%s", tm.waitScreen("nofence", "⚠ unfenced (--no-fence)", 20*time.Second))

	w.fakePicket(t, `"ok":true,"picket":"9.9.9","protocol":2`)
	tm.start("old", pi)
	s = tm.waitScreen("old", "⛔ picket unavailable: file tools blocked", 20*time.Second)
	tm.waitScreen("old", "protocol 2", 5*time.Second)
	t.Logf("a sidecar speaking protocol 2:\n%s", s)
}

// TestPiBatchPrompt: three blocked reads in one assistant message. The
// third prompt is picket's batch question; "i" (one by one) brings the
// single prompt back, where "a" allows that read once.
func TestPiBatchPrompt(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	tm := newPiTmux(t, w)
	var paths []string
	for _, n := range []string{"a", "b", "c"} {
		p := filepath.Join(w.home, ".aws", n)
		writeFile(t, p, "aws-"+n+"-e2e\n")
		paths = append(paths, p)
	}
	// One message asking for three reads, each with its own id; then the end.
	var reads []map[string]any
	for _, p := range paths {
		reads = append(reads, map[string]any{"name": "read", "input": map[string]any{"path": p}})
	}
	model, url := startBatchModel(t, "batch done", [][]map[string]any{reads})
	w.useModel(t, &Model{URL: url})

	tm.start("a", pi)
	tm.waitScreen("a", piFenced(), 20*time.Second)
	tm.say("a", "batch")
	for i := 0; i < 2; i++ {
		tm.waitScreen("a", paths[i], 15*time.Second)
		tm.waitScreen("a", promptArmed, 5*time.Second)
		tm.keys("a", "d")
	}
	s := tm.waitScreen("a", "requests blocked this turn", 15*time.Second)
	t.Logf("the batch question:\n%s", s)
	tm.waitScreen("a", promptArmed, 5*time.Second) // "Enter/Esc deny all"
	tm.keys("a", "i")
	s = tm.waitScreen("a", "[a] once", 10*time.Second)
	tm.waitScreen("a", promptArmed, 5*time.Second)
	t.Logf("one by one:\n%s", s)
	tm.keys("a", "a")
	tm.waitScreen("a", "batch done", 15*time.Second)

	results := toolResults(t, model.Requests())
	for i, p := range paths {
		r := results["toolu_batch_0_"+strconv.Itoa(i)]
		allowed := !r.IsError && strings.Contains(r.text(), "-e2e")
		if want := i == 2; allowed != want {
			t.Errorf("read %s: tool_result = %q (is_error %v), want allowed %v", p, r.text(), r.IsError, want)
		}
	}
}

// TestPiUnicodeSpaceCwd guards against a pinned path that Pi resolves
// again to another file: Pi's tools make a Unicode space (U+00A0) plain,
// also in the absolute path the extension pins, so a call in a project
// "proj\u00a0x" was judged there but ran in the sibling "proj x", here a
// symlink out of the workspace. Every file tool, and "~" on a home that
// holds such a space, must be blocked instead.
func TestPiUnicodeSpaceCwd(t *testing.T) {
	pi := piBinary(t)
	w := newPiWorld(t)
	project := filepath.Join(w.base, "proj\u00a0x")
	writeFile(t, filepath.Join(project, "README.md"), "hello from the e2e readme\n")
	writeFile(t, filepath.Join(project, "fence.jsonc"), projectFence)
	mustRun(t, project, w.env, "git", "init", "-q")
	w.project = project
	outside := filepath.Join(w.base, "outside")
	marker := "outside-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(outside, "README.md"), marker+"\n")
	if err := os.Symlink(outside, filepath.Join(w.base, "proj x")); err != nil {
		t.Fatal(err)
	}
	// Pi's home as "home\u00a0y", a link to the real one, so "~" holds the
	// space. Pi finds its own extensions under "home y" (it makes the
	// space plain there too): a second link.
	home := filepath.Join(w.base, "home\u00a0y")
	for _, l := range []string{home, filepath.Join(w.base, "home y")} {
		if err := os.Symlink(w.home, l); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range w.env {
		if strings.HasPrefix(e, "HOME=") {
			w.env[i] = "HOME=" + home
		}
	}

	calls := []struct {
		tool  string
		input map[string]any
	}{
		{"write", map[string]any{"path": "authorized_keys", "content": "ssh-ed25519 AAAA-e2e\n"}},
		{"read", map[string]any{"path": "README.md"}},
		{"edit", map[string]any{"path": "README.md", "edits": []map[string]any{{"oldText": "hello", "newText": "bye"}}}},
		{"ls", map[string]any{"path": "."}},
		{"grep", map[string]any{"pattern": "outside-e2e", "path": "."}},
		{"find", map[string]any{"pattern": "*.md", "path": "."}},
		{"write", map[string]any{"path": "~/notes.txt", "content": "notes\n"}},
	}
	script := make([]Turn, 0, len(calls)+1)
	for _, c := range calls {
		script = append(script, ToolUse(c.tool, c.input))
	}
	model, err := StartModel(append(script, Text("done")))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	w.runPiPrint(t, pi)

	results := toolResults(t, model.Requests())
	for k, c := range calls {
		r := results[ToolUseID(k)]
		if !r.IsError || !strings.Contains(r.text(), "picket: blocked") || !strings.Contains(r.text(), "Unicode space") {
			t.Errorf("%s %v: tool_result = %q (is_error %v), want a picket block naming the Unicode space", c.tool, c.input["path"], r.text(), r.IsError)
		}
	}
	for _, f := range []string{filepath.Join(outside, "authorized_keys"), filepath.Join(w.home, "notes.txt")} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("a blocked write landed: %s exists", f)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "README.md")); string(got) != marker+"\n" {
		t.Errorf("outside/README.md = %q, want it untouched", got)
	}
	for i, r := range model.Requests() {
		if bytes.Contains(r.Body, []byte(marker)) {
			t.Errorf("request %d carries outside/README.md to the model", i)
		}
	}
}
