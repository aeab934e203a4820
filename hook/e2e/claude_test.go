package e2e

// What the real Claude Code does, verified with 2.1.197 (npm
// @anthropic-ai/claude-code) against the scripted model in model.go, first
// with a shell-script hook that logged its stdin and environment:
//
//   - Run as `claude -p PROMPT --output-format json --permission-mode
//     acceptEdits --allowedTools Read,Write,Edit,Grep,Glob` with HOME in a
//     temp dir, ANTHROPIC_BASE_URL=<model>, ANTHROPIC_API_KEY=test and
//     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (plus DISABLE_AUTOUPDATER,
//     DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING). As root it refuses
//     bypassPermissions; acceptEdits works. No login or onboarding is needed.
//   - Traffic: one `HEAD /` (a reachability check), then one `POST
//     /v1/messages` per model turn, all with "stream": true, the same
//     "model" (claude-opus-4-8), 26 tools and the whole conversation. With
//     non-essential traffic off there were no count_tokens, title or haiku
//     side requests; the server answers those harmlessly anyway.
//   - The tool list has no LS and no MultiEdit: the file tools are Read,
//     Write, Edit, NotebookEdit, Grep, Glob. Unknown tool parameters fail
//     Claude Code's input validation before any hook runs.
//   - A PreToolUse hook that prints
//     {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":R}}
//     and exits 0 stops the call; the model receives a tool_result with
//     "is_error": true whose content is exactly R, and the call is listed
//     in the result JSON's "permission_denials".
//   - CLAUDE_PROJECT_DIR is set in the hook's environment (the project
//     directory), and the hook runs with that directory as its cwd.
//   - Payloads match ../../shared fixtures: PreToolUse carries session_id,
//     transcript_path, cwd, prompt_id, permission_mode, effort, tool_name,
//     tool_input, tool_use_id; PostToolUse adds tool_response (Read:
//     {"type":"text","file":{"filePath","content",...}}, Edit: filePath,
//     oldString, newString, originalFile, structuredPatch; Grep: mode,
//     numFiles, filenames, content; Glob: filenames, durationMs, numFiles,
//     truncated) and duration_ms. SessionStart has "source":"startup",
//     SessionEnd "reason":"other" and runs as `claude -p` exits. Denied
//     calls get no PostToolUse.
//   - Grep over the project does NOT skip dotfiles: it returned
//     ".env:1:SECRET_VALUE=..." to the model. It does skip git-ignored files
//     (a git-ignored file with the same secret was not in the result).
//     Glob lists dotfiles, .git/ and git-ignored files alike.
//   - Claude Code's own permissions.deny: Edit(path) rules stop the Write
//     tool too ("File is in a directory that is denied by your permission
//     settings."); a Write(path) rule alone does not. In project settings a
//     leading "/" is the project root; in ~/.claude/settings.json it is
//     ~/.claude, so user rules need "**/path". Claude Code also treats
//     .mcp.json, .git/hooks, ~/.gitconfig, ~/.claude/skills and .claude/*
//     as sensitive and asks before writing them, which -p turns into a
//     denial.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	claudeagent "github.com/picketdev/picket/hook/claude"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// claudeBinary finds the Claude Code binary that .ci/agents.sh installed
// (or PICKET_CLAUDE names); see AgentBinary.
func claudeBinary(t *testing.T) string {
	t.Helper()
	bin, _ := AgentBinary(t, "claude")
	return bin
}

