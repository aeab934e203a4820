package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunUnsandboxedAuditsExit: picket run --unsandboxed (here with no
// bubblewrap in PATH) records a "run" line before the command starts (a
// picket killed meanwhile still leaves one) and one with its exit status,
// as a sandboxed run does with picket.audit.logCommands.
func TestRunUnsandboxedAuditsExit(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	state := filepath.Join(home, "state")
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "PATH=/nonexistent"}
	os.WriteFile(filepath.Join(ws, "fence.jsonc"), []byte(`{"picket": {"audit": {"logCommands": true}}}`), 0o644)
	r := runInstallCLI(env, "run", "--unsandboxed", "--cwd", ws, "--", "/bin/sh", "-c", "exit 5")
	if r.code != 5 {
		t.Fatalf("picket run --unsandboxed -- sh -c 'exit 5' = %d, want 5; stderr:\n%s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(state, "picket", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e map[string]any
		json.Unmarshal(sc.Bytes(), &e)
		lines = append(lines, e)
	}
	if len(lines) != 2 || lines[0]["decision"] != "run" || lines[0]["exit"] != nil || lines[1]["decision"] != "run" || lines[1]["exit"] != 5.0 {
		t.Errorf("audit lines = %v, want a run line before and one with exit 5 after", lines)
	}
}
