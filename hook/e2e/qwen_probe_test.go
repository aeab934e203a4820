package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// qwenWorld is a probe world with Qwen Code's settings (~/.qwen) in it.
type qwenWorld struct {
	*probeWorld
	qwenDir string // ~/.qwen
}

func newQwenWorld(t *testing.T) *qwenWorld {
	t.Helper()
	// QWEN_CODE_NO_RELAUNCH: Qwen Code would start itself a second time
	// to raise Node's heap, seconds of start-up for nothing here.
	w := &qwenWorld{probeWorld: newProbeWorld(t, "QWEN_CODE_NO_RELAUNCH=true")}
	w.qwenDir = filepath.Join(w.home, ".qwen")
	return w
}

// useModel points Qwen Code at model through its OpenAI variables.
func (w *qwenWorld) useModel(model *Model) {
	w.env = append(w.env, "OPENAI_BASE_URL="+model.URL+"/v1", "OPENAI_API_KEY=test", "OPENAI_MODEL=gpt-4.1")
}

// qwenSettings is a settings.json with the OpenAI auth, updates, usage
// statistics and telemetry off, extra members (JSON, or "") and hooks (a
// JSON object, or "").
func qwenSettings(extra, hooks string) string {
	s := `{
  "security": {"auth": {"selectedType": "openai"}` + extra + `},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}`
	if hooks != "" {
		s += `,
  "hooks": ` + hooks
	}
	return s + "\n}\n"
}

// qwenHooks registers command for PreToolUse on every tool, with the
// probe timeout (Qwen Code counts milliseconds).
func qwenHooks(command string) string {
	return `{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "name": "probe", "command": ` + jsonString(command) +
		`, "timeout": ` + itoa(int(ProbeTimeout.Milliseconds())) + `}]}]}`
}

// qwenArgs are the flags of a headless run (the prompt is positional).
func qwenArgs() []string {
	return []string{"Do the scripted steps.", "--yolo", "--auth-type", "openai", "--output-format", "json"}
}

func qwenShell(cmd string) Turn { return ToolUse("run_shell_command", map[string]any{"command": cmd}) }

