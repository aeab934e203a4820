package e2e

// GitHub Copilot CLI end to end, with picket installed by `picket install
// copilot` (its hooks file in $COPILOT_HOME/hooks) or, for the interplay,
// by `picket install claude` alone (Copilot CLI runs a repository's
// .claude/settings.json hooks). What the pinned binary does with a hook is
// in AGENTS-MEASURED.md and copilot_probe_test.go; these tests prove what
// picket makes of it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// copilotE2E is one end-to-end run's machine for Copilot CLI: a world
// (picket built, a git project whose policy blocklists .env) with Copilot
// CLI's home in it, a secret in the project's .env and an SSH key in the
// home.
type copilotE2E struct {
	*world
	copilotHome, outside string
	secret, key          string
}

func newCopilotE2E(t *testing.T) *copilotE2E {
	t.Helper()
	w := newWorld(t)
	r := &copilotE2E{world: w, copilotHome: filepath.Join(w.home, ".copilot"), outside: filepath.Join(w.base, "outside")}
	r.env = append(r.env, "COPILOT_HOME="+r.copilotHome)
	r.secret = "hunter2-e2e-" + randomHex(t)
	r.key = "ssh-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.project, ".env"), "SECRET_VALUE="+r.secret+"\n")
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), r.key+"\n")
	writeFile(t, filepath.Join(r.outside, ".keep"), "")
	return r
}

// secretPattern matches the secret without spelling it, so the secret in
// a request body can only come from a tool result.
const secretPattern = "hunter2-e2e-[0-9a-f]+"

