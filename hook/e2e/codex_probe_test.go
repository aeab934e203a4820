package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// codexWorld is a probe world with Codex's home ($CODEX_HOME) in it.
type codexWorld struct {
	*probeWorld
	codexHome string
}

func newCodexWorld(t *testing.T) *codexWorld {
	t.Helper()
	w := &codexWorld{probeWorld: newProbeWorld(t)}
	w.codexHome = filepath.Join(w.home, ".codex")
	w.env = append(w.env, "CODEX_HOME="+w.codexHome, "PICKET_E2E_KEY=test")
	return w
}

// codexConfig is config.toml pointing Codex at model with a catalog model
// slug (so apply_patch is offered), update checks, analytics and the
// plugin marketplace off, plus extra TOML.
func codexConfig(model *Model, extra string) string {
	return `model = "gpt-5.5"
model_provider = "e2e"
check_for_update_on_startup = false

[analytics]
enabled = false

# The plugin marketplace looks up github.com, api.github.com and
# chatgpt.com at every start.
[features]
plugins = false

[model_providers.e2e]
name = "e2e"
base_url = "` + model.URL + `/v1"
wire_api = "responses"
env_key = "PICKET_E2E_KEY"
` + extra
}

// codexHooks is a hooks.json registering command for PreToolUse on every
// tool, with the probe timeout (Codex counts seconds).
func codexHooks(command string) string {
	return `{"hooks":{"PreToolUse":[{"matcher":".*","hooks":[{"type":"command","command":` + jsonString(command) +
		`,"timeout":` + itoa(int(ProbeTimeout.Seconds())) + `}]}]}}`
}

