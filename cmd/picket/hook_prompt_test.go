package main

import (
	"fmt"
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
)

// TestHookPromptTmux runs the real hook inside a tmux session whose client
// is hosted by an outer tmux server, as a person's terminal would be: the
// block pops picket's prompt in a display-popup, a keypress typed on the
// client grants for the session, the same call then passes without a
// prompt, and another session is still asked (and denied with Enter).
func TestHookPromptTmux(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: builds picket and drives two tmux servers")
	}
	base := t.TempDir()
	bin := filepath.Join(base, "picket")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home, proj, outside := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{home, proj, outside} {
		os.MkdirAll(d, 0o755)
	}
	secret := filepath.Join(outside, "notes.txt")
	os.WriteFile(secret, []byte("x\n"), 0o644)
	// No extends: the temp dir must not be readable by policy.
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte("{\n  // the person's comment\n  \"filesystem\": {\"defaultDenyRead\": true, \"allowRead\": [\".\"]}\n}\n"), 0o644)

	h := &hookTmux{t: t, base: base, bin: bin, home: home, proj: proj, secret: secret,
		inner: fmt.Sprintf("picket-inner-%d", time.Now().UnixNano()), outer: fmt.Sprintf("picket-outer-%d", time.Now().UnixNano())}
	h.start()

	// 1. Session A: the prompt pops up; "s" after the guard grants.
	h.call("sess-A", "turn-1")
	h.waitClient("Allow read of this path?")
	if s := h.client(); !strings.Contains(s, secret) {
		t.Fatalf("the prompt does not show the resolved path %s:\n%s", secret, s)
	}
	h.waitClient("Enter/Esc deny") // armed: the 500 ms guard is over
	h.typeKey("s")
	if out := h.result(); out != "" {
		t.Fatalf("granted call answered %q, want no output", out)
	}
	h.wantAudit("grant-session")

	// 2. Same session: passes via the session grant, no prompt.
	start := time.Now()
	h.call("sess-A", "turn-2")
	if out := h.result(); out != "" {
		t.Fatalf("call with a session grant answered %q, want no output", out)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the granted call took %s: was a prompt shown?", time.Since(start))
	}

	// 3. Another session: asked again; Enter (after the guard) denies.
	h.call("sess-B", "turn-1")
	h.waitClient("Allow read of this path?")
	h.waitClient("Enter/Esc deny")
	h.typeKey("Enter")
	out := h.result()
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "picket: blocked Read") {
		t.Fatalf("session B answered %q, want a block", out)
	}
	h.wantAudit(`"decision":"block"`)

	// 4. Session C: "p" then "y" persists into the project's fence.jsonc,
	// comments kept; a fresh session D then passes without a prompt.
	h.call("sess-C", "turn-1")
	h.waitClient("Allow read of this path?")
	h.waitClient("Enter/Esc deny")
	h.typeKey("p")
	h.waitClient("[y/N]")
	h.waitClient("any other key denies") // the confirm's own guard is over
	h.typeKey("y")
	if out := h.result(); out != "" {
		t.Fatalf("persisted call answered %q, want no output", out)
	}
	h.wantAudit("grant-persist")
	policy, _ := os.ReadFile(filepath.Join(proj, "fence.jsonc"))
	if entry, _ := decide.ExactPattern(secret); !strings.Contains(string(policy), entry) || !strings.Contains(string(policy), "// the person's comment") {
		t.Fatalf("fence.jsonc after persist:\n%s", policy)
	}
	h.call("sess-D", "turn-1")
	if out := h.result(); out != "" {
		t.Fatalf("a new session after persist answered %q, want no output", out)
	}
}

type hookTmux struct {
	t                             *testing.T
	base, bin, home, proj, secret string
	inner, outer                  string
	n                             int
	doneFile, outFile             string
}

func (h *hookTmux) tmux(socket string, args ...string) string {
	h.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-f", os.DevNull, "-L", socket}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("tmux -L %s %s: %v: %s", socket, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (h *hookTmux) start() {
	h.tmux(h.inner, "new-session", "-d", "-s", "work", "-x", "100", "-y", "30")
	attach := fmt.Sprintf("tmux -f /dev/null -L %s attach -t work", h.inner)
	h.tmux(h.outer, "new-session", "-d", "-s", "client", "-x", "100", "-y", "30", attach)
	h.t.Cleanup(func() {
		for _, s := range []string{h.outer, h.inner} {
			c := exec.Command("tmux", "-f", os.DevNull, "-L", s, "kill-server")
			c.Env = tmuxEnv()
			c.Run()
		}
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(h.tmux(h.inner, "list-clients"), "work") {
			return
		}
	}
	h.t.Fatal("the outer server never attached a client to the inner session")
}

// call runs the hook in the inner pane on a Read of the secret.
func (h *hookTmux) call(session, turn string) {
	h.t.Helper()
	h.n++
	ev := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"prompt_id":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q}}`,
		session, h.proj, turn, h.secret)
	evFile := filepath.Join(h.base, fmt.Sprintf("ev%d.json", h.n))
	h.outFile = filepath.Join(h.base, fmt.Sprintf("out%d.json", h.n))
	h.doneFile = filepath.Join(h.base, fmt.Sprintf("done%d", h.n))
	os.WriteFile(evFile, []byte(ev), 0o644)
	script := filepath.Join(h.base, fmt.Sprintf("run%d.sh", h.n))
	os.WriteFile(script, []byte(fmt.Sprintf(`#!/bin/sh
unset CI NO_COLOR
export HOME=%s XDG_STATE_HOME=%s/state XDG_CONFIG_HOME=%s/config
cd %s
%s hook < %s > %s 2>%s.err
touch %s
`, shellQuote(h.home), shellQuote(h.home), shellQuote(h.home), shellQuote(h.proj), shellQuote(h.bin),
		shellQuote(evFile), shellQuote(h.outFile), shellQuote(h.outFile), shellQuote(h.doneFile))), 0o755)
	h.tmux(h.inner, "send-keys", "-t", "work", script, "Enter")
}

func (h *hookTmux) client() string {
	return h.tmux(h.outer, "capture-pane", "-p", "-t", "client")
}

func (h *hookTmux) waitClient(want string) {
	h.t.Helper()
	var s string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s = h.client(); strings.Contains(s, want) {
			return
		}
	}
	h.t.Fatalf("the client never showed %q; screen:\n%s", want, s)
}

// typeKey types on the person's terminal: the outer pane runs the inner
// client, which hands the key to the popup.
func (h *hookTmux) typeKey(k string) {
	h.tmux(h.outer, "send-keys", "-t", "client", k)
}

func (h *hookTmux) result() string {
	h.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(h.doneFile); err == nil {
			out, _ := os.ReadFile(h.outFile)
			return strings.TrimSpace(string(out))
		}
	}
	errOut, _ := os.ReadFile(h.outFile + ".err")
	h.t.Fatalf("the hook never finished; stderr: %s; client:\n%s", errOut, h.client())
	return ""
}

func (h *hookTmux) wantAudit(want string) {
	h.t.Helper()
	b, _ := os.ReadFile(filepath.Join(h.home, "state", "picket", "audit.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, want) || !strings.Contains(last, `"prompted":true`) {
		h.t.Fatalf("last audit line %s, want %s with prompted:true", last, want)
	}
}
