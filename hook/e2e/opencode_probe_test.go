package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// opencodeWorld is a probe world for opencode: its config, data, cache
// and state live under the world's XDG directories.
type opencodeWorld struct {
	*probeWorld
	configDir string // $XDG_CONFIG_HOME/opencode
}

func newOpencodeWorld(t *testing.T) *opencodeWorld {
	t.Helper()
	w := &opencodeWorld{probeWorld: newProbeWorld(t)}
	w.configDir = filepath.Join(w.home, ".config", "opencode")
	w.env = append(w.env, "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")
	// Without rg on PATH, glob and grep download ripgrep from GitHub:
	// lend them the one the pinned Codex ships.
	codex, _ := AgentBinary(t, "codex")
	rg := filepath.Join(filepath.Dir(filepath.Dir(codex)), "codex-path")
	for i, e := range w.env {
		if strings.HasPrefix(e, "PATH=") {
			w.env[i] = "PATH=" + rg + ":" + strings.TrimPrefix(e, "PATH=")
		}
	}
	// opencode installs @opencode-ai/plugin from the npm registry into
	// every config directory at start-up, unless node_modules is there
	// and package-lock.json lists it.
	for _, d := range []string{w.configDir, filepath.Join(w.project, ".opencode")} {
		writeFile(t, filepath.Join(d, "node_modules", ".keep"), "")
		writeFile(t, filepath.Join(d, "package-lock.json"), `{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}`)
	}
	return w
}

// useModel writes opencode.json with model as an @ai-sdk/openai-compatible
// provider serving modelID, for the main and the small (titles) model.
// Directories outside the project are allowed: by default opencode asks,
// and `opencode run` ends the session on a question.
func (w *opencodeWorld) useModel(t *testing.T, model *Model, modelID string) {
	t.Helper()
	writeFile(t, filepath.Join(w.configDir, "opencode.json"), `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"e2e": {"npm": "@ai-sdk/openai-compatible", "name": "e2e",
    "options": {"baseURL": "`+model.URL+`/v1", "apiKey": "test"},
    "models": {`+jsonString(modelID)+`: {"name": "scripted", "tool_call": true}}}},
  "model": "e2e/`+modelID+`",
  "small_model": "e2e/`+modelID+`",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"external_directory": "allow"}
}
`)
}

// opencodePlugin is the probe as a local plugin: it logs each call and
// its loading, throws the probe's reason on the canary, rewrites a
// command holding the rewrite mode word in place, and holds a call
// holding the timeout mode word for three probe timeouts.
func opencodePlugin(log string) string {
	return `import { appendFileSync } from "node:fs"
const log = (o) => appendFileSync(` + jsonString(log) + `, JSON.stringify(o) + "\n")
export const PicketProbe = async ({ directory, worktree }) => {
  log({ loaded: "probe", directory, worktree })
  return {
    "tool.execute.before": async (input, output) => {
      log({ input, args: output.args, directory, worktree, pwd: process.cwd() })
      const s = JSON.stringify(output.args)
      if (s.includes(` + jsonString(Canary) + `)) throw new Error(` + jsonString(ProbeReason) + `)
      if (s.includes(` + jsonString(ModeRewrite) + `)) output.args.command = ` + jsonString(rewrittenCommand(ModeRewrite)) + `
      if (s.includes(` + jsonString(ModeTimeout) + `)) await new Promise((r) => setTimeout(r, ` + itoa(int(3*ProbeTimeout.Milliseconds())) + `))
    },
  }
}
`
}

// opencodeBroken are plugins that fail to load, each of which would deny
// a call naming its file.
func opencodeBroken(log string) map[string]string {
	return map[string]string{
		"syntax.js": `export const Broken = async () => ({ "tool.execute.before": async (i, o) => { if (JSON.stringify(o.args).includes("plugin-syntax")) throw new Error("syntax plugin denies") } ) }`,
		"init.js": `import { appendFileSync } from "node:fs"
export const Broken = async () => {
  appendFileSync(` + jsonString(log) + `, JSON.stringify({ loaded: "init-throws" }) + "\n")
  throw new Error("init fails")
}
`,
	}
}

// pluginRuns reads the plugin's log: loads and hook calls.
type pluginRun struct {
	Loaded    string         `json:"loaded"`
	Input     map[string]any `json:"input"`
	Args      map[string]any `json:"args"`
	Directory string         `json:"directory"`
	Worktree  string         `json:"worktree"`
	Pwd       string         `json:"pwd"`
}

func pluginRuns(t *testing.T, log string) []pluginRun {
	t.Helper()
	var out []pluginRun
	for _, line := range strings.Split(strings.TrimSpace(readFileString(t, log)), "\n") {
		if line == "" {
			continue
		}
		var r pluginRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Errorf("plugin log line is not JSON: %v: %s", err, line)
		}
		out = append(out, r)
	}
	return out
}

