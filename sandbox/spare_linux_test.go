//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSpares: an empty placeholder goes to the spare directories and
// comes back as the next placeholder; one the person wrote into stays
// where it is; a spare that is not a directory is never put in place.
func TestSpares(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(state, "sandbox"), 0o700)
	m, n := filepath.Join(ws, ".claude"), filepath.Join(ws, "fence.json")
	if err := os.Mkdir(m, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(n, 0o755)
	os.WriteFile(filepath.Join(n, "keep"), []byte("mine"), 0o644)
	s := listSpares(state)
	s.keep(m)
	s.keep(n)
	if _, err := os.Lstat(m); !os.IsNotExist(err) {
		t.Errorf("the empty placeholder is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(n, "keep")); err != nil || string(b) != "mine" {
		t.Errorf("the person's file in a placeholder: %q, %v", b, err)
	}
	s = listSpares(state)
	if len(s.names) != 1 {
		t.Fatalf("spares %q, want one", s.names)
	}
	if err := s.place(m); err != nil || !emptyDir(m) {
		t.Fatalf("place: %v (empty dir: %v)", err, emptyDir(m))
	}
	if err := listSpares(state).place(filepath.Join(ws, "x")); err == nil {
		t.Errorf("placed a spare that was taken")
	}
	if err := s.place(filepath.Join(ws, "gone", "x")); err == nil {
		t.Errorf("placed a spare under a missing directory")
	}
	// A spare that is a symlink (the state dir is the person's) is removed
	// once in place, and the caller makes the placeholder itself.
	os.Symlink(ws, filepath.Join(state, "sandbox", "spare", "link"))
	s = listSpares(state)
	if err := s.place(filepath.Join(ws, ".codex")); err == nil {
		t.Errorf("placed a symlink")
	}
	if _, err := os.Lstat(filepath.Join(ws, ".codex")); !os.IsNotExist(err) {
		t.Errorf("the symlink stayed in place: %v", err)
	}
	// A spare with something in it is never put in place.
	full := filepath.Join(state, "sandbox", "spare", "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "settings.json"), []byte("{}"), 0o644)
	s = listSpares(state)
	if err := s.place(filepath.Join(ws, ".gemini")); err == nil {
		t.Errorf("placed a spare that is not empty")
	}
	if _, err := os.Lstat(filepath.Join(ws, ".gemini")); !os.IsNotExist(err) {
		t.Errorf("a spare with a file is in the workspace: %v", err)
	}
	os.RemoveAll(full)
	// An existing name is left alone.
	os.Mkdir(filepath.Join(state, "sandbox", "spare", "d"), 0o755)
	s = listSpares(state)
	if err := s.place(m); !os.IsExist(err) {
		t.Errorf("place over an existing directory: %v, want it to exist", err)
	}
}
