package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ScratchDir makes a directory for one test run outside every place the
// `code` template makes writable (/tmp, /var/tmp, ~/.cache), so a tree in
// it says something about the fence: in the directory the environment
// variable override names, else under preferred unless that is itself in
// such a place (CI may clone anywhere, /tmp included), else under
// fallback. Symlinks in its path are resolved. It is removed unless the
// test fails.
func ScratchDir(t testing.TB, override, preferred, fallback string) string {
	t.Helper()
	parent := os.Getenv(override)
	if parent == "" {
		parent = preferred
		if writableByDefault(parent) {
			parent = fallback
		}
	}
	if writableByDefault(parent) {
		t.Fatalf("scratch dir %s is under a directory the code template makes writable; set %s", parent, override)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(parent, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept %s for inspection", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// writableByDefault reports whether dir (its parent resolved) is under
// /tmp, /var/tmp or ~/.cache.
func writableByDefault(dir string) bool {
	real := dir
	if r, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		real = filepath.Join(r, filepath.Base(dir))
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{"/tmp", "/var/tmp", filepath.Join(home, ".cache")} {
		if real == p || strings.HasPrefix(real, p+"/") {
			return true
		}
	}
	return false
}
