package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copilotWorld is a probe world with Copilot CLI's home ($COPILOT_HOME)
// in it.
type copilotWorld struct {
	*probeWorld
	copilotHome string
}

// newCopilotWorld points Copilot CLI at model with its BYOK variables:
// offline (no GitHub login, telemetry or update check), the package that
// .ci/agents.sh unpacked, and the given wire API ("completions" or
// "responses") and model.
func newCopilotWorld(t *testing.T, model *Model, wire, modelName string) *copilotWorld {
	t.Helper()
	w := &copilotWorld{probeWorld: newProbeWorld(t)}
	w.copilotHome = filepath.Join(w.home, ".copilot")
	w.env = append(w.env, "COPILOT_HOME="+w.copilotHome,
		"COPILOT_PROVIDER_BASE_URL="+model.URL+"/v1", "COPILOT_PROVIDER_API_KEY=test", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_WIRE_API="+wire, "COPILOT_MODEL="+modelName, "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false")
	if pkg := AgentSetting(t, "PICKET_COPILOT_PKG_CACHE_HOME"); pkg != "" {
		w.env = append(w.env, "COPILOT_PKG_CACHE_HOME="+pkg)
	}
	return w
}

// copilotCamelHooks is a hooks file in Copilot's own preToolUse dialect,
// with the probe timeout in seconds.
func copilotCamelHooks(command string) string {
	return `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":` + jsonString(command) +
		`,"timeoutSec":` + itoa(int(ProbeTimeout.Seconds())) + `}]}}`
}

// copilotPascalHooks is a hooks file in the Claude-compatible PreToolUse
// dialect (the shape of Claude Code's settings "hooks").
func copilotPascalHooks(command string) string {
	return `{"version":1,"hooks":{"PreToolUse":[{"matcher":".*","hooks":[{"type":"command","command":` + jsonString(command) +
		`,"timeout":` + itoa(int(ProbeTimeout.Seconds())) + `}]}]}}`
}

// copilotCamelReplies is the preToolUse dialect's replies.
func copilotCamelReplies(rewrite string) probeReplies {
	return probeReplies{
		Deny:     `{"permissionDecision":"deny","permissionDecisionReason":` + jsonString(ProbeReason) + `}`,
		Unknown:  `{"permissionDecision":"deny","permissionDecisionReason":` + jsonString(ProbeReason) + `,"picketUnknownField":true}`,
		NoReason: `{"permissionDecision":"deny"}`,
		Rewrite:  `{"modifiedArgs":` + rewrite + `}`,
	}
}

// copilotArgs are the flags of a headless run.
func copilotArgs(extra ...string) []string {
	return append([]string{"-p", "Do the scripted steps.", "--allow-all-tools", "--no-auto-update", "--output-format", "json"}, extra...)
}

func copilotShell(cmd string) Turn {
	return ToolUse("bash", map[string]any{"command": cmd, "description": "probe"})
}

// chatToolNames pulls the function names out of a Chat Completions
// request.
func chatToolNames(body []byte) []string {
	var req struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// copilotRewrite is the bash input the rewrite mode substitutes.
var copilotRewrite = `{"command":` + jsonString(rewrittenCommand(ModeRewrite)) + `,"description":"probe"}`

// TestCopilotProbeCamel proves Copilot CLI's own preToolUse hook at the
// pinned version, with gpt-4.1 over Chat Completions: the hook input for
// every file tool and the shell, a deny whose reason reaches the model,
// an allowed read's content, where relative paths go, and what each way
// of failing does to the call.
func TestCopilotProbeCamel(t *testing.T) {
	t.Parallel()
	copilot, version := AgentBinary(t, "copilot")
	script := []Turn{
		0: ToolUse("view", map[string]any{"path": Canary + ".txt"}),
		1: ToolUse("view", map[string]any{"path": "deep.txt"}),
		2: ToolUse("view", map[string]any{"path": "../notes.txt"}),
		3: ToolUse("create", map[string]any{"path": "written.txt", "file_text": "written by the model\n"}),
		4: ToolUse("edit", map[string]any{"path": "deep.txt", "old_str": "deep file in sub", "new_str": "deep file, edited"}),
		5: ToolUse("view", map[string]any{"path": "."}),
		6: ToolUse("glob", map[string]any{"pattern": "*.txt"}),
		7: ToolUse("grep", map[string]any{"pattern": "deep", "paths": []string{"."}}),
		8: copilotShell("cat deep.txt"),
	}
	modes, at := modeScript(len(script), copilotShell)
	script = append(append(script, modes...), Text("DONE"))
	model, err := StartChat(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w := newCopilotWorld(t, model, "completions", "gpt-4.1")
	p := newProbe(t, w.base, copilotCamelReplies(copilotRewrite))
	writeFile(t, filepath.Join(w.copilotHome, "hooks", "probe.json"), copilotCamelHooks(p.Script))

	stdout, stderr, took := w.run(t, w.sub, nil, copilot, copilotArgs()...)
	t.Logf("copilot %s took %v; tools offered %v", version, took, toolsOffered(model, chatToolNames))
	if !strings.Contains(string(stdout), `"content":"DONE"`) {
		t.Errorf("copilot -p did not finish the script:\nstdout:\n%s\nstderr:\n%s", clip(string(stdout), 3000), stderr)
	}
	runs := p.runs(t)
	logRuns(t, runs)
	results := model.Results()
	for k := 1; k <= 8; k++ {
		t.Logf("call %d: the model got %q", k, clip(results[ToolUseID(k)].Text, 200))
	}

	checkCanary(t, model, 0, "view of the canary")
	checkGot(t, model, 1, "view deep.txt (relative to the working directory)", "deep file in sub")
	checkNoCanary(t, model)
	for _, tt := range []struct {
		k           int
		tool, input string
	}{
		{0, "view", `{"path":"` + Canary + `.txt"}`},
		{1, "view", `{"path":"deep.txt"}`},
		{3, "create", `{"file_text":"written by the model\n","path":"written.txt"}`},
		{4, "edit", `{"new_str":"deep file, edited","old_str":"deep file in sub","path":"deep.txt"}`},
		{5, "view", `{"path":"."}`},
		{6, "glob", `{"pattern":"*.txt"}`},
		{7, "grep", `{"paths":["."],"pattern":"deep"}`},
		{8, "bash", `{"command":"cat deep.txt","description":"probe"}`},
	} {
		r, ok := findInput(runs, "toolArgs", tt.input)
		if !ok {
			t.Errorf("call %d (%s): the hook never ran", tt.k, tt.tool)
			continue
		}
		// The cwd field is the session's directory; the hook itself
		// runs in the repository's root.
		if r.Stdin["toolName"] != tt.tool || r.Stdin["cwd"] != w.sub || r.Pwd != w.project {
			t.Errorf("call %d: hook got %v cwd %v in %s, want %s, cwd %s in %s", tt.k, r.Stdin["toolName"], r.Stdin["cwd"], r.Pwd, tt.tool, w.sub, w.project)
		}
	}
	// A path outside the working directory needs the person's approval,
	// which -p turns into a denial, after the hook ran.
	checkGot(t, model, 2, "view ../notes.txt", "Permission denied")
	if _, ok := findRun(runs, "../notes.txt"); !ok {
		t.Errorf("the hook did not run for a view outside the working directory")
	}
	checkModes(t, model, at, map[string]string{
		ModeExit1:      "blocked",
		ModeExit2:      "blocked",
		ModeExit2Quiet: "blocked",
		ModeExit3:      "blocked",
		ModeMissing:    "blocked",
		ModeTimeout:    "ran",
		ModeSignal:     "blocked",
		ModeBadJSON:    "ran",
		ModeUnknown:    "blocked, reason shown",
		ModeNoReason:   "blocked",
		ModeRewrite:    "rewritten",
	})
}

// TestCopilotProbePascal proves Copilot CLI's Claude-compatible
// PreToolUse hook at the pinned version, with gpt-5.4 over the Responses
// API, which offers apply_patch (the raw patch) and rg: the hook input,
// the deny, and each way of failing.
func TestCopilotProbePascal(t *testing.T) {
	t.Parallel()
	copilot, version := AgentBinary(t, "copilot")
	patch := "*** Begin Patch\n*** Add File: written.txt\n+written by a patch\n*** Update File: deep.txt\n@@\n-deep file in sub\n+deep file, patched\n*** End Patch\n"
	canaryPatch := "*** Begin Patch\n*** Add File: " + Canary + "-new.txt\n+x\n*** End Patch\n"
	script := []Turn{
		0: ToolUse("view", map[string]any{"path": Canary + ".txt"}),
		1: ToolUse("view", map[string]any{"path": "deep.txt"}),
		2: CustomToolUse("apply_patch", patch),
		3: CustomToolUse("apply_patch", canaryPatch),
		4: ToolUse("rg", map[string]any{"pattern": "patched", "paths": []string{"."}}),
		5: copilotShell("cat deep.txt"),
	}
	modes, at := modeScript(len(script), copilotShell)
	script = append(append(script, modes...), Text("DONE"))
	model, err := StartResponses(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w := newCopilotWorld(t, model, "responses", "gpt-5.4")
	p := newProbe(t, w.base, claudeReplies(copilotRewrite))
	writeFile(t, filepath.Join(w.copilotHome, "hooks", "probe.json"), copilotPascalHooks(p.Script))

	stdout, stderr, took := w.run(t, w.sub, nil, copilot, copilotArgs()...)
	t.Logf("copilot %s took %v; tools offered %v", version, took, toolsOffered(model, responsesToolNames))
	if !strings.Contains(string(stdout), `"content":"DONE"`) {
		t.Errorf("copilot -p did not finish the script:\nstdout:\n%s\nstderr:\n%s", clip(string(stdout), 3000), stderr)
	}
	runs := p.runs(t)
	logRuns(t, runs)
	results := model.Results()
	for k := 1; k <= 5; k++ {
		t.Logf("call %d: the model got %q", k, clip(results[ToolUseID(k)].Text, 200))
	}

	checkCanary(t, model, 0, "view of the canary")
	checkGot(t, model, 1, "view deep.txt", "deep file in sub")
	checkCanary(t, model, 3, "apply_patch adding a file named after the canary")
	checkNoCanary(t, model)
	if got := readFileString(t, filepath.Join(w.sub, "deep.txt")); got != "deep file, patched\n" {
		t.Errorf("the patch left sub/deep.txt holding %q", got)
	}
	// Claude's tool names, Copilot's argument names; apply_patch as Edit
	// with the raw patch where the tool input would be.
	for _, tt := range []struct {
		k           int
		tool, input string
	}{
		{0, "Read", `{"path":"` + Canary + `.txt"}`},
		{2, "Edit", jsonString(patch)},
		{4, "Grep", `{"paths":["."],"pattern":"patched"}`},
		{5, "Bash", `{"command":"cat deep.txt","description":"probe"}`},
	} {
		r, ok := findInput(runs, "tool_input", tt.input)
		if !ok {
			t.Errorf("call %d (%s): no hook run with tool_input %s", tt.k, tt.tool, tt.input)
			continue
		}
		if r.Stdin["tool_name"] != tt.tool || r.Stdin["hook_event_name"] != "PreToolUse" || r.Stdin["cwd"] != w.sub {
			t.Errorf("call %d: hook got %v (%v) cwd %v, want %s PreToolUse cwd %s", tt.k, r.Stdin["tool_name"], r.Stdin["hook_event_name"], r.Stdin["cwd"], tt.tool, w.sub)
		}
	}
	checkModes(t, model, at, map[string]string{
		ModeExit1:      "blocked",
		ModeExit2:      "blocked",
		ModeExit2Quiet: "blocked",
		ModeExit3:      "blocked",
		ModeMissing:    "blocked",
		ModeTimeout:    "ran",
		ModeSignal:     "blocked",
		ModeBadJSON:    "ran",
		ModeUnknown:    "blocked, reason shown",
		ModeNoReason:   "blocked",
		ModeRewrite:    "rewritten",
	})
}

// TestCopilotProbeTrust: a repository's hooks (.github/hooks and the
// Claude-compatible .claude/settings.json) are skipped without a word in
// a folder the person has not trusted; the user's own hooks run either
// way. What trust runs which repository hooks is in the table.
func TestCopilotProbeTrust(t *testing.T) {
	t.Parallel()
	copilot, _ := AgentBinary(t, "copilot")
	for _, tt := range []struct {
		name           string
		remembered     bool     // the folder is in config.json's trustedFolders
		flags          []string // extra copilot flags
		noGithub       bool     // no .github/hooks at all
		github, claude bool     // which repository hooks run
	}{
		{"untrusted", false, nil, false, false, false},
		{"remembered", true, nil, false, true, false},
		{"trust-folder flag", false, []string{"--trust-folder"}, false, true, false},
		{"claude only, remembered", true, nil, true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model, err := StartChat([]Turn{ToolUse("view", map[string]any{"path": Canary + ".txt"}), Text("DONE")})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			w := newCopilotWorld(t, model, "completions", "gpt-4.1")
			probeIn := func(name string, r probeReplies) probe {
				dir := filepath.Join(w.base, name)
				writeFile(t, filepath.Join(dir, ".keep"), "")
				return newProbe(t, dir, r)
			}
			github := probeIn("github-probe", copilotCamelReplies(`{}`))
			claude := probeIn("claude-probe", claudeReplies(`{}`))
			user := probeIn("user-probe", probeReplies{})
			if !tt.noGithub {
				writeFile(t, filepath.Join(w.project, ".github", "hooks", "probe.json"), copilotCamelHooks(github.Script))
			}
			writeFile(t, filepath.Join(w.project, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":`+jsonString(claude.Script)+`}]}]}}`)
			writeFile(t, filepath.Join(w.copilotHome, "hooks", "user.json"), copilotCamelHooks(user.Script))
			if tt.remembered {
				// What Copilot CLI writes when the person answers "Yes,
				// and remember this folder for future sessions".
				writeFile(t, filepath.Join(w.copilotHome, "config.json"), `{"trustedFolders":[`+jsonString(w.project)+`]}`)
			}
			w.run(t, w.project, nil, copilot, copilotArgs(tt.flags...)...)
			r := model.Results()[ToolUseID(0)]
			t.Logf("the model got %q; hook runs: .github %d, .claude %d, user %d", r.Text, len(github.runs(t)), len(claude.runs(t)), len(user.runs(t)))
			if len(user.runs(t)) == 0 {
				t.Errorf("the user's hook did not run")
			}
			if ran := len(github.runs(t)) > 0; ran != tt.github {
				t.Errorf(".github/hooks hook ran = %v, want %v", ran, tt.github)
			}
			if ran := len(claude.runs(t)) > 0; ran != tt.claude {
				t.Errorf(".claude/settings.json hook ran = %v, want %v", ran, tt.claude)
			}
			if tt.github || tt.claude {
				checkCanary(t, model, 0, "view of the canary")
			} else if !strings.Contains(r.Text, CanaryContent) {
				t.Errorf("with the repository's hooks skipped the model got %q, want the canary's content", r.Text)
			}
		})
	}
}

// TestCopilotProbeHookOrder proves how Copilot CLI runs several
// preToolUse hooks, which decides whether picket's rewrite is the one it
// applies: one after another, each on the input the one before returned,
// the last one's modifiedArgs applied; the files of ~/.copilot/hooks in
// reverse byte order of their names, then ~/.copilot/settings.json's
// inline hooks, then (in a trusted folder) the repository's .github/hooks
// and its .github/copilot/settings.json. picket's Trust names every hook
// that runs after picket.json's.
func TestCopilotProbeHookOrder(t *testing.T) {
	t.Parallel()
	copilot, _ := AgentBinary(t, "copilot")
	model, err := StartChat([]Turn{0: copilotShell("echo ORIGINAL"), 1: Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w := newCopilotWorld(t, model, "completions", "gpt-4.1")
	log := filepath.Join(w.base, "hooks.log")
	entry := func(name string) string {
		return `{"type":"command","bash":` + jsonString(`in=$(cat); printf '%s %s\n' `+name+` "$in" >> `+log+
			`; echo '{"modifiedArgs":{"command":"echo `+name+`","description":"probe"}}'`) + `,"timeoutSec":30}`
	}
	file := func(name string) string { return `{"version":1,"hooks":{"preToolUse":[` + entry(name) + `]}}` }
	for _, n := range []string{"!bang", "0zero", "Aupper", "alower", "picket", "zlast"} {
		writeFile(t, filepath.Join(w.copilotHome, "hooks", n+".json"), file("user:"+n))
	}
	writeFile(t, filepath.Join(w.project, ".github", "hooks", "repo.json"), file("repo:hooks"))
	writeFile(t, filepath.Join(w.project, ".github", "copilot", "settings.json"), `{"hooks":{"preToolUse":[`+entry("repo:settings")+`]}}`)
	writeFile(t, filepath.Join(w.copilotHome, "settings.json"), `{"hooks":{"preToolUse":[`+entry("user:settings")+`]}}`)
	writeFile(t, filepath.Join(w.copilotHome, "config.json"), `{"trustedFolders":[`+jsonString(w.project)+`]}`)
	w.run(t, w.project, nil, copilot, copilotArgs()...)

	b, _ := os.ReadFile(log)
	want := []string{"user:zlast", "user:picket", "user:alower", "user:Aupper", "user:0zero", "user:!bang", "user:settings", "repo:hooks", "repo:settings"}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("hooks ran:\n%s\nwant %v", b, want)
	}
	for i, l := range lines {
		name, in, _ := strings.Cut(l, " ")
		prev := "ORIGINAL"
		if i > 0 {
			prev = want[i-1]
		}
		if name != want[i] || !strings.Contains(in, `"command":"echo `+prev+`"`) {
			t.Errorf("hook %d: %s with %s; want %s with the input %s returned", i, name, in, want[i], prev)
		}
	}
	if s := model.Results()[ToolUseID(0)].Text; !strings.HasPrefix(s, "repo:settings\n") {
		t.Errorf("the shell ran %q, want the last hook's rewrite", s)
	}
}