// findPluginCall is the first hook call of tool whose args are args (JSON).
func findPluginCall(runs []pluginRun, tool, args string) (pluginRun, bool) {
	var v any
	json.Unmarshal([]byte(args), &v)
	want, _ := json.Marshal(v)
	for _, r := range runs {
		got, _ := json.Marshal(r.Args)
		if r.Input["tool"] == tool && string(got) == string(want) {
			return r, true
		}
	}
	return pluginRun{}, false
}

func (w *opencodeWorld) runOpencode(t *testing.T, opencode string, flags ...string) []byte {
	t.Helper()
	stdout, stderr, took := w.run(t, w.sub, nil, opencode, append([]string{"run", "Do the scripted steps.", "--format", "json"}, flags...)...)
	t.Logf("opencode run took %v; stderr:\n%s", took, clip(string(stderr), 2000))
	return stdout
}

func opencodeShell(cmd string) Turn {
	return ToolUse("bash", map[string]any{"command": cmd, "description": "probe"})
}

// TestOpencodeProbe proves opencode's tool.execute.before plugin hook at
// the pinned version: the arguments per tool, a throw whose message
// reaches the model, an allowed read's content, where relative paths go,
// an in-place rewrite, no timeout, and that plugins that fail to load are
// skipped without a word.
func TestOpencodeProbe(t *testing.T) {
	t.Parallel()
	opencode, version := AgentBinary(t, "opencode")
	w := newOpencodeWorld(t)
	log := filepath.Join(w.base, "plugin.log")
	plugins := filepath.Join(w.project, ".opencode", "plugins")
	writeFile(t, filepath.Join(plugins, "probe.js"), opencodePlugin(log))
	for name, src := range opencodeBroken(log) {
		writeFile(t, filepath.Join(plugins, name), src)
	}
	writeFile(t, filepath.Join(w.sub, "plugin-syntax.txt"), "the syntax plugin did not load\n")
	canary := filepath.Join(w.sub, Canary+".txt")
	script := []Turn{
		0:  ToolUse("read", map[string]any{"filePath": canary}),
		1:  ToolUse("read", map[string]any{"filePath": "deep.txt"}),
		2:  ToolUse("read", map[string]any{"filePath": "../notes.txt"}),
		3:  ToolUse("write", map[string]any{"filePath": "written.txt", "content": "written by the model\n"}),
		4:  ToolUse("edit", map[string]any{"filePath": "deep.txt", "oldString": "deep file in sub", "newString": "deep file, edited"}),
		5:  ToolUse("glob", map[string]any{"pattern": "*.txt", "path": "."}),
		6:  ToolUse("grep", map[string]any{"pattern": "deep", "path": ".", "include": "*.txt"}),
		7:  opencodeShell("cat deep.txt"),
		8:  ToolUse("bash", map[string]any{"command": "head -1 passwd", "workdir": "/etc", "description": "probe"}),
		9:  ToolUse("read", map[string]any{"filePath": "plugin-syntax.txt"}),
		10: opencodeShell(modeCommand(ModeRewrite)),
		11: opencodeShell(modeCommand(ModeTimeout)),
		12: Text("DONE"),
	}
	model, err := StartChat(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "scripted")

	stdout := w.runOpencode(t, opencode)
	t.Logf("opencode %s: tools offered %v", version, toolsOffered(model, chatToolNames))
	if !strings.Contains(string(stdout), `"text":"DONE"`) {
		t.Errorf("opencode run did not finish the script:\n%s", clip(string(stdout), 3000))
	}
	runs := pluginRuns(t, log)
	for _, r := range runs {
		b, _ := json.Marshal(r)
		t.Logf("plugin: %s", b)
	}
	results := model.Results()
	for k := 1; k <= 11; k++ {
		t.Logf("call %d: the model got %q", k, clip(results[ToolUseID(k)].Text, 200))
	}

	checkCanary(t, model, 0, "read of the canary")
	checkGot(t, model, 1, "read deep.txt (relative to the working directory)", "deep file in sub")
	checkGot(t, model, 7, "bash cat deep.txt", "deep file, edited")
	checkGot(t, model, 8, "bash in /etc", "root:")
	checkGot(t, model, 5, "glob", "deep.txt")
	checkNoCanary(t, model)
	// The two broken plugins were skipped without a word: the syntax
	// error's file reads, the init that threw ran once.
	checkGot(t, model, 9, "read of the file the broken plugin guards", "the syntax plugin did not load")
	if strings.Contains(string(stdout), "init fails") {
		t.Logf("opencode reported the failed init in its output")
	}
	for _, tt := range []struct {
		k          int
		tool, args string
	}{
		{0, "read", `{"filePath":` + jsonString(canary) + `}`},
		{1, "read", `{"filePath":"deep.txt"}`},
		{3, "write", `{"content":"written by the model\n","filePath":"written.txt"}`},
		{4, "edit", `{"filePath":"deep.txt","newString":"deep file, edited","oldString":"deep file in sub"}`},
		{5, "glob", `{"path":".","pattern":"*.txt"}`},
		{6, "grep", `{"include":"*.txt","path":".","pattern":"deep"}`},
		{7, "bash", `{"command":"cat deep.txt","description":"probe"}`},
		{8, "bash", `{"command":"head -1 passwd","description":"probe","workdir":"/etc"}`},
	} {
		r, ok := findPluginCall(runs, tt.tool, tt.args)
		if !ok {
			t.Errorf("call %d: the plugin never saw %s %s", tt.k, tt.tool, tt.args)
			continue
		}
		if r.Input["callID"] != ToolUseID(tt.k) || r.Directory != w.sub || r.Worktree != w.project {
			t.Errorf("call %d: plugin got input %v in directory %s worktree %s, want callID %s, directory %s, worktree %s", tt.k, r.Input, r.Directory, r.Worktree, ToolUseID(tt.k), w.sub, w.project)
		}
	}
	if r := results[ToolUseID(10)]; outcome(r, true, ModeRewrite) != "rewritten" {
		t.Errorf("the in-place rewrite: the model got %q, want the rewritten command's output", r.Text)
	}
	// No timeout: the call waits for the hook however long it takes.
	if took := callTime(model.Requests(), 11); took < 3*ProbeTimeout || outcome(results[ToolUseID(11)], true, ModeTimeout) != "ran" {
		t.Errorf("the hook that held the call %v: the call took %v and the model got %q, want it to wait and run", 3*ProbeTimeout, took, results[ToolUseID(11)].Text)
	}
}

