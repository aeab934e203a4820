package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/internal/testenv"
)

// geminiFence is the e2e project's policy: the code template, .env never
// read.
const geminiFence = `{"extends": "code", "picket": {"blocklist": [".env", ".env.*"]}}` + "\n"

// geminiPicketWorld is a Gemini CLI world with picket built, the project
// holding a README, a .env, the policy, and a context file that imports
// the .env; picket is installed with picket install gemini (into the
// user's settings) and the project trusted as the docs tell a person.
type geminiPicketWorld struct {
	*geminiWorld
	picket, secret, readme, outside string
	installOut                      string
}

func newGeminiPicketWorld(t *testing.T) *geminiPicketWorld {
	t.Helper()
	w := &geminiPicketWorld{geminiWorld: newGeminiWorld(t)}
	w.env = append(w.env, "CI=true") // picket's hook: no one to ask, every block final
	w.picket = filepath.Join(w.base, "bin", "picket")
	w.secret = "hunter2-e2e-" + randomHex(t)
	w.readme = filepath.Join(w.project, "README.md")
	w.outside = filepath.Join(w.base, "outside-"+randomHex(t))
	mustRun(t, repoRoot(t), os.Environ(), "go", "build", "-o", w.picket, "./cmd/picket")
	writeFile(t, w.readme, "hello from the e2e readme\n")
	// Gemini CLI 0.61 refuses a path with a ".env" name in it by itself
	// ("Path not in workspace", before any hook); .env.local it reads.
	writeFile(t, filepath.Join(w.project, ".env"), "SECRET_VALUE="+w.secret+"\n")
	writeFile(t, filepath.Join(w.project, ".env.local"), "SECRET_VALUE="+w.secret+"\n")
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), geminiFence)
	writeFile(t, filepath.Join(w.project, "notes", "GEMINI.md"), "notes for the model\n@../.env.local\n")
	writeFile(t, filepath.Join(w.project, "notes", "todo.txt"), "todo\n")
	writeFile(t, filepath.Join(w.project, ".gemini", "settings.json"), "{}\n")
	writeFile(t, filepath.Join(w.geminiDir, "settings.json"), geminiSettings(""))
	w.installOut = mustRun(t, w.project, w.env, w.picket, "install", "gemini")
	// The person's step install names: trust the folder, as Gemini CLI's
	// trust dialog does.
	w.trust(t, w.project)
	return w
}

