package copilot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// TestParseHookCommand: the executable comes back out of every command
// HookCommand writes, with or without timeout(1), quotes and all; a
// command it did not write is not picket's.
func TestParseHookCommand(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", "/opt/pi cket/picket", "/opt/it's/picket"} {
		for _, bin := range []string{"", "/usr/bin/timeout", "/opt/core utils/timeout"} {
			if got, ok := ParseHookCommand(HookCommand(exe, bin)); !ok || got != exe {
				t.Errorf("ParseHookCommand(HookCommand(%q, %q)) = %q, %v", exe, bin, got, ok)
			}
		}
	}
	for _, cmd := range []string{"", "./mine.sh", "picket hook --agent copilot",
		"/usr/local/bin/picket hook --agent copilot",
		"relative/picket hook --agent copilot" + HookCommand("x", "")[len("x hook --agent copilot"):]} {
		if exe, ok := ParseHookCommand(cmd); ok {
			t.Errorf("ParseHookCommand(%q) = %q: not a command picket wrote", cmd, exe)
		}
	}
}

// TestWired: picket's hooks in the person's hooks directory and the
// repository's, each with its executable and run as Copilot CLI runs it;
// another hooks file is not picket's; a canary is a create of the path.
func TestWired(t *testing.T) {
	w := newInstallWorld(t)
	if ws, err := wired(w.opts(false, false)); err != nil || len(ws) != 0 {
		t.Fatalf("nothing installed: %v, %v", ws, err)
	}
	if err := install(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if err := install(w.opts(true, false)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.home, ".copilot", "hooks", "mine.json"), []byte(`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}`), 0o644)
	ws, err := wired(w.opts(false, false))
	if err != nil || len(ws) != 2 {
		t.Fatalf("wired = %+v, %v; want the two files install wrote", ws, err)
	}
	for i, scope := range []string{"user", "project"} {
		if ws[i].Scope != scope || filepath.Base(ws[i].File) != HooksFile || ws[i].Exe != "/opt/pi cket/picket" ||
			len(ws[i].Run) != 3 || ws[i].Run[0] != "bash" || ws[i].Run[2] != HookCommand("/opt/pi cket/picket", hook.TimeoutBin(w.opts(false, false).Getenv)) {
			t.Errorf("wiring %d = %+v", i, ws[i])
		}
	}
	ev, err := decode(canary("/p", "/p/.git/hooks/pre-commit"))
	if err != nil || ev.Kind != hook.BeforeTool {
		t.Fatalf("canary: %+v, %v", ev, err)
	}
	if ts, err := targets(ev.Call); err != nil || len(ts) != 1 || ts[0].Path != "/p/.git/hooks/pre-commit" || ts[0].Access != decide.Write {
		t.Errorf("canary targets %+v, %v; want a write of the path", ts, err)
	}
}