// run runs copilot -p in the project against the model server at
// baseURL, offline, with picket's directory allowed (every wrapped bash
// command names picket's executable, which Copilot CLI's path check
// would otherwise ask about, and -p refuses).
func (r *copilotE2E) run(t *testing.T, baseURL, wire, model string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	copilot, version := AgentBinary(t, "copilot")
	env := append(append([]string(nil), r.env...), "TERM=dumb", "LANG=C.UTF-8",
		"COPILOT_PROVIDER_BASE_URL="+baseURL+"/v1", "COPILOT_PROVIDER_API_KEY=test", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_WIRE_API="+wire, "COPILOT_MODEL="+model, "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false")
	if pkg := AgentSetting(t, "PICKET_COPILOT_PKG_CACHE_HOME"); pkg != "" {
		env = append(env, "COPILOT_PKG_CACHE_HOME="+pkg)
	}
	args := copilotArgs(append([]string{"--add-dir", filepath.Dir(r.picket)}, extra...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, copilot, args...)
	cmd.Dir, cmd.Env = r.project, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("copilot %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, clip(out.String(), 4000), errOut.Bytes())
	}
	t.Logf("copilot %s took %v", version, time.Since(start))
	if !strings.Contains(out.String(), `"content":"DONE"`) {
		t.Errorf("copilot -p did not finish the script:\nstdout:\n%s\nstderr:\n%s", clip(out.String(), 4000), errOut.Bytes())
	}
	return out.Bytes(), errOut.Bytes()
}

// installCopilot runs picket install copilot (the default: the person's
// hooks dir) and checks the file it wrote names this picket.
func (r *copilotE2E) installCopilot(t *testing.T) {
	t.Helper()
	out := mustRun(t, r.project, r.env, r.picket, "install", "copilot")
	t.Logf("picket install copilot: %s", out)
	b, err := os.ReadFile(filepath.Join(r.copilotHome, "hooks", "picket.json"))
	if err != nil || !bytes.Contains(b, []byte(" --foreground -k 10 120 "+r.picket+" hook --agent copilot")) || !bytes.Contains(b, []byte(`"timeoutSec": 150`)) {
		t.Fatalf("picket install copilot wrote %s, %v", b, err)
	}
}

// got is the text the model got for turn k, logged.
func got(t *testing.T, model *Model, k int, what string) string {
	t.Helper()
	r, ok := model.Results()[ToolUseID(k)]
	if !ok {
		t.Errorf("%s: the model never received a result", what)
	}
	t.Logf("%s: the model got %q", what, clip(r.Text, 600))
	return r.Text
}

// blocked asserts turn k was denied with picket's block for tool, its
// reason reaching the model.
func blocked(t *testing.T, model *Model, k int, what, tool string) {
	t.Helper()
	if s := got(t, model, k, what); !strings.Contains(s, "Denied by preToolUse hook: picket: blocked "+tool+" ") {
		t.Errorf("%s: the model got %q, want picket's block of %s", what, s, tool)
	}
}

// exitOf is the exit status Copilot CLI reports for a bash call, -1 when
// it reports none.
func exitOf(s string) int {
	m := regexp.MustCompile(`completed with exit code (\d+)>`).FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n := 0
	for _, c := range m[1] {
		n = n*10 + int(c-'0')
	}
	return n
}

// noSecrets asserts no request the agent sent to the model carries any of
// secrets.
func noSecrets(t *testing.T, model *Model, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, r := range model.RequestsContaining(s) {
			t.Errorf("request %s (turn %d) carries a secret (%s…) to the model", r.Path, r.Turn, s[:8])
		}
	}
}

// blockLine asserts the audit log holds a block line naming copilot, the
// session and the tool, for a path holding pathPart; it returns the
// lines.
func (r *copilotE2E) blockLine(t *testing.T, tool, pathPart string) {
	t.Helper()
	lines := readAudit(t, filepath.Join(r.state, "picket", "audit.log"))
	for _, l := range lines {
		if l.Decision == "block" && l.Tool == tool && strings.Contains(l.Path, pathPart) {
			if l.Agent != "copilot" || l.Session == "" || l.Layer == "" || l.Rule == "" {
				t.Errorf("audit line for %s %s lacks the agent copilot, the session, the layer or the rule: %+v", tool, pathPart, l)
			}
			return
		}
	}
	t.Errorf("no audit block line for %s %s in %+v", tool, pathPart, lines)
}

// TestCopilotCLI: Copilot CLI 1.0.102 (gpt-4.1 over Chat Completions) with
// picket installed by picket install copilot: its file tools are judged
// (a view of .env and a grep for the secret are blocked with picket's
// reason, a create outside the workspace too; a view and an edit inside
// pass), and its bash commands run under picket run (.env and the SSH key
// are hidden, a touch outside fails, ls and a write inside work). The
// audit lines name copilot; the secret and the key reach the model in no
// request.
func TestCopilotCLI(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	r := newCopilotE2E(t)
	r.installCopilot(t)
	readme := filepath.Join(r.project, "README.md")
	escape := filepath.Join(r.outside, "escape.txt")
	model, err := StartChat([]Turn{
		0:  ToolUse("view", map[string]any{"path": ".env"}),
		1:  copilotShell("cat .env"),
		2:  ToolUse("create", map[string]any{"path": escape, "file_text": "escaped\n"}),
		3:  ToolUse("view", map[string]any{"path": "README.md"}),
		4:  ToolUse("edit", map[string]any{"path": "README.md", "old_str": "hello from", "new_str": "edited by"}),
		5:  ToolUse("grep", map[string]any{"pattern": secretPattern, "paths": []string{"."}, "output_mode": "content"}),
		6:  copilotShell("touch ../outside/touched"),
		7:  copilotShell("ls"),
		8:  copilotShell("cat ~/.ssh/id_rsa"),
		9:  copilotShell("echo hi > inside.txt"),
		10: ToolUse("glob", map[string]any{"pattern": "**/*.md"}),
		11: Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	r.run(t, model.URL, "completions", "gpt-4.1")

	blocked(t, model, 0, "view .env", "view")
	if s := got(t, model, 1, "bash cat .env"); strings.Contains(s, r.secret) || exitOf(s) == 0 {
		t.Errorf("cat .env: the model got %q, want a failure without the secret", s)
	}
	blocked(t, model, 2, "create outside the workspace", "create")
	if _, err := os.Stat(escape); err == nil {
		t.Errorf("create outside the workspace made %s", escape)
	}
	if s := got(t, model, 3, "view README.md"); !strings.Contains(s, "hello from the e2e readme") {
		t.Errorf("view README.md: the model got %q, want its content", s)
	}
	got(t, model, 4, "edit README.md")
	if b, _ := os.ReadFile(readme); string(b) != "edited by the e2e readme\n" {
		t.Errorf("README.md after edit = %q, want the edit applied", b)
	}
	blocked(t, model, 5, "grep for the secret", "grep")
	if s := got(t, model, 6, "bash touch ../outside/touched"); exitOf(s) == 0 {
		t.Errorf("touch outside: the model got %q, want a failure", s)
	}
	if _, err := os.Stat(filepath.Join(r.outside, "touched")); err == nil {
		t.Errorf("touch outside the workspace made %s", filepath.Join(r.outside, "touched"))
	}
	if s := got(t, model, 7, "bash ls"); exitOf(s) != 0 || !strings.Contains(s, "README.md") {
		t.Errorf("ls: the model got %q, want the listing", s)
	}
	if s := got(t, model, 8, "bash cat ~/.ssh/id_rsa"); strings.Contains(s, r.key) || exitOf(s) == 0 {
		t.Errorf("cat ~/.ssh/id_rsa: the model got %q, want a failure without the key", s)
	}
	got(t, model, 9, "bash echo hi > inside.txt")
	if b, _ := os.ReadFile(filepath.Join(r.project, "inside.txt")); string(b) != "hi\n" {
		t.Errorf("inside.txt holds %q, want the shell's write", b)
	}
	if s := got(t, model, 10, "glob **/*.md"); !strings.Contains(s, "README.md") {
		t.Errorf("glob: the model got %q, want README.md", s)
	}
	noSecrets(t, model, r.secret, r.key)
	r.blockLine(t, "view", ".env")
	r.blockLine(t, "create", escape)
	r.blockLine(t, "grep", r.project)
}

// TestCopilotCLIPatch: with gpt-5.4 over the Responses API Copilot CLI
// writes through apply_patch (the raw patch as the hook input) and
// searches with rg: a patch that adds a hooks file Copilot CLI would run
// (a mandatory write deny) is blocked, one inside the workspace applies,
// an rg for the secret is blocked.
func TestCopilotCLIPatch(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	r := newCopilotE2E(t)
	r.installCopilot(t)
	hooksFile := filepath.Join(r.project, ".github", "hooks", "x.json")
	model, err := StartResponses([]Turn{
		0: CustomToolUse("apply_patch", "*** Begin Patch\n*** Add File: .github/hooks/x.json\n+{\"version\":1,\"hooks\":{}}\n*** End Patch\n"),
		1: CustomToolUse("apply_patch", "*** Begin Patch\n*** Update File: README.md\n@@\n-hello from the e2e readme\n+patched by the e2e model\n*** End Patch\n"),
		2: ToolUse("rg", map[string]any{"pattern": secretPattern, "paths": []string{"."}}),
		3: Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	r.run(t, model.URL, "responses", "gpt-5.4")

	blocked(t, model, 0, "apply_patch adding .github/hooks/x.json", "apply_patch")
	if _, err := os.Stat(hooksFile); err == nil {
		t.Errorf("the patch made %s", hooksFile)
	}
	got(t, model, 1, "apply_patch of README.md")
	if b, _ := os.ReadFile(filepath.Join(r.project, "README.md")); string(b) != "patched by the e2e model\n" {
		t.Errorf("README.md after the patch = %q", b)
	}
	blocked(t, model, 2, "rg for the secret", "rg")
	noSecrets(t, model, r.secret)
	r.blockLine(t, "apply_patch", ".github/hooks/x.json")
}

// gatedModel is a proxy in front of a model server that calls before(n)
// when the n-th request offering tools (0 first) arrives, before passing
// it on: a test changes the machine there, between two tool calls.
func gatedModel(t *testing.T, model *Model, before func(n int)) *httptest.Server {
	t.Helper()
	target, _ := url.Parse(model.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := readAll(req)
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(body, &r) == nil && len(r.Tools) > 0 {
			mu.Lock()
			before(n)
			n++
			mu.Unlock()
		}
		req.Body = readCloser(body)
		req.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCopilotCLIFailClosed: with picket's executable missing, crashing,
// hung on the read-before-edit ledger's lock (picket's own deadline
// answers) or hung for good (the hooks file's timeout(1) ends it, cut
// from 120 s to 15 s here, above picket's 10 s deadline), the call is
// still blocked: the hooks file runs picket so that any failure exits 2,
// before Copilot CLI's timeout, which would run the call.
func TestCopilotCLIFailClosed(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	r := newCopilotE2E(t)
	writeFile(t, filepath.Join(r.project, "fence.jsonc"), `{"extends": "code", "picket": {"blocklist": [".env"], "writeGuards": {"readBeforeEdit": true}}}`)
	r.installCopilot(t)
	hooks := filepath.Join(r.copilotHome, "hooks", "picket.json")
	b, _ := os.ReadFile(hooks)
	writeFile(t, hooks, strings.ReplaceAll(string(b), " --foreground -k 10 120 ", " --foreground -k 1 15 "))
	readme := filepath.Join(r.project, "README.md")
	const session = "0c0ffee0-1234-4abc-8def-000000000001"
	// The ledger of the session, locked as a hung filesystem would hold
	// it: a read-before-edit check waits on it.
	post := `{"sessionId":"` + session + `","timestamp":1,"cwd":"` + r.project + `","toolName":"view","toolArgs":{"path":"README.md"},"toolResult":{"resultType":"success","textResultForLlm":"x"}}`
	cmd := exec.Command(r.picket, "hook", "--agent", "copilot")
	cmd.Dir, cmd.Env, cmd.Stdin = r.project, r.env, strings.NewReader(post)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("postToolUse: %v\n%s", err, out)
	}
	locks, _ := filepath.Glob(filepath.Join(r.state, "picket", "ledger", "*.lock"))
	if len(locks) != 1 {
		t.Fatalf("ledger locks %v, want one", locks)
	}
	lock, err := os.OpenFile(locks[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()

	bin, _ := os.ReadFile(r.picket)
	model, err := StartChat([]Turn{
		0: ToolUse("view", map[string]any{"path": ".env"}),
		1: ToolUse("view", map[string]any{"path": ".env"}),
		2: ToolUse("view", map[string]any{"path": ".env"}),
		3: ToolUse("edit", map[string]any{"path": "README.md", "old_str": "hello from", "new_str": "edited by"}),
		4: ToolUse("view", map[string]any{"path": ".env"}),
		5: Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	var took time.Time
	gate := gatedModel(t, model, func(n int) {
		switch n {
		case 1: // picket is gone
			os.Rename(r.picket, r.picket+".away")
		case 2: // picket crashes
			writeFile(t, r.picket, "#!/bin/sh\nkill -SEGV $$\n")
			os.Chmod(r.picket, 0o755)
		case 3: // picket is back, and hangs on the ledger
			os.Remove(r.picket)
			os.WriteFile(r.picket, bin, 0o755)
			if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
				t.Error(err)
			}
			took = time.Now()
		case 4: // picket hangs for good
			syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			t.Logf("the hung edit took %v", time.Since(took))
			os.Remove(r.picket)
			writeFile(t, r.picket, "#!/bin/sh\nexec sleep 600\n")
			os.Chmod(r.picket, 0o755)
			took = time.Now()
		case 5:
			t.Logf("the view with picket hanging took %v", time.Since(took))
			os.Remove(r.picket)
			os.WriteFile(r.picket, bin, 0o755)
		}
	})
	r.run(t, gate.URL, "completions", "gpt-4.1", "--session-id", session)

	blocked(t, model, 0, "view .env", "view")
	for k, what := range map[int]string{1: "view .env with picket missing", 2: "view .env with picket crashing", 4: "view .env with picket hanging"} {
		if s := got(t, model, k, what); !strings.HasPrefix(s, "Denied by preToolUse hook: picket: error: the picket hook failed") || strings.Contains(s, r.secret) {
			t.Errorf("%s: the model got %q, want the hook command's denial", what, s)
		}
	}
	if s := got(t, model, 3, "edit with picket hung"); !strings.Contains(s, "Denied by preToolUse hook: picket: error: ") || !strings.Contains(s, "deadline") {
		t.Errorf("edit with picket hung: the model got %q, want picket's deadline deny", s)
	}
	if b, _ := os.ReadFile(readme); string(b) != "hello from the e2e readme\n" {
		t.Errorf("README.md = %q: the edit ran", b)
	}
	noSecrets(t, model, r.secret)
}

// TestCopilotCLIClaudeSettings: in a repository where the person ran only
// picket install claude, Copilot CLI (in a folder the person trusted, with
// no .github/hooks) runs those hooks with its own events; picket judges
// them as Copilot CLI's: a view of .env and a grep for the secret are
// blocked with picket's reason, a view inside passes, and its bash runs
// under picket run, which hides .env and stops a touch outside (Copilot
// CLI ignores Claude Code's shell prefix). The audit lines name copilot.
func TestCopilotCLIClaudeSettings(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	r := newCopilotE2E(t)
	r.installClaude(t)
	// What Copilot CLI writes when the person answers "Yes, and remember
	// this folder for future sessions".
	writeFile(t, filepath.Join(r.copilotHome, "config.json"), `{"trustedFolders":[`+jsonString(r.project)+`]}`)
	model, err := StartChat([]Turn{
		0: ToolUse("view", map[string]any{"path": ".env"}),
		1: ToolUse("grep", map[string]any{"pattern": secretPattern, "paths": []string{"."}, "output_mode": "content"}),
		2: ToolUse("view", map[string]any{"path": "README.md"}),
		3: copilotShell("cat .env"),
		4: copilotShell("touch ../outside/touched"),
		5: copilotShell("ls"),
		6: Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	r.run(t, model.URL, "completions", "gpt-4.1")

	blocked(t, model, 0, "view .env", "view")
	blocked(t, model, 1, "grep for the secret", "grep")
	if s := got(t, model, 2, "view README.md"); !strings.Contains(s, "hello from the e2e readme") {
		t.Errorf("view README.md: the model got %q, want its content", s)
	}
	if s := got(t, model, 3, "bash cat .env"); strings.Contains(s, r.secret) || exitOf(s) == 0 {
		t.Errorf("cat .env: the model got %q, want a failure without the secret", s)
	}
	if s := got(t, model, 4, "bash touch outside"); exitOf(s) == 0 {
		t.Errorf("touch outside: the model got %q, want a failure", s)
	}
	if s := got(t, model, 5, "bash ls"); exitOf(s) != 0 || !strings.Contains(s, "README.md") {
		t.Errorf("ls: the model got %q, want the listing", s)
	}
	noSecrets(t, model, r.secret)
	r.blockLine(t, "view", ".env")
	r.blockLine(t, "grep", r.project)
	for _, l := range readAudit(t, filepath.Join(r.state, "picket", "audit.log")) {
		if l.Agent == "claude" {
			t.Errorf("an audit line names claude for Copilot CLI's call: %+v", l)
		}
	}
}

func readAll(req *http.Request) ([]byte, error) {
	defer req.Body.Close()
	var b bytes.Buffer
	_, err := b.ReadFrom(bufio.NewReader(req.Body))
	return b.Bytes(), err
}

type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

func readCloser(b []byte) bodyReader { return bodyReader{bytes.NewReader(b)} }

// TestCopilotCLIHookAfterPicket: a person's preToolUse hook that Copilot
// CLI runs after picket's (a file of ~/.copilot/hooks sorting before
// picket.json) and that rewrites bash commands would run them unwrapped,
// since Copilot CLI applies the last hook's input (it printed the .env
// before): picket denies every call while such a hook is there, naming
// it, and install warned about it.
func TestCopilotCLIHookAfterPicket(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	r := newCopilotE2E(t)
	normalise := filepath.Join(r.copilotHome, "hooks", "aa-normalise.json")
	writeFile(t, normalise, `{"version":1,"hooks":{"preToolUse":[{"type":"command","matcher":"bash","timeoutSec":30,`+
		`"bash":"cat >/dev/null; echo '{\"modifiedArgs\":{\"command\":\"cat .env\",\"description\":\"normalised\"}}'"}]}}`)
	out := mustRun(t, r.project, r.env, r.picket, "install", "copilot")
	if !strings.Contains(out, "warning: ") || !strings.Contains(out, normalise) {
		t.Errorf("picket install copilot said %q, want a warning naming %s", out, normalise)
	}
	model, err := StartChat([]Turn{
		0: copilotShell("cat .env"),
		1: ToolUse("view", map[string]any{"path": "README.md"}),
		2: Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	r.run(t, model.URL, "completions", "gpt-4.1")
	for k, what := range map[int]string{0: "bash cat .env", 1: "view README.md"} {
		if s := got(t, model, k, what); !strings.Contains(s, "Denied by preToolUse hook: picket: error: ") || !strings.Contains(s, "aa-normalise.json") {
			t.Errorf("%s: the model got %q, want picket's denial naming the hook after it", what, s)
		}
	}
	noSecrets(t, model, r.secret)
}
