package main

import (
	"bytes"
	"fmt"
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConsoleSurface runs `picket console` in a real terminal (a tmux pane)
// and a hook process with no terminal and no tmux: the auto surface reaches
// the console over its socket, the person answers "once", and the call
// passes with nothing printed.
func TestConsoleSurface(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: builds picket and runs it in tmux")
	}
	base := t.TempDir()
	bin := filepath.Join(base, "picket")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home, proj, runtime := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "run")
	for _, d := range []string{home, proj, runtime} {
		os.MkdirAll(d, 0o700)
	}
	secret := filepath.Join(base, "outside.txt")
	os.WriteFile(secret, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`), 0o644)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config", "XDG_RUNTIME_DIR=" + runtime, "PATH=" + os.Getenv("PATH")}
	sock := filepath.Join(runtime, "picket", "console.sock")

	p := &tmuxPrompt{t: t, socket: fmt.Sprintf("picket-console-%d", time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "prompt", "-x", "100", "-y", "30",
		"env "+strings.Join(quoteAll(env), " ")+" "+shellQuote(bin)+" console")
	t.Cleanup(func() { p.run("kill-server") })
	p.waitScreen("waiting for grant requests")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("console socket %s: %v, mode %v; want 0600", sock, err, fi)
	}

	ev := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"prompt_id":"t1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q}}`, proj, secret)
	hook := exec.Command(bin, "hook")
	hook.Env = env // no CI, no TMUX
	hook.Stdin = strings.NewReader(ev)
	hook.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal: /dev/tty fails
	var out bytes.Buffer
	hook.Stdout = &out
	if err := hook.Start(); err != nil {
		t.Fatal(err)
	}
	p.waitScreen("Allow read of this path?")
	p.waitScreen("Enter/Esc deny") // armed: the 500 ms guard is over
	p.key("a")
	done := make(chan error, 1)
	go func() { done <- hook.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
	case <-time.After(20 * time.Second):
		hook.Process.Kill()
		t.Fatalf("the hook never finished; console:\n%s", p.screen())
	}
	if out.Len() != 0 {
		t.Fatalf("a call granted once answered %q, want nothing", out.String())
	}
	b, _ := os.ReadFile(filepath.Join(home, "state", "picket", "audit.log"))
	if !strings.Contains(string(b), `"decision":"grant-once"`) {
		t.Fatalf("audit log has no grant-once:\n%s", b)
	}
	p.waitScreen(": once")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}
