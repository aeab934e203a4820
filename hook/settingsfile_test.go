package hook

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadSettingsFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadSettingsFile(filepath.Join(dir, "none"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSettingsFile(fifo, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v, want a refusal", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2<<20+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSettingsFile(big, 2<<20); err == nil || !strings.Contains(err.Error(), "larger than 2 MiB") {
		t.Errorf("large file: %v, want a refusal", err)
	}
}

// TestSettingsRecord: the file before the first install is given back
// while nothing changed it; once it changed between two installs it is
// no longer known.
func TestSettingsRecord(t *testing.T) {
	r := RecordOf(t.TempDir(), "test", "/x/settings.json")
	if _, ok := r.Read(); ok {
		t.Fatal("a record before any install")
	}
	orig, wired := []byte("{}\n"), []byte(`{"hooks": {}}`)
	if err := r.Installed(orig, wired, "/p", []string{"/x"}); err != nil {
		t.Fatal(err)
	}
	f, ok := r.Read()
	if !ok || !f.Unchanged(wired) || f.Unchanged(orig) || !bytes.Equal(f.Original, orig) || f.Exe != "/p" || len(f.Created) != 1 {
		t.Fatalf("record after install: %+v, %v", f, ok)
	}
	if err := r.Installed([]byte("changed"), wired, "/q", []string{"/x"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := r.Read(); f.Known || f.Original != nil || f.Unchanged(wired) || len(f.Created) != 1 {
		t.Fatalf("record after a change: %+v", f)
	}
	r.Remove()
	if _, ok := r.Read(); ok {
		t.Fatal("a record after Remove")
	}
}
