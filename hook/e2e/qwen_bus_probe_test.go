package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQwenProbeSlowHook proves that Qwen Code 0.15.10 runs a call whose
// PreToolUse hook has not answered within 60 s, whatever the hook's
// timeout: its message bus stops waiting (AGENTS-MEASURED.md). It takes
// 90 s, so it runs only with PICKET_E2E_SLOW set. As every probe, it
// holds the pinned version to what was measured: it fails when Qwen Code
// waits for the hook after all. picket's hook command ends picket well inside the 60 s
// (hook/qwen.BusTimeout, TestQwenFailsClosed's hanging picket).
func TestQwenProbeSlowHook(t *testing.T) {
	if os.Getenv("PICKET_E2E_SLOW") == "" {
		t.Skip("takes 90 s: set PICKET_E2E_SLOW=1 to run it")
	}
	t.Parallel()
	qwen, _ := AgentBinary(t, "qwen")
	w := newQwenWorld(t)
	canary := filepath.Join(w.project, Canary+".txt")
	model, err := StartChat([]Turn{ToolUse("read_file", map[string]any{"file_path": canary}), Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(model)
	script := filepath.Join(w.base, "slow-hook")
	writeFile(t, script, "#!/bin/sh\ncat >/dev/null\nsleep 70\necho 'blocked by the slow hook' >&2\nexit 2\n")
	os.Chmod(script, 0o755)
	hooks := `{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "name": "slow", "command": ` + jsonString(script) + `, "timeout": 150000}]}]}`
	writeFile(t, filepath.Join(w.qwenDir, "settings.json"), qwenSettings("", hooks))
	stdout, stderr, took, err := w.tryRun(w.project, nil, qwen, qwenArgs()...)
	r := model.Results()[ToolUseID(0)]
	t.Logf("took %v, err %v; the model got %q\nstdout %s\nstderr %s", took, err, r.Text, clip(string(stdout), 500), clip(string(stderr), 1500))
	if !strings.Contains(r.Text, CanaryContent) {
		t.Errorf("Qwen Code waited for its slow hook (the model got %q): AGENTS-MEASURED.md and hook/qwen.BusTimeout are out of date", r.Text)
	}
}
