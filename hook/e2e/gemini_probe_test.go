package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// geminiWorld is a probe world with Gemini CLI's home ($GEMINI_CLI_HOME)
// in it.
type geminiWorld struct {
	*probeWorld
	geminiDir string // $GEMINI_CLI_HOME/.gemini
}

func newGeminiWorld(t *testing.T) *geminiWorld {
	t.Helper()
	w := &geminiWorld{probeWorld: newProbeWorld(t)}
	w.geminiDir = filepath.Join(w.home, ".gemini")
	// GEMINI_CLI_NO_RELAUNCH: the CLI would start itself a second time
	// to raise Node's heap, seconds of start-up for nothing here.
	w.env = append(w.env, "GEMINI_CLI_HOME="+w.home, "GEMINI_API_KEY=test", "GEMINI_CLI_NO_RELAUNCH=true")
	return w
}

// geminiSettings is a settings.json with the API-key auth, updates,
// usage statistics and telemetry off, and hooks (a JSON object, or "").
func geminiSettings(hooks string) string {
	s := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}`
	if hooks != "" {
		s += `,
  "hooks": ` + hooks
	}
	return s + "\n}\n"
}

// geminiHooks registers command for BeforeTool on every tool, with the
// probe timeout (Gemini CLI counts milliseconds).
func geminiHooks(command string) string {
	return `{"BeforeTool": [{"matcher": ".*", "hooks": [{"type": "command", "name": "probe", "command": ` + jsonString(command) +
		`, "timeout": ` + itoa(int(ProbeTimeout.Milliseconds())) + `}]}]}`
}

// trust records dir as trusted in trustedFolders.json, as a person does
// when Gemini CLI asks whether to trust a folder.
func (w *geminiWorld) trust(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(w.geminiDir, "trustedFolders.json"), `{`+jsonString(dir)+`: "TRUST_FOLDER"}`)
}

// geminiArgs are the flags of a headless run against the scripted model.
func geminiArgs() []string {
	return []string{"-p", "Do the scripted steps.", "--yolo", "-m", "gemini-2.5-flash", "--output-format", "json"}
}

// geminiReplies is Gemini CLI's BeforeTool dialect.
func geminiReplies(rewrite string) probeReplies {
	return probeReplies{
		Deny:     `{"decision":"deny","reason":` + jsonString(ProbeReason) + `}`,
		Unknown:  `{"decision":"deny","reason":` + jsonString(ProbeReason) + `,"picketUnknownField":true}`,
		NoReason: `{"decision":"deny"}`,
		Rewrite:  `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":` + rewrite + `}}`,
	}
}

// geminiToolNames pulls the function names out of a generateContent
// request.
func geminiToolNames(body []byte) []string {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var out []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}

func geminiShell(cmd string) Turn {
	return ToolUse("run_shell_command", map[string]any{"command": cmd})
}

