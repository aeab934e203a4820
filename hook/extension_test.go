package hook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestExtension: the executable is baked in as a string; a second install
// writes nothing; a file that differs is kept as the backup; the
// directories install made go once empty, and the record stays until
// they have.
func TestExtension(t *testing.T) {
	base := t.TempDir()
	x := hook.Extension{Agent: "x", Kind: "plugin", File: "p.js", Source: `const P = "__PICKET_EXE__";` + "\n",
		Backup: func(file string) string { return file + ".bak" }}
	if _, err := x.Render("picket"); err == nil {
		t.Error("Render took a relative executable")
	}
	var out bytes.Buffer
	nop := func(string, ...any) {}
	o := hook.InstallOptions{Exe: `/a"b`, StateDir: filepath.Join(base, "state"), Stdout: &out, Info: nop, Warn: nop, Hint: nop}
	dir := filepath.Join(base, "made", "plugins")
	file := filepath.Join(dir, "p.js")
	for i, want := range []bool{true, false} {
		if wrote, err := x.Install(o, dir); err != nil || wrote != want {
			t.Fatalf("install %d: wrote %v, %v; want %v", i, wrote, err, want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != `const P = "/a\"b";`+"\n" {
		t.Errorf("installed %q", b)
	}
	os.WriteFile(file, []byte("edited"), 0o644)
	if _, err := x.Install(o, dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file + ".bak"); string(b) != "edited" {
		t.Errorf("backup holds %q", b)
	}
	os.Remove(file)
	if left := x.RemoveCreated(o.StateDir, dir); left != dir {
		t.Errorf("RemoveCreated left %q, want %q (it holds the backup)", left, dir)
	}
	os.Remove(file + ".bak")
	if left := x.RemoveCreated(o.StateDir, dir); left != "" {
		t.Errorf("RemoveCreated left %q once empty", left)
	}
	if _, err := os.Stat(filepath.Join(base, "made")); !os.IsNotExist(err) {
		t.Errorf("the directories install made are still there: %v", err)
	}
	if b, _ := os.ReadDir(filepath.Join(o.StateDir, "installs")); len(b) != 0 {
		t.Errorf("the record is still there: %v", b)
	}
}