// codexHookHash is the trust hash Codex records when a person trusts that
// hook in the TUI (/hooks): sha256 over the hook's normalized identity as
// JSON with sorted keys (codex-rs hooks/src/engine/discovery.rs,
// command_hook_hash, and config/src/fingerprint.rs, version_for_toml).
func codexHookHash(command string) string {
	identity := map[string]any{
		"event_name": "pre_tool_use",
		"matcher":    ".*",
		"hooks": []any{map[string]any{
			"type": "command", "command": command, "timeout": int(ProbeTimeout.Seconds()), "async": false,
		}},
	}
	sum := sha256.Sum256([]byte(marshalPlain(identity)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexTrust is the config.toml entry that trusts the first PreToolUse
// hook of the hooks.json at path, as the TUI writes it.
func codexTrust(hooksPath, command string) string {
	return "\n[hooks.state." + jsonString(hooksPath+":pre_tool_use:0:0") + "]\nenabled = true\ntrusted_hash = " + jsonString(codexHookHash(command)) + "\n"
}

// exec runs `codex exec` in the world's project/sub with the approvals and
// the sandbox off (the probe is about hooks, not Codex's own sandbox).
func (w *codexWorld) exec(t *testing.T, codex string, flags ...string) (stdout, stderr []byte) {
	t.Helper()
	args := append([]string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, flags...)
	stdout, stderr, took := w.run(t, w.sub, nil, codex, append(args, "Do the scripted steps.")...)
	t.Logf("codex exec took %v", took)
	return stdout, stderr
}

// codexShell is Codex's shell tool call; workdir may be "".
func codexShell(cmd, workdir string) Turn {
	in := map[string]any{"cmd": cmd}
	if workdir != "" {
		in["workdir"] = workdir
	}
	return ToolUse("exec_command", in)
}

// responsesToolNames pulls the tool names out of a Responses API request.
func responsesToolNames(body []byte) []string {
	var req struct {
		Tools []struct{ Type, Name string } `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name+"("+t.Type+")")
	}
	return out
}

const codexPatch = "*** Begin Patch\n*** Add File: added.txt\n+added by a patch\n*** Update File: deep.txt\n@@\n-deep file in sub\n+deep file, patched\n*** End Patch\n"

const codexMovePatch = "*** Begin Patch\n*** Update File: added.txt\n*** Move to: ../moved.txt\n@@\n-added by a patch\n+moved by a patch\n*** Delete File: ../gone.txt\n*** End Patch\n"

const codexCanaryPatch = "*** Begin Patch\n*** Add File: ../" + Canary + "-new.txt\n+x\n*** End Patch\n"

// TestCodexProbe proves Codex's PreToolUse hook at the pinned version: the
// hook input per tool (Codex reads files only through its shell), a deny
// whose reason reaches the model, an allowed read's content, where
// relative paths go and what cwd the hook gets, and what each way of
// failing does to the call.
func TestCodexProbe(t *testing.T) {
	t.Parallel()
	codex, version := AgentBinary(t, "codex")
	w := newCodexWorld(t)
	writeFile(t, filepath.Join(w.project, "gone.txt"), "to delete\n")
	p := newProbe(t, w.base, claudeReplies(`{"command":`+jsonString(rewrittenCommand(ModeRewrite))+`}`))
	writeFile(t, filepath.Join(w.codexHome, "hooks.json"), codexHooks(p.Script))
	script := []Turn{
		0: codexShell("cat ../"+Canary+".txt", ""),
		1: codexShell("cat ../notes.txt", ""),
		2: codexShell("cat deep.txt", ""),
		3: codexShell("head -1 passwd", "/etc"),
		4: codexShell("cat notes.txt", ".."),
		5: CustomToolUse("apply_patch", codexPatch),
		6: CustomToolUse("apply_patch", codexMovePatch),
		7: CustomToolUse("apply_patch", codexCanaryPatch),
		8: ToolUse("view_image", map[string]any{"path": "../" + Canary + ".png"}),
		// The model may pick the shell binary; the hook never sees it.
		9: ToolUse("exec_command", map[string]any{"cmd": "echo shell-$0", "shell": "/bin/sh", "login": false}),
	}
	modes, at := modeScript(len(script), func(cmd string) Turn { return codexShell(cmd, "") })
	script = append(append(script, modes...), Text("DONE"))
	model, err := StartResponses(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	writeFile(t, filepath.Join(w.codexHome, "config.toml"), codexConfig(model, ""))

	stdout, stderr := w.exec(t, codex, "--dangerously-bypass-hook-trust")
	t.Logf("codex %s: tools offered %v", version, toolsOffered(model, responsesToolNames))
	if !strings.Contains(string(stdout), `"text":"DONE"`) {
		t.Errorf("codex exec did not finish the script:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	runs := p.runs(t)
	logRuns(t, runs)

	checkCanary(t, model, 0, "cat of the canary file")
	checkGot(t, model, 1, "cat ../notes.txt", "hello from the probe notes")
	checkGot(t, model, 2, "cat deep.txt (relative to the working directory)", "deep file in sub")
	checkGot(t, model, 3, "head -1 passwd in /etc", "root:")
	checkGot(t, model, 4, "cat notes.txt in workdir ..", "hello from the probe notes")
	checkGot(t, model, 5, "apply_patch adding and updating", "Success")
	checkGot(t, model, 6, "apply_patch moving and deleting", "Success")
	// A patch's relative paths are the working directory's.
	if got := readFileString(t, filepath.Join(w.sub, "deep.txt")); got != "deep file, patched\n" {
		t.Errorf("the patch left sub/deep.txt holding %q", got)
	}
	if got := readFileString(t, filepath.Join(w.project, "moved.txt")); got != "moved by a patch\n" {
		t.Errorf("the move patch left moved.txt holding %q", got)
	}
	if got := readFileString(t, filepath.Join(w.project, "gone.txt")); got != "" {
		t.Errorf("the patch did not delete gone.txt")
	}
	checkCanary(t, model, 7, "apply_patch adding a file named after the canary")
	checkCanary(t, model, 8, "view_image of the canary")
	checkGot(t, model, 9, "exec_command with the shell /bin/sh", "shell-/usr/bin/sh")
	checkNoCanary(t, model)

	// The hook runs in the session's directory; its "cwd" field is the
	// command's workdir, resolved.
	for _, tt := range []struct {
		k                int
		tool, input, cwd string
	}{
		{0, "Bash", `{"command":"cat ../` + Canary + `.txt"}`, w.sub},
		{3, "Bash", `{"command":"head -1 passwd"}`, "/etc"},
		{4, "Bash", `{"command":"cat notes.txt"}`, w.project},
		{5, "apply_patch", `{"command":` + jsonString(codexPatch) + `}`, w.sub},
		{6, "apply_patch", `{"command":` + jsonString(codexMovePatch) + `}`, w.sub},
		{8, "view_image", `{"path":"../` + Canary + `.png"}`, w.sub},
		{9, "Bash", `{"command":"echo shell-$0"}`, w.sub},
	} {
		r, ok := findRun(runs, `"tool_use_id":"`+ToolUseID(tt.k)+`"`)
		if !ok {
			t.Errorf("call %d: the hook never ran", tt.k)
			continue
		}
		if r.Stdin["tool_name"] != tt.tool || inputOf(r, "tool_input") != tt.input || r.Stdin["cwd"] != tt.cwd || r.Pwd != w.sub {
			t.Errorf("call %d: hook got tool %v input %s cwd %v in %s, want %s %s cwd %s in %s", tt.k, r.Stdin["tool_name"], inputOf(r, "tool_input"), r.Stdin["cwd"], r.Pwd, tt.tool, tt.input, tt.cwd, w.sub)
		}
	}

	// Only exit 2 with a reason on stderr blocks; everything else runs
	// the call, the rewrite without "allow" included (unchanged).
	checkModes(t, model, at, map[string]string{
		ModeExit1:      "ran",
		ModeExit2:      "blocked, reason shown",
		ModeExit2Quiet: "ran",
		ModeExit3:      "ran",
		ModeMissing:    "ran",
		ModeTimeout:    "ran",
		ModeSignal:     "ran",
		ModeBadJSON:    "ran",
		ModeUnknown:    "ran",
		ModeNoReason:   "ran",
		ModeRewrite:    "ran",
	})
}

// TestCodexProbeTrust: a hook nobody trusted is skipped without a word
// (the canary's content reaches the model); the trust record the TUI
// writes for one hook (its hash in config.toml) makes it run with no
// bypass flag; a project's .codex/hooks.json runs only in a trusted
// project.
func TestCodexProbeTrust(t *testing.T) {
	t.Parallel()
	codex, _ := AgentBinary(t, "codex")
	for _, tt := range []struct {
		name    string
		project bool   // the hooks.json is the project's, not the user's
		config  string // extra config.toml; HOOKS is the hooks.json path, PROJECT the project
		flags   []string
		ran     bool
	}{
		{"user hook, untrusted", false, "", nil, false},
		{"user hook, trusted by hash", false, "TRUST", nil, true},
		{"user hook, bypass flag", false, "", []string{"--dangerously-bypass-hook-trust"}, true},
		{"project hook, untrusted project", true, "", []string{"--dangerously-bypass-hook-trust"}, false},
		{"project hook, trusted project, untrusted hook", true, "PROJECT", nil, false},
		{"project hook, trusted project and hook", true, "PROJECT TRUST", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newCodexWorld(t)
			p := newProbe(t, w.base, claudeReplies(`{}`))
			hooks := filepath.Join(w.codexHome, "hooks.json")
			if tt.project {
				hooks = filepath.Join(w.project, ".codex", "hooks.json")
			}
			writeFile(t, hooks, codexHooks(p.Script))
			model, err := StartResponses([]Turn{codexShell("cat ../"+Canary+".txt", ""), Text("DONE")})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			extra := ""
			if strings.Contains(tt.config, "PROJECT") {
				extra += "\n[projects." + jsonString(w.project) + "]\ntrust_level = \"trusted\"\n"
			}
			if strings.Contains(tt.config, "TRUST") {
				extra += codexTrust(hooks, p.Script)
			}
			writeFile(t, filepath.Join(w.codexHome, "config.toml"), codexConfig(model, extra))
			w.exec(t, codex, tt.flags...)
			r := model.Results()[ToolUseID(0)]
			ran := len(p.runs(t)) > 0
			if ran != tt.ran {
				t.Errorf("hook ran = %v, want %v; the model got %q", ran, tt.ran, r.Text)
			}
			if ran {
				checkCanary(t, model, 0, "cat of the canary file")
			} else if !strings.Contains(r.Text, CanaryContent) {
				t.Errorf("with the hook skipped the model got %q, want the canary's content", r.Text)
			}
		})
	}
}
