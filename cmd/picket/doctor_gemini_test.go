package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorGemini: picket doctor on Gemini CLI installed in an untrusted
// folder (the canary blocked, and the folder's trust the one problem,
// with the step that fixes it), once trusted, with its hook edited to a
// timeout under picket's, with a stale executable path (the hook command
// still blocks, but doctor says so), and removed.
func TestDoctorGemini(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	w := newDoctorWorld(t)
	settings := filepath.Join(w.home, ".gemini", "settings.json")
	w.must("install", "gemini")
	w.doctor("an untrusted folder", 1,
		"Gemini CLI (gemini):\n  ok: user wiring in "+settings+"\n  ok: it runs this picket, BIN\n  ok: the canary write_file of PROJECT/.git/hooks/pre-commit is blocked: picket: blocked write_file PROJECT/.git/hooks/pre-commit\n",
		"problem: Gemini CLI does not run it: ", `"TRUST_FOLDER"`, "picket doctor: 1 problem")

	os.WriteFile(filepath.Join(w.home, ".gemini", "trustedFolders.json"), []byte(`{"`+w.project+`": "TRUST_FOLDER"}`), 0o600)
	w.doctor("a trusted folder", 0, "ok: it runs this picket, BIN", "ok: Gemini CLI runs it: ", "picket doctor: no problems")

	b, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte(strings.Replace(string(b), `"timeout": 90000`, `"timeout": 5000`, 1)), 0o644)
	w.doctor("a timeout under picket's", 1, "problem: cannot read picket's wiring: "+settings+": picket's BeforeTool hook has a timeout of 5000 ms")
	os.WriteFile(settings, b, 0o644)

	stale := filepath.Join(filepath.Dir(w.bin), "old", "picket")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	if out, err := exec.Command("cp", w.bin, stale).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	w.must("install", "gemini", "--exe", stale)
	os.Remove(stale)
	w.doctor("a stale executable path", 1,
		"problem: it runs "+stale+", which is not there (no such file or directory): a stale install\n    fix: run 'picket install gemini --user' with the picket you use",
		"problem: the canary write_file of PROJECT/.git/hooks/pre-commit", "picket: error: picket's hook failed, timed out or is missing (exit 127)")

	w.must("uninstall", "gemini")
	w.doctor("a removed install", 1, "Gemini CLI (gemini):\n  note: not installed")
}