// TestOpencodeProbeGPT: with a GPT model id opencode offers apply_patch in
// place of edit and write; the plugin sees the raw patch.
func TestOpencodeProbeGPT(t *testing.T) {
	t.Parallel()
	opencode, _ := AgentBinary(t, "opencode")
	w := newOpencodeWorld(t)
	log := filepath.Join(w.base, "plugin.log")
	writeFile(t, filepath.Join(w.project, ".opencode", "plugins", "probe.js"), opencodePlugin(log))
	patch := "*** Begin Patch\n*** Add File: written.txt\n+written by a patch\n*** End Patch\n"
	canaryPatch := "*** Begin Patch\n*** Add File: " + Canary + "-new.txt\n+x\n*** End Patch\n"
	model, err := StartChat([]Turn{
		ToolUse("apply_patch", map[string]any{"patchText": patch}),
		ToolUse("apply_patch", map[string]any{"patchText": canaryPatch}),
		Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "gpt-5.5")
	w.runOpencode(t, opencode)
	tools := toolsOffered(model, chatToolNames)
	t.Logf("tools offered to gpt-5.5: %v", tools)
	if !strings.Contains(strings.Join(tools, " "), "apply_patch") {
		t.Fatalf("no apply_patch among %v", tools)
	}
	runs := pluginRuns(t, log)
	if _, ok := findPluginCall(runs, "apply_patch", `{"patchText":`+jsonString(patch)+`}`); !ok {
		t.Errorf("the plugin never saw apply_patch with the raw patch; it saw %+v", runs)
	}
	checkGot(t, model, 0, "apply_patch", "written.txt")
	if got := readFileString(t, filepath.Join(w.sub, "written.txt")); got != "written by a patch\n" {
		t.Errorf("the patch left sub/written.txt holding %q", got)
	}
	checkCanary(t, model, 1, "apply_patch adding a file named after the canary")
}

// TestOpencodeProbePure: `opencode run --pure` loads no plugin at all, so
// the probe's deny never happens.
func TestOpencodeProbePure(t *testing.T) {
	t.Parallel()
	opencode, _ := AgentBinary(t, "opencode")
	w := newOpencodeWorld(t)
	log := filepath.Join(w.base, "plugin.log")
	writeFile(t, filepath.Join(w.project, ".opencode", "plugins", "probe.js"), opencodePlugin(log))
	model, err := StartChat([]Turn{ToolUse("read", map[string]any{"filePath": Canary + ".txt"}), Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "scripted")
	w.runOpencode(t, opencode, "--pure")
	if runs := pluginRuns(t, log); len(runs) != 0 {
		t.Errorf("with --pure the plugin still ran: %+v", runs)
	}
	checkGot(t, model, 0, "read of the canary with --pure", CanaryContent)
}
