package main

import (
	"fmt"
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHookTTYSurfaceShared runs the real hook on the tty surface in a tmux
// pane. Run by an interactive shell as a job of its own (the shell waits in
// its own, background, process group), the hook prompts on the terminal.
// Run under a process that stays in the terminal's foreground process group
// with the terminal as its stdin, as an agent reading its terminal raw does
// when it runs hooks through `sh -c` with a pipe, the prompt would share
// the keystrokes meant for the agent: the hook does not use the terminal,
// though its own parent's stdin is not the terminal.
func TestHookTTYSurfaceShared(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: drives the hook in tmux")
	}
	base := t.TempDir()
	bin := picketBin(t, base)
	home, proj, outside := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{home, proj, outside} {
		os.MkdirAll(d, 0o755)
	}
	secret := filepath.Join(outside, "notes.txt")
	os.WriteFile(secret, []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"picket": {"prompt": {"surface": "tty"}}, "filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`+"\n"), 0o644)
	ev := filepath.Join(base, "ev.json")
	os.WriteFile(ev, []byte(fmt.Sprintf(`{"session_id":"s1","cwd":%q,"prompt_id":"t1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q}}`, proj, secret)), 0o644)
	script := filepath.Join(base, "hook.sh")
	os.WriteFile(script, []byte(fmt.Sprintf(`unset CI NO_COLOR TMUX TMUX_PANE
export HOME=%s XDG_STATE_HOME=%s/state XDG_CONFIG_HOME=%s/config
cd %s
%s hook < %s > "$1" 2>"$1.err"
`, shellQuote(home), shellQuote(home), shellQuote(home), shellQuote(proj), shellQuote(bin), shellQuote(ev))), 0o644)

	p := &tmuxPrompt{t: t, socket: fmt.Sprintf("picket-tty-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "prompt", "-x", "100", "-y", "30", "sh -i")
	t.Cleanup(func() { _ = p.run("kill-server") })

	// The shell's own job: the prompt is drawn, and d denies.
	out1 := filepath.Join(base, "out1")
	p.tmux("send-keys", "-t", "prompt", fmt.Sprintf("sh %s %s < /dev/null; touch %s.done", shellQuote(script), shellQuote(out1), shellQuote(out1)), "Enter")
	p.waitScreen("Allow read of this path?")
	p.waitArmed()
	p.key("d")
	if got := waitFile(t, out1); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("job of an interactive shell answered %q, want the person's deny", got)
	}

	// A TERM while the prompt is up (Claude Code's timeout, a closing
	// window) denies, and the terminal is given back as it was: not raw,
	// not in the alternate screen.
	out3 := filepath.Join(base, "out3")
	p.tmux("send-keys", "-t", "prompt", "clear", "Enter")
	// The first prompt's text must be gone, or the wait below could match
	// it and the signal reach the new hook before its prompt is up (where
	// the hook ignores it and goes on).
	for deadline := time.Now().Add(10 * time.Second); strings.Contains(p.screen(), "Allow read of this path?"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never cleared:\n%s", p.screen())
		}
	}
	p.tmux("send-keys", "-t", "prompt", fmt.Sprintf("sh %s %s < /dev/null; touch %s.done", shellQuote(script), shellQuote(out3), shellQuote(out3)), "Enter")
	p.waitScreen("Allow read of this path?")
	p.waitArmed()
	pids, err := exec.Command("pgrep", "-f", "^"+regexp.QuoteMeta(bin)+" hook$").Output()
	if err != nil {
		t.Fatalf("pgrep found no picket hook: %v", err)
	}
	for _, pid := range strings.Fields(string(pids)) {
		exec.Command("kill", "-TERM", pid).Run()
	}
	if got := waitFile(t, out3); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("hook signalled during its prompt answered %q, want a deny", got)
	}
	stty := filepath.Join(base, "stty")
	p.tmux("send-keys", "-t", "prompt", fmt.Sprintf("stty -a > %s; touch %s.done", shellQuote(stty), shellQuote(stty)), "Enter")
	if mode := waitFile(t, stty); strings.Contains(mode, "-icanon") || strings.Contains(mode, "-echo ") {
		t.Errorf("the terminal was left raw after the hook was killed during its prompt:\n%s", mode)
	}
	if alt, err := exec.Command("tmux", "-f", os.DevNull, "-L", p.socket, "display-message", "-p", "-t", "prompt", "#{alternate_on}").Output(); err == nil && strings.TrimSpace(string(alt)) != "0" {
		t.Errorf("the terminal was left in the alternate screen after the hook was killed during its prompt")
	}

	// A foreground process reading the terminal, two levels up: no prompt.
	out2 := filepath.Join(base, "out2")
	p.tmux("send-keys", "-t", "prompt", "clear", "Enter")
	// (A pipe, not a redirect: dash redirects the waiting shell's own
	// stdin around the fork.)
	p.tmux("send-keys", "-t", "prompt", fmt.Sprintf("sh -c 'echo | sh %s %s; touch %s.done'", script, out2, out2), "Enter")
	got := waitFile(t, out2)
	if strings.Contains(p.screen(), "Allow read of this path?") {
		t.Fatalf("the prompt was drawn on a terminal a foreground ancestor reads:\n%s", p.screen())
	}
	if !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("hook under a terminal reader answered %q, want a headless deny", got)
	}
}

// waitFile waits for name.done and returns name's content.
func waitFile(t *testing.T, name string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(name + ".done"); err == nil {
			b, _ := os.ReadFile(name)
			return string(b)
		}
	}
	errOut, _ := os.ReadFile(name + ".err")
	t.Fatalf("the hook never finished; stderr: %s", errOut)
	return ""
}