// TestGeminiProbe proves Gemini CLI's BeforeTool hook at the pinned
// version: the hook input for every file tool and the shell, a deny whose
// reason reaches the model, an allowed read's content, where relative
// paths go, and what each way of failing does to the call.
func TestGeminiProbe(t *testing.T) {
	t.Parallel()
	gemini, version := AgentBinary(t, "gemini")
	w := newGeminiWorld(t)
	p := newProbe(t, w.base, geminiReplies(`{"command":`+jsonString(rewrittenCommand(ModeRewrite))+`}`))
	writeFile(t, filepath.Join(w.geminiDir, "settings.json"), geminiSettings(geminiHooks(p.Script)))
	w.trust(t, w.project)
	script := []Turn{
		0:  ToolUse("read_file", map[string]any{"file_path": filepath.Join(w.sub, Canary+".txt")}),
		1:  ToolUse("read_file", map[string]any{"file_path": "deep.txt"}),
		2:  ToolUse("read_file", map[string]any{"file_path": "sub/deep.txt"}),
		3:  ToolUse("read_file", map[string]any{"file_path": "../notes.txt"}),
		4:  ToolUse("write_file", map[string]any{"file_path": "written.txt", "content": "written by the model\n"}),
		5:  ToolUse("replace", map[string]any{"file_path": "deep.txt", "instruction": "patch it", "old_string": "deep file in sub", "new_string": "deep file, replaced"}),
		6:  ToolUse("list_directory", map[string]any{"dir_path": "."}),
		7:  ToolUse("glob", map[string]any{"pattern": "*.txt", "dir_path": "."}),
		8:  ToolUse("grep_search", map[string]any{"pattern": "deep", "dir_path": "."}),
		9:  ToolUse("read_many_files", map[string]any{"include": []string{"*.txt"}}),
		10: ToolUse("run_shell_command", map[string]any{"command": "cat deep.txt", "dir_path": "."}),
		11: ToolUse("run_shell_command", map[string]any{"command": "head -1 passwd", "dir_path": "/etc"}),
	}
	modes, at := modeScript(len(script), geminiShell)
	script = append(append(script, modes...), Text("DONE"))
	model, err := StartGemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	stdout, stderr, took := w.run(t, w.sub, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
	t.Logf("gemini %s took %v; tools offered %v", version, took, toolsOffered(model, geminiToolNames))
	if !strings.Contains(string(stdout), `"response": "DONE"`) {
		t.Errorf("gemini -p did not finish the script:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	runs := p.runs(t)
	logRuns(t, runs)
	results := model.Results()
	for k := 1; k <= 11; k++ {
		t.Logf("call %d: error %v, the model got %q", k, results[ToolUseID(k)].IsError, clip(results[ToolUseID(k)].Text, 200))
	}

	checkCanary(t, model, 0, "read_file of the canary")
	if r := results[ToolUseID(0)]; !r.IsError {
		t.Errorf("the denied read_file came back as a success: %q", r.Text)
	}
	checkGot(t, model, 1, "read_file deep.txt (relative to the working directory)", "deep file in sub")
	// The workspace is the working directory: paths outside it fail in
	// the tool's own check, before any hook runs.
	checkGot(t, model, 3, "read_file ../notes.txt", "Path not in workspace")
	checkGot(t, model, 11, "run_shell_command in /etc", "Path not in workspace")
	if _, ok := findRun(runs, "head -1 passwd"); ok {
		t.Errorf("the hook ran for a shell command in /etc, outside the workspace")
	}
	checkNoCanary(t, model)

	// The hook gets every tool's arguments as the model wrote them, in
	// the directory Gemini CLI runs in.
	for _, tt := range []struct {
		k           int
		tool, input string
	}{
		{0, "read_file", `{"file_path":` + jsonString(filepath.Join(w.sub, Canary+".txt")) + `}`},
		{1, "read_file", `{"file_path":"deep.txt"}`},
		{4, "write_file", `{"content":"written by the model\n","file_path":"written.txt"}`},
		{5, "replace", `{"file_path":"deep.txt","instruction":"patch it","new_string":"deep file, replaced","old_string":"deep file in sub"}`},
		{6, "list_directory", `{"dir_path":"."}`},
		{7, "glob", `{"dir_path":".","pattern":"*.txt"}`},
		{8, "grep_search", `{"dir_path":".","pattern":"deep"}`},
		{10, "run_shell_command", `{"command":"cat deep.txt","dir_path":"."}`},
	} {
		r, ok := findInput(runs, "tool_input", tt.input)
		if !ok {
			t.Errorf("call %d (%s): the hook never ran", tt.k, tt.tool)
			continue
		}
		if r.Stdin["tool_name"] != tt.tool || inputOf(r, "tool_input") != tt.input || r.Stdin["cwd"] != w.sub || r.Pwd != w.sub {
			t.Errorf("call %d: hook got %v %s cwd %v in %s, want %s %s, cwd and pwd %s", tt.k, r.Stdin["tool_name"], inputOf(r, "tool_input"), r.Stdin["cwd"], r.Pwd, tt.tool, tt.input, w.sub)
		}
	}

	// Only exit 2, or a higher exit with text, blocks; the rewrite
	// without a decision applies.
	checkModes(t, model, at, map[string]string{
		ModeExit1:      "ran",
		ModeExit2:      "blocked, reason shown",
		ModeExit2Quiet: "ran",
		ModeExit3:      "blocked, reason shown",
		ModeMissing:    "blocked",
		ModeTimeout:    "ran",
		ModeSignal:     "ran",
		ModeBadJSON:    "ran",
		ModeUnknown:    "blocked, reason shown",
		ModeNoReason:   "blocked",
		ModeRewrite:    "rewritten",
	})
}

// TestGeminiProbeTrust: headless in an untrusted folder Gemini CLI refuses
// to start; a folder the person trusted (trustedFolders.json) runs the
// project's own .gemini/settings.json hooks as well as the user's.
func TestGeminiProbeTrust(t *testing.T) {
	t.Parallel()
	gemini, _ := AgentBinary(t, "gemini")
	t.Run("untrusted", func(t *testing.T) {
		w := newGeminiWorld(t)
		p := newProbe(t, w.base, geminiReplies(`{}`))
		writeFile(t, filepath.Join(w.geminiDir, "settings.json"), geminiSettings(geminiHooks(p.Script)))
		model, err := StartGemini([]Turn{ToolUse("read_file", map[string]any{"file_path": Canary + ".txt"}), Text("DONE")})
		if err != nil {
			t.Fatal(err)
		}
		defer model.Close()
		stdout, stderr, _, err := w.tryRun(w.sub, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
		t.Logf("exit %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		if err == nil || len(model.Requests()) != 0 || !strings.Contains(string(stdout)+string(stderr), "trusted") {
			t.Errorf("an untrusted folder: exit %v after %d requests, want a refusal to start that mentions trust", err, len(model.Requests()))
		}
	})
	t.Run("project hooks in a trusted folder", func(t *testing.T) {
		w := newGeminiWorld(t)
		p := newProbe(t, w.base, geminiReplies(`{}`))
		writeFile(t, filepath.Join(w.geminiDir, "settings.json"), geminiSettings(""))
		writeFile(t, filepath.Join(w.project, ".gemini", "settings.json"), `{"hooks": `+geminiHooks(p.Script)+`}`)
		w.trust(t, w.project)
		model, err := StartGemini([]Turn{ToolUse("read_file", map[string]any{"file_path": Canary + ".txt"}), Text("DONE")})
		if err != nil {
			t.Fatal(err)
		}
		defer model.Close()
		// In the project root: Gemini CLI reads .gemini/settings.json
		// from the directory it runs in.
		w.run(t, w.project, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
		if len(p.runs(t)) == 0 {
			t.Errorf("the project's hook never ran; the model got %q", model.Results()[ToolUseID(0)].Text)
		}
		checkCanary(t, model, 0, "read_file of the canary")
	})
}
