package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestCommandExe reads back the executable of every hook command
// HookCommand writes, and nothing from another command.
func TestCommandExe(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", "/opt/my picket/picket", "/home/o'neil/bin/picket", "/a/; fi; x/picket"} {
		if got := commandExe(HookCommand(exe)); got != exe {
			t.Errorf("commandExe(HookCommand(%q)) = %q", exe, got)
		}
	}
	for _, cmd := range []string{"picket hook --agent gemini", hookCommand("/a/picket", 5)} {
		if got := commandExe(cmd); got != "" {
			t.Errorf("commandExe(%q) = %q, want none", cmd, got)
		}
	}
}

// TestWired finds what install wrote, in the user's settings and the
// project's, and nothing where there is nothing.
func TestWired(t *testing.T) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(proj, 0o755)
	env := map[string]string{"HOME": home}
	say := func(string, ...any) {}
	o := hook.InstallOptions{Exe: "/opt/picket/picket", Home: home, StateDir: filepath.Join(base, "state"), Dir: proj,
		Getenv: func(k string) string { return env[k] }, Info: say, Warn: say, Hint: say}
	if ws, err := wired(o); err != nil || len(ws) != 0 {
		t.Fatalf("nothing installed: %+v, %v", ws, err)
	}
	o.Project = true
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	o.Project = false
	ws, err := wired(o)
	if err != nil || len(ws) != 1 || ws[0].Scope != "project" || ws[0].Exe != "/opt/picket/picket" ||
		ws[0].File != filepath.Join(proj, ".gemini", "settings.json") || ws[0].Run[0] != "bash" {
		t.Errorf("after install --project: %+v, %v", ws, err)
	}
}
