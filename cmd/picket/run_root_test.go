package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRootHoldsTheSessionPolicy: with --root, the command runs in --cwd
// (the directory the model chose: opencode's workdir) under the policy and
// the workspace of the session's directory. Without it, a --cwd outside
// the project would be a workspace of its own, writable.
func TestRunRootHoldsTheSessionPolicy(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	bin := picketBin(t, base)
	home, proj, other := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "other")
	write(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(proj, "fence.jsonc"), `{"extends": "code"}`)
	write(t, filepath.Join(other, ".git", "HEAD"), "ref: refs/heads/main\n")
	os.MkdirAll(home, 0o755)
	env := sandboxEnv(home, proj)

	code, out, errb := pk(t, bin, proj, env, "run", "--root", proj, "--cwd", other, "--", "sh", "-c", "pwd; touch made-in-other")
	if strings.TrimSpace(out) != other {
		t.Errorf("the command ran in %q, want --cwd %s (status %d, stderr %s)", out, other, code, errb)
	}
	if _, err := os.Stat(filepath.Join(other, "made-in-other")); err == nil || code == 0 {
		t.Errorf("a write in --cwd outside the session's workspace succeeded (status %d)", code)
	}
	code, _, errb = pk(t, bin, proj, env, "run", "--root", proj, "--cwd", other, "--", "sh", "-c", "touch "+filepath.Join(proj, "made-in-proj"))
	if _, err := os.Stat(filepath.Join(proj, "made-in-proj")); err != nil || code != 0 {
		t.Errorf("a write in the session's workspace failed: status %d, %v, %s", code, err, errb)
	}
	// The same command without --root: other is its own workspace.
	code, _, errb = pk(t, bin, proj, env, "run", "--cwd", other, "--", "sh", "-c", "touch made-in-other")
	if _, err := os.Stat(filepath.Join(other, "made-in-other")); err != nil || code != 0 {
		t.Errorf("without --root, a write in --cwd's own workspace failed: status %d, %v, %s", code, err, errb)
	}
}
