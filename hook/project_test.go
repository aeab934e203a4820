package hook

import (
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitTop: an agent's project settings are at the git top level of the
// directory install runs in.
func TestGitTop(t *testing.T) {
	testenv.Git(t)
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	got := GitTop(sub, []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")})
	if want, _ := filepath.EvalSymlinks(root); got != want {
		t.Errorf("GitTop(%s) = %q, want the git top level %q", sub, got, want)
	}
	if outside := t.TempDir(); GitTop(outside, nil) != outside {
		t.Errorf("GitTop outside git = %q, want %q", GitTop(outside, nil), outside)
	}
}