// scratch makes a directory for one test run: under the repository's
// .cache/e2e-tmp, or /var/lib/picket-e2e when the checkout itself is in a
// place the code template makes writable; PICKET_E2E_TMP overrides both.
func scratch(t *testing.T) string {
	t.Helper()
	return ScratchDir(t, "PICKET_E2E_TMP", filepath.Join(repoRoot(t), ".cache", "e2e-tmp"), "/var/lib/picket-e2e")
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toolResult is a tool_result block as the model received it.
type toolResult struct {
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// text flattens the content, a string or a list of text blocks.
func (r toolResult) text() string {
	var s string
	if json.Unmarshal(r.Content, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	json.Unmarshal(r.Content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// toolResults collects, by tool_use_id, every tool_result in the recorded
// main-loop requests.
func toolResults(t *testing.T, reqs []Request) map[string]toolResult {
	t.Helper()
	out := map[string]toolResult{}
	for _, r := range reqs {
		if r.Turn < 0 {
			continue
		}
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("request %s is not JSON: %v", r.Path, err)
		}
		for _, m := range body.Messages {
			var blocks []json.RawMessage
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				var tr struct {
					Type string `json:"type"`
					toolResult
				}
				if json.Unmarshal(b, &tr) == nil && tr.Type == "tool_result" {
					out[tr.ToolUseID] = tr.toolResult
				}
			}
		}
	}
	return out
}

// auditLine is the part of an audit log line the test checks.
type auditLine struct {
	Decision, Tool, Access, Path, Layer, Rule, Session, Agent string
}

func readAudit(t *testing.T, path string) []auditLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	var lines []auditLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("audit line is not JSON: %v: %s", err, sc.Bytes())
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// projectFence is the e2e projects' policy.
const projectFence = `{
  // The project's policy: the code template, and .env never read.
  "extends": "code",
  "picket": {"blocklist": [".env"]}
}
`

// world is one end-to-end run's machine: a fake home whose XDG dirs env
// names, a git project holding README.md and projectFence, and picket
// built into base/bin.
type world struct {
	base, home, project, state, picket string
	env                                []string
}

func newWorld(t *testing.T, extraEnv ...string) *world {
	t.Helper()
	base := scratch(t)
	w := &world{
		base:    base,
		home:    filepath.Join(base, "home"),
		project: filepath.Join(base, "project"),
		state:   filepath.Join(base, "home", ".local", "state"),
		picket:  filepath.Join(base, "bin", "picket"),
	}
	w.env = append([]string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + w.state,
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"GIT_CONFIG_NOSYSTEM=1",
	}, extraEnv...)
	if err := os.MkdirAll(w.home, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, repoRoot(t), os.Environ(), "go", "build", "-o", w.picket, "./cmd/picket")
	writeFile(t, filepath.Join(w.project, "README.md"), "hello from the e2e readme\n")
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), projectFence)
	mustRun(t, w.project, w.env, "git", "init", "-q")
	return w
}

