package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookExe reads back the executable HookCommand names, whatever
// characters its path holds.
func TestHookExe(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", "/opt/my picket/bin/picket", "/home/o'neil/bin/picket", "/a/\u2028/pi$cket", "/a/; fi; x/picket"} {
		if got := hookExe(HookCommand(exe)); got != exe {
			t.Errorf("hookExe(HookCommand(%q)) = %q", exe, got)
		}
	}
	for _, cmd := range []string{"", "/x/picket hook --agent gemini", "/usr/bin/timeout --foreground -s KILL 85 '/x/pi"} {
		if got := hookExe(cmd); got != "" && HookCommand(got) == cmd {
			t.Errorf("hookExe(%q) = %q", cmd, got)
		}
	}
}

// TestWired: doctor finds picket's BeforeTool hook in the user's and the
// workspace's settings, each run through bash -c as Gemini CLI runs it;
// nothing where nothing is installed; and an error where picket's hook
// is no longer as install wrote it, in any way that lets Gemini CLI run
// a call picket did not see or answer.
func TestWired(t *testing.T) {
	w := newInstallWorld(t)
	if ws, err := wired(w.opts(false, false)); err != nil || len(ws) != 0 {
		t.Errorf("nothing installed: %v, %v", ws, err)
	}
	install(w.opts(false, false))
	install(w.opts(true, false))
	ws, err := wired(w.opts(false, false))
	if err != nil || len(ws) != 2 {
		t.Fatalf("installed twice: %+v, %v", ws, err)
	}
	user, proj := filepath.Join(w.home, ".gemini", "settings.json"), filepath.Join(w.proj, ".gemini", "settings.json")
	for i, want := range []struct{ scope, file string }{{"user", user}, {"project", proj}} {
		if g := ws[i]; g.Scope != want.scope || g.File != want.file || g.Exe != exe || len(g.Run) != 3 || g.Run[0] != "bash" || g.Run[1] != "-c" || g.Run[2] != HookCommand(exe) {
			t.Errorf("wiring %d = %+v, want %s in %s running %s", i, g, want.scope, want.file, exe)
		}
	}
	wiredFile, _ := os.ReadFile(proj)
	for _, tt := range []struct{ name, from, to, err string }{
		{"matcher", `"matcher": "^(read_file|`, `"matcher": "^(nothing|`, "not the tools install names"},
		{"timeout", `"timeout": 90000`, `"timeout": 5000`, "timeout of 5000 ms"},
		{"parallel", `"sequential": true,`, ``, "not sequential"},
		{"command", `KILL 85`, `KILL 850`, "not the one install writes"},
		{"no BeforeTool", `"BeforeTool"`, `"BeforeModel"`, "without the BeforeTool one"},
		{"no BeforeAgent", `"BeforeAgent"`, `"AfterModel"`, "no BeforeAgent hook of picket's"},
	} {
		edited := strings.Replace(string(wiredFile), tt.from, tt.to, 1)
		if edited == string(wiredFile) {
			t.Fatalf("%s: %q is not in the settings:\n%s", tt.name, tt.from, wiredFile)
		}
		os.WriteFile(proj, []byte(edited), 0o644)
		if _, err := wired(w.opts(false, false)); err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), proj) {
			t.Errorf("%s changed: %v, want an error naming %s with %q", tt.name, err, proj, tt.err)
		}
	}
	os.WriteFile(proj, []byte("{\"hooks\": "), 0o644)
	if _, err := wired(w.opts(false, false)); err == nil {
		t.Errorf("broken settings: no error")
	}
	uninstall(w.opts(false, false))
	os.Remove(proj)
	if ws, err := wired(w.opts(false, false)); err != nil || len(ws) != 0 {
		t.Errorf("uninstalled: %v, %v", ws, err)
	}
}