// TestGemini runs Gemini CLI with picket installed: its file tools are
// judged (reads, writes, searches, the context file a read would load),
// its shell runs under picket run, the secret never reaches the model,
// and every block leaves an audit line naming gemini.
func TestGemini(t *testing.T) {
	t.Parallel()
	gemini, version := AgentBinary(t, "gemini")
	testenv.Bwrap(t)
	w := newGeminiPicketWorld(t)
	if !strings.Contains(w.installOut, "will not run picket in "+w.project) || !strings.Contains(w.installOut, `"TRUST_FOLDER"`) {
		t.Errorf("picket install gemini in an untrusted folder did not say what to do:\n%s", w.installOut)
	}
	userSettings := filepath.Join(w.geminiDir, "settings.json")
	installed := readFileString(t, userSettings)
	if !strings.Contains(installed, w.picket+" hook --agent gemini") || !strings.Contains(installed, `"timeout": 90000`) {
		t.Fatalf("picket install gemini wrote no hook for %s:\n%s", w.picket, installed)
	}
	canary := "the canary write_file of " + filepath.Join(w.project, ".git", "hooks", "pre-commit") + " is blocked: picket: blocked write_file "
	geminiDoctor(t, w, w.picket, 0, "Gemini CLI (gemini):\n  ok: user wiring in "+userSettings+"\n  ok: it runs this picket, "+w.picket+"\n  ok: "+canary,
		"ok: Gemini CLI runs it: ", "picket doctor: no problems")
	globalMemory := filepath.Join(w.geminiDir, "GEMINI.md")
	// A person's own hook that rewrites every shell command (as token
	// savers do), in the system settings: Gemini CLI runs it after
	// picket's, and the last tool_input wins. It must see, and keep,
	// picket's wrapping.
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	rewriter, rewrites := filepath.Join(w.base, "rewrite-hook.js"), filepath.Join(w.base, "rewrites.log")
	writeFile(t, rewriter, `let s = ''; process.stdin.on('data', d => s += d).on('end', () => {
  const i = JSON.parse(s).tool_input; i.command = 'true && ' + i.command;
  require('fs').appendFileSync(`+jsonString(rewrites)+`, JSON.stringify(i.command) + '\n');
  process.stdout.write(JSON.stringify({hookSpecificOutput: {hookEventName: 'BeforeTool', tool_input: i}}));
});
`)
	system := filepath.Join(w.base, "system-settings.json")
	writeFile(t, system, `{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "name": "rewriter", "command": `+
		jsonString(hook.ShellQuote(node)+" "+hook.ShellQuote(rewriter))+`, "timeout": 20000}]}]}}`)
	script := []Turn{
		0: ToolUse("read_file", map[string]any{"file_path": ".env.local"}),
		1: geminiShell("cat .env.local .env"),
		// Gemini CLI lets a model write its global GEMINI.md, outside the
		// workspace; picket does not.
		2: ToolUse("write_file", map[string]any{"file_path": globalMemory, "content": "@" + filepath.Join(w.project, ".env.local") + "\n"}),
		3: ToolUse("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": `{"hooksConfig": {"enabled": false}}`}),
		4: ToolUse("replace", map[string]any{"file_path": ".gemini/settings.json", "instruction": "turn hooks off", "old_string": "{}", "new_string": `{"hooksConfig": {"enabled": false}}`}),
		5: ToolUse("read_file", map[string]any{"file_path": "README.md"}),
		6: ToolUse("replace", map[string]any{"file_path": "README.md", "instruction": "reword", "old_string": "hello from", "new_string": "edited by"}),
		// The pattern matches the secret without spelling it.
		7:  ToolUse("grep_search", map[string]any{"pattern": "hunter2-e2e-[0-9a-f]+"}),
		8:  ToolUse("search_file_content", map[string]any{"pattern": "hunter2-e2e-[0-9a-f]+", "dir_path": "."}),
		9:  ToolUse("grep_search", map[string]any{"pattern": "e2e readme", "include_pattern": "*.md"}),
		10: geminiShell("ls"),
		11: geminiShell("touch " + w.outside),
		12: ToolUse("read_file", map[string]any{"file_path": "notes/todo.txt"}),
		13: ToolUse("read_file", map[string]any{"file_path": "@.env.local"}),
		14: ToolUse("read_file", map[string]any{"file_path": "%2Eenv.local"}),
		15: ToolUse("read_file", map[string]any{"file_path": ".env"}),
		16: ToolUse("write_file", map[string]any{"file_path": w.outside + ".txt", "content": "x\n"}),
		17: Text("DONE"),
	}
	model, err := StartGemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	stdout, stderr, took := w.run(t, w.project, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + system}, gemini, geminiArgs()...)
	t.Logf("gemini %s took %v, %d requests", version, took, len(model.Requests()))
	if !strings.Contains(string(stdout), `"response": "DONE"`) {
		t.Errorf("gemini -p did not finish the script:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	results := model.Results()
	for k := range len(script) - 1 {
		t.Logf("call %d %v: error %v, the model got %q", k, script[k].Content[0]["name"], results[ToolUseID(k)].IsError, clip(results[ToolUseID(k)].Text, 160))
	}
	result := func(k int) Result {
		r, ok := results[ToolUseID(k)]
		if !ok {
			t.Errorf("call %d (%v): the model got no result", k, script[k].Content[0]["name"])
		}
		return r
	}
	blocked := func(k int, what string) {
		t.Helper()
		if r := result(k); !r.IsError || !strings.Contains(r.Text, "Tool execution blocked: picket: blocked") {
			t.Errorf("%s: the model got %q (error %v), want picket's block", what, clip(r.Text, 300), r.IsError)
		}
	}
	blocked(0, "read_file .env.local")
	blocked(2, "write_file of Gemini CLI's global GEMINI.md")
	blocked(3, "write_file .gemini/settings.json")
	blocked(4, "replace in .gemini/settings.json")
	blocked(7, "grep_search for the secret")
	blocked(8, "search_file_content for the secret")
	blocked(12, "read_file beside a GEMINI.md that imports .env")
	blocked(13, "read_file @.env.local")
	blocked(14, "read_file %2Eenv.local")
	if r := result(0); !strings.Contains(r.Text, `"rule": "picket.blocklist"`) {
		t.Errorf("read_file .env.local: the model got %q, want picket's reason with its rule", r.Text)
	}
	if r := result(15); !r.IsError {
		t.Errorf("read_file .env: the model got %q, want it refused", r.Text)
	}
	if r := result(1); strings.Contains(r.Text, w.secret) || !strings.Contains(r.Text, "modified by a hook") {
		t.Errorf("cat .env.local .env: the model got %q, want no secret, from a command picket rewrote", r.Text)
	}
	// The person's hook saw every shell command as picket wrapped it.
	if got := readFileString(t, rewrites); strings.Count(got, "\n") != 3 || strings.Count(got, "true && GEMINI_PROJECT_DIR=") != 3 || strings.Count(got, " run --cwd ") != 3 {
		t.Errorf("the person's own hook rewrote:\n%s\nwant the three shell commands as picket wrapped them", got)
	}
	if r := result(5); r.IsError || !strings.Contains(r.Text, "hello from the e2e readme") {
		t.Errorf("read_file README.md: the model got %q", r.Text)
	}
	if r := result(6); r.IsError {
		t.Errorf("replace in README.md: the model got %q", r.Text)
	}
	if got := readFileString(t, w.readme); got != "edited by the e2e readme\n" {
		t.Errorf("README.md after replace = %q", got)
	}
	if r := result(9); r.IsError || !strings.Contains(r.Text, "e2e readme") {
		t.Errorf("grep_search in *.md: the model got %q, want the README's line", r.Text)
	}
	if r := result(10); r.IsError || !strings.Contains(r.Text, "README.md") {
		t.Errorf("ls: the model got %q, want the listing", r.Text)
	}
	if r := result(11); strings.Contains(r.Text, "Exit Code: 0") || !strings.Contains(r.Text, "modified by a hook") {
		t.Errorf("touch outside the workspace: the model got %q, want a failure under picket run", r.Text)
	}
	// A write outside the workspace: refused, by Gemini CLI's own
	// workspace check or by picket, and never written.
	if r := result(16); !r.IsError {
		t.Errorf("write_file outside the workspace: the model got %q, want it refused", r.Text)
	}
	if _, err := os.Stat(w.outside + ".txt"); err == nil {
		t.Errorf("write_file outside the workspace created %s.txt", w.outside)
	}
	if _, err := os.Stat(w.outside); err == nil {
		t.Errorf("touch outside the workspace created %s", w.outside)
	}
	if _, err := os.Stat(globalMemory); err == nil {
		t.Errorf("write_file created %s", globalMemory)
	}
	if got := readFileString(t, filepath.Join(w.project, ".gemini", "settings.json")); got != "{}\n" {
		t.Errorf(".gemini/settings.json = %q, want it untouched", got)
	}
	// Gemini CLI rewrites the user's settings as it starts (it migrates
	// old keys); picket's hooks stay, and nothing turned them off.
	if got := readFileString(t, userSettings); !strings.Contains(got, w.picket+" hook --agent gemini") || strings.Contains(got, "hooksConfig") {
		t.Errorf("the user's settings after the run:\n%s", got)
	}
	for i, r := range model.Requests() {
		if bytes.Contains(r.Body, []byte(w.secret)) {
			t.Errorf("request %d (%s) carries the .env secret to the model", i, r.Path)
		}
	}
	audit := filepath.Join(w.home, ".local", "state", "picket", "audit.log")
	if strings.Contains(readFileString(t, audit), w.secret) {
		t.Errorf("the audit log carries the secret")
	}
	lines := readAudit(t, audit)
	for _, want := range []struct{ tool, path string }{
		{"read_file", ".env.local"}, {"write_file", globalMemory}, {"write_file", ".gemini/settings.json"},
		{"replace", ".gemini/settings.json"}, {"grep_search", w.project}, {"search_file_content", w.project},
		{"read_file", "notes/todo.txt"},
	} {
		found := false
		for _, l := range lines {
			if l.Decision == "block" && l.Tool == want.tool && strings.Contains(l.Path, want.path) {
				found = true
				if l.Agent != "gemini" || l.Session == "" || l.Rule == "" {
					t.Errorf("audit line for %s %s lacks agent gemini, the session or the rule: %+v", want.tool, want.path, l)
				}
			}
		}
		if !found {
			t.Errorf("no audit block line for %s %s", want.tool, want.path)
		}
	}
}

// TestGeminiFailClosed: with picket's executable crashing, hanging past
// the hook command's timeout, or missing, Gemini CLI's calls are still
// blocked, file tools and shell alike, and picket doctor names the
// problem. The hang uses the installed
// wiring with its two timeouts shortened (3 s and 20 s), so the run does
// not take Gemini CLI's 90.
func TestGeminiFailClosed(t *testing.T) {
	t.Parallel()
	gemini, _ := AgentBinary(t, "gemini")
	for _, mode := range []string{"stand-in", "missing"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newGeminiPicketWorld(t)
			other := filepath.Join(w.base, "other", "picket")
			writeFile(t, other, readFileString(t, w.picket))
			os.Chmod(other, 0o755)
			settings := filepath.Join(w.geminiDir, "settings.json")
			wired := readFileString(t, settings)
			canary := "canary-" + randomHex(t)
			for _, f := range []string{"crash.txt", "hang.txt", "gone.txt"} {
				writeFile(t, filepath.Join(w.project, f), canary+"\n")
			}
			var script []Turn
			if mode == "missing" {
				os.Remove(w.picket)
				script = []Turn{ToolUse("read_file", map[string]any{"file_path": "gone.txt"}), geminiShell("cat gone.txt")}
			} else {
				// The stand-in crashes on one file, hangs on the other.
				// It lets the prompt through (BeforeAgent), which a
				// broken picket would block as a whole (see
				// TestGeminiStartContext), so that each call is seen.
				writeFile(t, w.picket, "#!/bin/sh\ncase $(cat) in\n*'\"BeforeAgent\"'*) exit 0 ;;\n*hang.txt*) exec sleep 600 ;;\n*) kill -SEGV $$ ;;\nesac\n")
				os.Chmod(w.picket, 0o755)
				script = []Turn{
					ToolUse("read_file", map[string]any{"file_path": "crash.txt"}), geminiShell("cat crash.txt"),
					ToolUse("read_file", map[string]any{"file_path": "hang.txt"}), geminiShell("cat hang.txt"),
				}
			}
			// picket doctor (another copy of picket) names the problem.
			if mode == "missing" {
				geminiDoctor(t, w, other, 1, "it runs "+w.picket+", which is not there (no such file or directory): a stale install",
					"picket did not judge it: picket: error: picket's hook failed, timed out or is missing (exit 127)")
			} else {
				geminiDoctor(t, w, other, 1, "it runs "+w.picket+", another picket than this one",
					"picket did not judge it: picket: error: picket's hook failed, timed out or is missing (exit 139)")
			}
			if mode == "missing" {
				// picket goes once the prompt is through (BeforeAgent):
				// uninstalled in the middle of a session.
				writeFile(t, w.picket, "#!/bin/sh\ncase $(cat) in\n*'\"BeforeAgent\"'*) rm -f \"$0\" ;;\nesac\nexit 0\n")
				os.Chmod(w.picket, 0o755)
			}
			wired = strings.ReplaceAll(wired, "KILL 85 ", "KILL 3 ")
			wired = strings.ReplaceAll(wired, `"timeout": 90000`, `"timeout": 20000`)
			writeFile(t, settings, wired)
			model, err := StartGemini(append(script, Text("DONE")))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			_, _, took := w.run(t, w.project, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
			t.Logf("gemini took %v", took)
			for k := range script {
				r, ok := model.Results()[ToolUseID(k)]
				if !ok || !r.IsError || !strings.Contains(r.Text, "picket: error: picket's hook failed, timed out or is missing") || strings.Contains(r.Text, canary) {
					t.Errorf("call %d (%v): the model got %q (error %v), want it blocked by the hook command", k, script[k].Content[0], clip(r.Text, 300), r.IsError)
				}
			}
			for i, r := range model.Requests() {
				if bytes.Contains(r.Body, []byte(canary)) || bytes.Contains(r.Body, []byte(w.secret)) {
					t.Errorf("request %d carries a file's content to the model", i)
				}
			}
		})
	}
}