// installClaude runs picket install claude --project in the project and
// returns the settings it wrote.
func (w *world) installClaude(t *testing.T) []byte {
	t.Helper()
	mustRun(t, w.project, w.env, w.picket, "install", "claude", "--project")
	settings, err := os.ReadFile(filepath.Join(w.project, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	return settings
}

func TestClaudeCode(t *testing.T) {
	claude := claudeBinary(t)
	w := newWorld(t)
	state, project, picket, env := w.state, w.project, w.picket, w.env
	outside := filepath.Join(w.base, "outside", "escape.txt")
	secret := "hunter2-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(project, ".env"), "SECRET_VALUE="+secret+"\n")
	if settings := w.installClaude(t); !bytes.Contains(settings, []byte(picket+" hook --agent claude")) {
		t.Fatalf("picket install claude --project wrote no hook for %s:\n%s", picket, settings)
	}

	readme := filepath.Join(project, "README.md")
	model, err := StartModel([]Turn{
		0: ToolUse("Read", map[string]any{"file_path": filepath.Join(project, ".env")}),
		1: ToolUse("Write", map[string]any{"file_path": outside, "content": "escaped\n"}),
		2: ToolUse("Read", map[string]any{"file_path": readme}),
		3: ToolUse("Edit", map[string]any{"file_path": readme, "old_string": "hello from", "new_string": "edited by"}),
		// The pattern matches the secret without spelling it, so the
		// secret in a request body can only come from a tool result.
		4: ToolUse("Grep", map[string]any{"pattern": "hunter2-e2e-[0-9a-f]+", "path": project, "output_mode": "content"}),
		5: Text("done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	start := time.Now()
	stdout := runClaude(t, claude, project, env, model)
	t.Logf("claude -p took %v, %d requests to the model", time.Since(start), len(model.Requests()))

	checkResult(t, stdout)
	reqs := model.Requests()
	results := toolResults(t, reqs)
	checkBlocked := func(k int, what string) {
		t.Helper()
		r, ok := results[ToolUseID(k)]
		if !ok {
			t.Errorf("%s: the model never received a tool_result", what)
			return
		}
		if !r.IsError || !strings.Contains(r.text(), "picket: blocked") {
			t.Errorf("%s: tool_result = %q (is_error %v), want a picket block", what, r.text(), r.IsError)
		}
	}
	t.Logf("the model read for Read .env: %q", results[ToolUseID(0)].text())
	checkBlocked(0, "Read .env")
	checkBlocked(1, "Write outside the workspace")
	checkBlocked(4, "Grep over a tree holding .env")
	if r := results[ToolUseID(2)]; r.IsError || !strings.Contains(r.text(), "hello from the e2e readme") {
		t.Errorf("Read README.md: tool_result = %q (is_error %v), want the file's content", r.text(), r.IsError)
	}
	if r := results[ToolUseID(3)]; r.IsError {
		t.Errorf("Edit README.md: tool_result = %q, want success", r.text())
	}
	if got, _ := os.ReadFile(readme); string(got) != "edited by the e2e readme\n" {
		t.Errorf("README.md after Edit = %q, want the edit applied", got)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("Write outside the workspace created %s", outside)
	}
	for i, r := range reqs {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Errorf("request %d (%s %s) carries the .env secret to the model", i, r.Method, r.Path)
		}
	}
	checkAudit(t, filepath.Join(state, "picket", "audit.log"), project, outside, secret)
}

// checkResult checks claude -p's result JSON: a clean end, and picket's
// denials listed as permission denials.
func checkResult(t *testing.T, out []byte) {
	t.Helper()
	var res struct {
		IsError           bool   `json:"is_error"`
		Result            string `json:"result"`
		PermissionDenials []struct {
			ToolName  string `json:"tool_name"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("claude -p --output-format json printed no JSON: %v\n%s", err, out)
	}
	if res.IsError || res.Result != "done" {
		t.Errorf("claude -p result = %q (is_error %v), want \"done\"", res.Result, res.IsError)
	}
	denied := map[string]string{}
	for _, d := range res.PermissionDenials {
		denied[d.ToolUseID] = d.ToolName
	}
	for k, tool := range map[int]string{0: "Read", 1: "Write", 4: "Grep"} {
		if denied[ToolUseID(k)] != tool {
			t.Errorf("permission_denials lack %s %s: %v", tool, ToolUseID(k), res.PermissionDenials)
		}
	}
	for _, k := range []int{2, 3} {
		if _, ok := denied[ToolUseID(k)]; ok {
			t.Errorf("permission_denials list the allowed call %s", ToolUseID(k))
		}
	}
}

// checkAudit checks that every block left one audit line naming the tool,
// the path, the layer and the rule, and that no line carries the secret.
func checkAudit(t *testing.T, path, project, outside, secret string) {
	t.Helper()
	if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(secret)) {
		t.Errorf("the audit log carries the .env secret")
	}
	lines := readAudit(t, path)
	t.Logf("audit log: %d lines", len(lines))
	find := func(tool, pathPart string) {
		t.Helper()
		for _, l := range lines {
			if l.Decision == "block" && l.Tool == tool && strings.Contains(l.Path, pathPart) {
				if l.Layer == "" || l.Rule == "" || l.Agent != "claude" || l.Session == "" {
					t.Errorf("audit line for %s %s lacks layer, rule, agent or session: %+v", tool, pathPart, l)
				}
				return
			}
		}
		t.Errorf("no audit block line for %s %s in %+v", tool, pathPart, lines)
	}
	find("Read", ".env")
	find("Write", outside)
	find("Grep", project)
	for _, l := range lines {
		if l.Decision == "block" && strings.HasSuffix(l.Path, "README.md") {
			t.Errorf("audit log blocks the allowed README.md: %+v", l)
		}
	}
}

// runClaude runs claude -p in dir against model, the way every e2e test
// runs it, with the file tools allowed, and returns its stdout (the result
// JSON).
func runClaude(t *testing.T, claude, dir string, env []string, model *Model) []byte {
	t.Helper()
	return runClaudeWith(t, claude, dir, env, model, "Read,Write,Edit,NotebookEdit,Grep,Glob")
}

// TestClaudeCodeDenyRules proves that the permissions.deny rules install
// writes hold in Claude Code itself, with no picket hook to help: for the
// project scope (a leading "/" is the project root) and the user scope
// ("**/path").
func TestClaudeCodeDenyRules(t *testing.T) {
	claude := claudeBinary(t)
	for _, user := range []bool{false, true} {
		name := map[bool]string{false: "project", true: "user"}[user]
		t.Run(name, func(t *testing.T) {
			base := scratch(t)
			home := filepath.Join(base, "home")
			project := filepath.Join(base, "project")
			env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
			writeFile(t, filepath.Join(project, "README.md"), "hi\n")
			mustRun(t, project, env, "git", "init", "-q")
			settingsPath := filepath.Join(project, ".claude", "settings.json")
			if user {
				settingsPath = filepath.Join(home, ".claude", "settings.json")
			}
			// No hook command that could block: only the deny rules act.
			// picket's own dirs as install finds them: the fence config
			// under home ("~/" rules), the state dir outside it ("//" rules).
			own := claudeagent.OwnPaths{Home: home, ConfigDir: filepath.Join(home, ".config", "fence"), StateDir: filepath.Join(base, "state", "picket")}
			opts := claudeagent.Wiring{Command: "true", User: user, Own: own}
			if _, err := claudeagent.UpdateSettings(settingsPath, func(b []byte) ([]byte, error) { return claudeagent.AddWiring(b, opts) }); err != nil {
				t.Fatal(err)
			}
			denied := []string{
				filepath.Join(project, "fence.jsonc"),
				filepath.Join(project, ".codex", "config.toml"),
				filepath.Join(project, ".claude", "hooks", "x.sh"),
				filepath.Join(home, ".bashrc"),
				filepath.Join(home, ".config", "fence", "fence.jsonc"),
				filepath.Join(base, "state", "picket", "sessions", "s.json"),
				filepath.Join(project, "sub", "fence.jsonc"),
				filepath.Join(project, "sub", ".claude", "skills", "x", "SKILL.md"),
			}
			allowed := filepath.Join(project, "notes.txt")
			var script []Turn
			for _, p := range append(denied, allowed) {
				script = append(script, ToolUse("Write", map[string]any{"file_path": p, "content": "x\n"}))
			}
			model, err := StartModel(append(script, Text("done")))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			runClaude(t, claude, project, env, model)
			results := toolResults(t, model.Requests())
			for k, p := range denied {
				r := results[ToolUseID(k)]
				if !r.IsError || !strings.Contains(r.text(), "denied by your permission settings") {
					t.Errorf("Write %s: tool_result = %q, want Claude Code's own permission denial", p, r.text())
				}
				if _, err := os.Stat(p); err == nil {
					t.Errorf("Write %s went through", p)
				}
			}
			if _, err := os.Stat(allowed); err != nil {
				t.Errorf("Write %s (not protected) failed: %q", allowed, results[ToolUseID(len(denied))].text())
			}
		})
	}
}
