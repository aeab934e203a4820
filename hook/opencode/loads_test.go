package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// TestLoadsInstructionFiles: opencode's read adds the AGENTS.md of every
// directory between the file's and the session's: one that is a symlink to
// a denied file denies the read; a plain one, or one in the session's own
// directory (loaded at start, not by the read), does not.
func TestLoadsInstructionFiles(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755)
	os.MkdirAll(filepath.Join(root, "ok"), 0o755)
	os.WriteFile(filepath.Join(root, ".secret"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(root, "sub", "deep", "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "ok", "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "ok", "AGENTS.md"), []byte("be nice\n"), 0o644)
	os.Symlink("../.secret", filepath.Join(root, "sub", "CLAUDE.md"))
	os.Symlink(".secret", filepath.Join(root, "AGENTS.md"))
	p, err := decide.Compile(decide.Spec{Root: root, Home: "/nonexistent", Mode: decide.WorkspaceWrite, DenyRead: decide.Rules("test", "**/.secret")})
	if err != nil {
		t.Fatal(err)
	}
	judge := func(file string) (decide.Decision, bool) {
		c := hook.Call{Agent: Name, Cwd: root, Tool: "read"}
		d := decide.Check(p, decide.Read, file, root, -1)
		return loads(p, c, hook.Target{Access: decide.Read, Path: file}, d)
	}
	if d, denied := judge(filepath.Join(root, "sub", "deep", "a.go")); !denied || d.Allow || !strings.Contains(d.Reason, "CLAUDE.md") {
		t.Errorf("read below a CLAUDE.md that links to a denied file = %+v, %v; want denied", d, denied)
	}
	if d, denied := judge(filepath.Join(root, "ok", "a.go")); denied {
		t.Errorf("read below a plain AGENTS.md = %+v, want no denial", d)
	}
	if d, denied := judge(filepath.Join(root, "README.md")); denied {
		t.Errorf("read in the session's directory = %+v, want no denial (its AGENTS.md is opencode's own read at start)", d)
	}
	c := hook.Call{Agent: Name, Cwd: root, Tool: "write"}
	if _, denied := loads(p, c, hook.Target{Access: decide.Write, Path: filepath.Join(root, "sub", "deep", "a.go")}, decide.Decision{Allow: true}); denied {
		t.Error("a write was judged for instruction files")
	}
}
