package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnvFilesGrantOnce: the embedded default's deny of a project's .env
// is put to a person at the terminal, who can let the one call through.
func TestEnvFilesGrantOnce(t *testing.T) {
	h := newHookProject(t, hookFence)
	if err := os.Remove(filepath.Join(h.dir, "fence.jsonc")); err != nil { // no policy file anywhere
		t.Fatal(err)
	}
	sc := startServe(t, h.interactive())
	envPath := filepath.Join(h.dir, ".env")
	res := sc.ok("decide", h.decideParams(h.session, "read", map[string]any{"path": ".env"}, true))
	if d := decisionOf(t, res); res["promptable"] != true || d["source"] != "builtin:code" || d["rule"] != "picket.permissions" {
		t.Fatalf("read .env under the embedded default = %v, want a promptable block by the code template", res)
	}
	res = sc.ok("grant", map[string]any{"session": h.session, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
		"path": envPath, "resolved": envPath, "answer": "once"})
	if res["allow"] != true || res["decision"] != "grant-once" {
		t.Errorf("grant once = %v, want the call let through", res)
	}
}