// geminiDoctor runs picket doctor (the picket at exe) in the world's
// project and checks its exit status and that its output holds want.
func geminiDoctor(t *testing.T, w *geminiPicketWorld, exe string, code int, want ...string) {
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
	if got != code {
		t.Errorf("picket doctor exited %d, want %d:\n%s", got, code, b)
	}
	for _, l := range want {
		if !strings.Contains(string(b), l) {
			t.Errorf("picket doctor's output lacks %q:\n%s", l, b)
		}
	}
}

// TestGeminiStartContext: a GEMINI.md that imports the .env (one a shell
// command wrote in an earlier session: the workspace is writable) is
// loaded by Gemini CLI when the session starts, without a tool call.
// picket's BeforeAgent hook judges it before the prompt reaches the
// model: the prompt is blocked, and no request carries the secret. With
// picket's executable missing, every prompt is blocked.
func TestGeminiStartContext(t *testing.T) {
	t.Parallel()
	gemini, _ := AgentBinary(t, "gemini")
	w := newGeminiPicketWorld(t)
	writeFile(t, filepath.Join(w.project, "GEMINI.md"), "project notes\n@.env.local\n")
	model, err := StartGemini([]Turn{Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	stdout, stderr, _ := w.run(t, w.project, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
	for i, r := range model.Requests() {
		if bytes.Contains(r.Body, []byte(w.secret)) {
			t.Errorf("request %d (%s) carries the .env secret to the model", i, r.Path)
		}
	}
	if out := string(stdout) + string(stderr); !strings.Contains(out, "picket: blocked BeforeAgent "+filepath.Join(w.project, "GEMINI.md")) {
		t.Errorf("gemini -p did not say picket blocked the prompt:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	t.Logf("%d requests", len(model.Requests()))

	// With picket's executable gone, the hook command blocks every
	// prompt before it reaches the model.
	os.Remove(filepath.Join(w.project, "GEMINI.md"))
	os.Remove(w.picket)
	model2, err := StartGemini([]Turn{ToolUse("read_file", map[string]any{"file_path": ".env.local"}), Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model2.Close()
	stdout, stderr, _ = w.run(t, w.project, []string{"GOOGLE_GEMINI_BASE_URL=" + model2.URL}, gemini, geminiArgs()...)
	if n := len(model2.Requests()); n != 0 || !strings.Contains(string(stdout)+string(stderr), "picket: error: picket's hook failed, timed out or is missing (exit 127)") {
		t.Errorf("with picket missing: %d requests, and gemini -p said:\nstdout:\n%s\nstderr:\n%s", n, stdout, stderr)
	}
}