// TestQwenProbe proves Qwen Code's PreToolUse hook at the pinned version:
// the hook input for every file tool and the shell, a deny whose reason
// reaches the model, an allowed read's content, where relative paths go,
// and what each way of failing does to the call.
func TestQwenProbe(t *testing.T) {
	t.Parallel()
	qwen, version := AgentBinary(t, "qwen")
	w := newQwenWorld(t)
	canary := filepath.Join(w.sub, Canary+".txt")
	deep := filepath.Join(w.sub, "deep.txt")
	script := []Turn{
		0:  ToolUse("read_file", map[string]any{"file_path": canary}),
		1:  ToolUse("read_file", map[string]any{"file_path": deep}),
		2:  ToolUse("read_file", map[string]any{"file_path": "deep.txt"}),
		3:  ToolUse("read_file", map[string]any{"file_path": filepath.Join(w.project, "notes.txt")}),
		4:  ToolUse("write_file", map[string]any{"file_path": filepath.Join(w.sub, "written.txt"), "content": "written by the model\n"}),
		5:  ToolUse("edit", map[string]any{"file_path": deep, "old_string": "deep file in sub", "new_string": "deep file, edited"}),
		6:  ToolUse("list_directory", map[string]any{"path": w.sub}),
		7:  ToolUse("glob", map[string]any{"pattern": "*.txt", "path": "."}),
		8:  ToolUse("grep_search", map[string]any{"pattern": "deep", "path": "."}),
		9:  ToolUse("run_shell_command", map[string]any{"command": "cat deep.txt", "directory": w.sub}),
		10: ToolUse("run_shell_command", map[string]any{"command": "head -1 passwd", "directory": "/etc"}),
	}
	modes, at := modeScript(len(script), qwenShell)
	script = append(append(script, modes...), Text("DONE"))
	model, err := StartChat(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(model)
	p := newProbe(t, w.base, claudeReplies(`{"command":`+jsonString(rewrittenCommand(ModeRewrite))+`}`))
	writeFile(t, filepath.Join(w.qwenDir, "settings.json"), qwenSettings("", qwenHooks(p.Script)))

	stdout, stderr, took := w.run(t, w.sub, nil, qwen, qwenArgs()...)
	t.Logf("qwen %s took %v; tools offered %v", version, took, toolsOffered(model, chatToolNames))
	if !strings.Contains(string(stdout), `"result":"DONE"`) {
		t.Errorf("qwen did not finish the script:\nstdout:\n%s\nstderr:\n%s", clip(string(stdout), 3000), stderr)
	}
	runs := p.runs(t)
	logRuns(t, runs)
	results := model.Results()
	for k := 1; k <= 10; k++ {
		t.Logf("call %d: the model got %q", k, clip(results[ToolUseID(k)].Text, 200))
	}

	checkCanary(t, model, 0, "read_file of the canary")
	checkGot(t, model, 1, "read_file of sub/deep.txt", "deep file in sub")
	// read_file takes absolute paths only, checked before any hook runs.
	checkGot(t, model, 2, "read_file deep.txt", "must be absolute")
	if _, ok := findRun(runs, `"file_path":"deep.txt"`); ok {
		t.Errorf("the hook ran for a relative read_file path")
	}
	checkNoCanary(t, model)
	for _, tt := range []struct {
		k           int
		tool, input string
	}{
		{4, "write_file", `{"content":"written by the model\n","file_path":` + jsonString(filepath.Join(w.sub, "written.txt")) + `}`},
		{5, "edit", `{"file_path":` + jsonString(deep) + `,"new_string":"deep file, edited","old_string":"deep file in sub"}`},
		{6, "list_directory", `{"path":` + jsonString(w.sub) + `}`},
		{7, "glob", `{"path":".","pattern":"*.txt"}`},
		{8, "grep_search", `{"path":".","pattern":"deep"}`},
	} {
		r, ok := findInput(runs, "tool_input", tt.input)
		if !ok {
			t.Errorf("call %d (%s): no hook run with tool_input %s", tt.k, tt.tool, tt.input)
			continue
		}
		if r.Stdin["tool_name"] != tt.tool || r.Stdin["cwd"] != w.sub || r.Pwd != w.sub {
			t.Errorf("call %d: hook got %v cwd %v in %s, want %s, cwd and pwd %s", tt.k, r.Stdin["tool_name"], r.Stdin["cwd"], r.Pwd, tt.tool, w.sub)
		}
	}
	if r, ok := findInput(runs, "tool_input", `{"command":"cat deep.txt","directory":`+jsonString(w.sub)+`}`); !ok || r.Stdin["tool_name"] != "run_shell_command" {
		t.Errorf("run_shell_command with a directory: no hook run")
	}
	if r, ok := findRun(runs, `"file_path":`+jsonString(canary)); !ok || inputOf(r, "tool_input") != `{"file_path":`+jsonString(canary)+`}` {
		t.Errorf("read_file's hook input = %s (found %v)", inputOf(r, "tool_input"), ok)
	}
	// A shell directory must be absolute and in the workspace, checked
	// before any hook runs.
	checkGot(t, model, 10, "run_shell_command in /etc", "not within any of the registered workspace directories")
	if _, ok := findRun(runs, "head -1 passwd"); ok {
		t.Errorf("the hook ran for a shell command in /etc, outside the workspace")
	}
	checkModes(t, model, at, map[string]string{
		ModeExit1:   "ran",
		ModeExit2:   "blocked, reason shown",
		ModeMissing: "ran",
		ModeTimeout: "ran",
		ModeBadJSON: "ran",
		ModeUnknown: "blocked, reason shown",
	})
}

// TestQwenProbeTrust: with folder trust switched on, the user's hooks run
// everywhere, and a project's own .qwen/settings.json hooks everywhere
// but in a folder the person marked DO_NOT_TRUST in
// ~/.qwen/trustedFolders.json: a folder not listed counts as trusted.
// --bare skips every hook.
func TestQwenProbeTrust(t *testing.T) {
	t.Parallel()
	qwen, _ := AgentBinary(t, "qwen")
	for _, tt := range []struct {
		name          string
		trust         string // the project's trustedFolders.json entry, or ""
		flags         []string
		user, project bool // which hooks run
	}{
		{"not listed", "", nil, true, true},
		{"DO_NOT_TRUST", "DO_NOT_TRUST", nil, true, false},
		{"TRUST_FOLDER", "TRUST_FOLDER", nil, true, true},
		{"bare", "TRUST_FOLDER", []string{"--bare"}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newQwenWorld(t)
			model, err := StartChat([]Turn{ToolUse("read_file", map[string]any{"file_path": filepath.Join(w.project, Canary+".txt")}), Text("DONE")})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			w.useModel(model)
			user := newProbe(t, w.base, probeReplies{})
			projectDir := filepath.Join(w.base, "project-probe")
			writeFile(t, filepath.Join(projectDir, ".keep"), "")
			project := newProbe(t, projectDir, claudeReplies(`{}`))
			writeFile(t, filepath.Join(w.qwenDir, "settings.json"), qwenSettings(`, "folderTrust": {"enabled": true}`, qwenHooks(user.Script)))
			writeFile(t, filepath.Join(w.project, ".qwen", "settings.json"), `{"hooks": `+qwenHooks(project.Script)+`}`)
			if tt.trust != "" {
				writeFile(t, filepath.Join(w.qwenDir, "trustedFolders.json"), `{`+jsonString(w.project)+`: "`+tt.trust+`"}`)
			}
			stdout, stderr, _, err := w.tryRun(w.project, nil, qwen, append(qwenArgs(), tt.flags...)...)
			r := model.Results()[ToolUseID(0)]
			t.Logf("exit %v, %d requests, hook runs: user %d, project %d; the model got %q\nstderr:\n%s", err, len(model.Requests()), len(user.runs(t)), len(project.runs(t)), r.Text, clip(string(stderr), 1500))
			if ran := len(user.runs(t)) > 0; ran != tt.user {
				t.Errorf("the user's hook ran = %v, want %v; stdout:\n%s", ran, tt.user, clip(string(stdout), 1500))
			}
			if ran := len(project.runs(t)) > 0; ran != tt.project {
				t.Errorf("the project's hook ran = %v, want %v", ran, tt.project)
			}
			if tt.project {
				checkCanary(t, model, 0, "read_file of the canary")
			} else if !strings.Contains(r.Text, CanaryContent) {
				t.Errorf("with the project's hook skipped the model got %q, want the canary's content", r.Text)
			}
		})
	}
}
