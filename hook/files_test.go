package hook_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestReplaceFile: a settings file kept as a link stays a link, its
// target gets the bytes and keeps its mode; a new file is made 0644 with
// its directory; Missing names what is not there.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "dotfiles", "settings.json"), filepath.Join(dir, "settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o600)
	os.Symlink(target, link)
	if err := hook.ReplaceFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "a", "b", "new.json")
	if got := hook.Missing(fresh, filepath.Dir(fresh), dir); !slices.Equal(got, []string{fresh, filepath.Dir(fresh)}) {
		t.Errorf("Missing = %v", got)
	}
	if err := hook.ReplaceFile(fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v %v, want mode 0644", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*", ".*.picket-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
