package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// piBinary finds the pi that .ci/agents.sh installed (or PICKET_PI names).
// Without one the test skips, unless PICKET_E2E=1 says it must be there.
func piBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(repoRoot(t), ".cache", "agents", "node_modules", ".bin", "pi")
	for _, c := range []string{os.Getenv("PICKET_PI"), bin} {
		if c == "" {
			continue
		}
		if err := exec.Command(c, "--version").Run(); err == nil {
			return c
		}
	}
	if os.Getenv("PICKET_E2E") == "1" {
		t.Fatalf("PICKET_E2E=1 but no working pi at %s: run bash .ci/agents.sh", bin)
	}
	t.Skipf("Pi is not installed at %s: run bash .ci/agents.sh (PICKET_E2E=1 makes this a failure)", bin)
	return ""
}

// piWorld is one test's machine: a home with Pi's config and picket's
// extension, a git project with a fence.jsonc, and the picket binary.
type piWorld struct {
	base, home, project, state, picket string
	env                                []string
}

// The provider and model the scripted server plays in ~/.pi/agent/models.json.
const (
	piProvider = "picket-e2e"
	piModel    = "claude-scripted"
)

func newPiWorld(t *testing.T) *piWorld {
	t.Helper()
	base := scratch(t)
	w := &piWorld{
		base:    base,
		home:    filepath.Join(base, "home"),
		project: filepath.Join(base, "project"),
		state:   filepath.Join(base, "home", ".local", "state"),
		picket:  filepath.Join(base, "bin", "picket"),
	}
	w.env = []string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"XDG_STATE_HOME=" + w.state,
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"GIT_CONFIG_NOSYSTEM=1",
		"PI_OFFLINE=1",
		"PI_TELEMETRY=0",
	}
	mustRun(t, repoRoot(t), os.Environ(), "go", "build", "-o", w.picket, "./cmd/picket")
	writeFile(t, filepath.Join(w.project, "README.md"), "hello from the e2e readme\n")
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), `{
  // The project's policy: the code template, and .env never read.
  "extends": "code",
  "picket": {"blocklist": [".env"]}
}
`)
	mustRun(t, w.project, w.env, "git", "init", "-q")
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pi, piArgs(append(extra, "-p", "Do the scripted steps.")...)...)
	cmd.Dir = w.project
	cmd.Env = w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi -p: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if stderr.Len() > 0 {
		t.Logf("pi -p stderr:\n%s", stderr.Bytes())
	}
	return stdout.Bytes()
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
