package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/egress/netnstest"
	"github.com/picketdev/picket/internal/testenv"
)

// promptPolicy has a network section that names no host, with comments a
// persist must keep, and the prompt on the terminal.
const promptPolicy = `{
  // the project's policy
  "extends": "code",
  "picket": {"prompt": {"surface": "tty", "timeoutSeconds": 30}},
  "network": {
    "allowedDomains": [
      "allowed.test" // the one we know
    ]
  }
}
`

// TestRunNetworkPromptTmux runs picket run in a real terminal (a tmux
// pane) where a command reaches for hosts no entry names: the prompt
// shows the host first, ignores keys in its first 500 ms, and "this
// command", "this session" and "persist" (with its second confirm) do
// what they say; headless, the same connection is refused with the 403.
func TestRunNetworkPromptTmux(t *testing.T) {
	cfg := netnstest.Config{Addrs: netConfig.Addrs, Hosts: map[string]string{"third.test": "203.0.113.11", "late.test": "203.0.113.11"}}
	for k, v := range netConfig.Hosts {
		cfg.Hosts[k] = v
	}
	if !netnstest.Enter(t, cfg) {
		return
	}
	testenv.Tmux(t)
	w := newNetWorld(t, promptPolicy)
	base := filepath.Dir(w.proj)
	p := &tmuxPrompt{t: t, socket: fmt.Sprintf("picket-net-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "prompt", "-x", "100", "-y", "30", "sh -i")
	t.Cleanup(func() { _ = p.run("kill-server") })

	n := 0
	// job runs curl under picket run as a job of the pane's shell and
	// returns the file its HTTP status lands in.
	job := func(url string) string {
		n++
		out := filepath.Join(base, fmt.Sprintf("job%d", n))
		script := filepath.Join(base, fmt.Sprintf("job%d.sh", n))
		write(t, script, fmt.Sprintf(`unset CI NO_COLOR TMUX TMUX_PANE
export HOME=%s XDG_STATE_HOME=%s/.local/state XDG_CONFIG_HOME=%s/.config
cd %s
%s run --session net-tty -- curl -sS -o /dev/null -w '%%{http_code}' %s > %s 2>%s.err
`, shellQuote(w.home), shellQuote(w.home), shellQuote(w.home), shellQuote(w.proj), shellQuote(w.bin), url, shellQuote(out), shellQuote(out)))
		p.tmux("send-keys", "-t", "prompt", "clear; sh "+shellQuote(script)+" < /dev/null; touch "+shellQuote(out)+".done", "Enter")
		return out
	}
	ask := func(host string) string {
		s := p.waitScreen("Allow connections to " + host + ", on any port?")
		if first := strings.SplitN(s, "\n", 2)[0]; !strings.HasPrefix(first, host+":80") {
			t.Errorf("the prompt does not start with the host and port:\n%s", s)
		}
		return s
	}

	// "this command", after keys typed in the guard were dropped.
	out := job("http://other.test/")
	s := ask("other.test")
	t.Logf("the network prompt in a 100x30 tmux pane:\n%s", s)
	for _, want := range []string{"address 203.0.113.11", "command curl -sS", "rule    network.allowedDomains", "(wait…)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the prompt does not show %q:\n%s", want, s)
		}
	}
	p.key("a")
	time.Sleep(700 * time.Millisecond)
	if _, err := os.Stat(out + ".done"); err == nil {
		t.Fatalf("an a typed within the guard answered the prompt")
	}
	p.waitArmed()
	p.key("a")
	if got := waitFile(t, out); got != "200" {
		t.Errorf("answered this command: curl got %q, want 200", got)
	}

	// "this session": asked again (the first answer held for its command
	// only), then not at all.
	out = job("http://other.test/")
	ask("other.test")
	p.waitArmed()
	p.key("s")
	if got := waitFile(t, out); got != "200" {
		t.Errorf("answered this session: curl got %q, want 200", got)
	}
	out = job("http://other.test/")
	if got := waitFile(t, out); got != "200" || strings.Contains(p.screen(), "Allow connections") {
		t.Errorf("with a session grant: curl got %q, and the screen:\n%s", got, p.screen())
	}

	// "persist": the second confirm, then the entry in fence.jsonc, its
	// comments kept and a backup beside it.
	out = job("http://grey.test/")
	ask("grey.test")
	p.waitArmed()
	p.key("p")
	s = p.waitScreen("[y/N]")
	// The confirm names the policy file's path, whose length follows the
	// temp dir's name: a 100-column pane may wrap the sentence anywhere
	// between its words.
	if !strings.Contains(strings.Join(strings.Fields(s), " "), `This adds "grey.test" to network.allowedDomains`) {
		t.Errorf("the persist confirm:\n%s", s)
	}
	p.waitArmed()
	p.key("y")
	if got := waitFile(t, out); got != "200" {
		t.Errorf("persisted: curl got %q, want 200", got)
	}
	policy, _ := os.ReadFile(filepath.Join(w.proj, "fence.jsonc"))
	if !strings.Contains(string(policy), `"allowed.test", // the one we know`) || !strings.Contains(string(policy), `"grey.test"`) || !strings.Contains(string(policy), "// the project's policy") {
		t.Errorf("fence.jsonc after the persist:\n%s", policy)
	}
	if backups, _ := filepath.Glob(filepath.Join(w.proj, "fence.jsonc.bak.*")); len(backups) != 1 {
		t.Errorf("backups after the persist: %v", backups)
	}

	// "deny": refused, with the 403.
	out = job("http://third.test/")
	ask("third.test")
	p.waitArmed()
	p.key("d")
	if got := waitFile(t, out); got != "403" {
		t.Errorf("denied: curl got %q, want 403", got)
	}

	// Headless, nobody is asked: the 403 names the key to add.
	code, body, _ := w.run(t, "curl -sS http://third.test/")
	if code != 0 || !strings.Contains(body, `to allow it: add "third.test" to network.allowedDomains`) {
		t.Errorf("headless: %d %q", code, body)
	}

	// Nobody answers: the prompt times out, and the connection is refused.
	policy, _ = os.ReadFile(filepath.Join(w.proj, "fence.jsonc"))
	write(t, filepath.Join(w.proj, "fence.jsonc"), strings.Replace(string(policy), `"timeoutSeconds": 30`, `"timeoutSeconds": 2`, 1))
	out = job("http://late.test/")
	ask("late.test")
	if got := waitFile(t, out); got != "403" {
		t.Errorf("timed out: curl got %q, want 403", got)
	}

	decisions := map[string]int{}
	for _, e := range w.audit(t) {
		if e.Prompted {
			decisions[e.Path+" "+e.Decision]++
		}
	}
	for _, e := range w.audit(t) {
		if e.Path == "late.test:80" && !strings.Contains(e.Reason, "let the prompt time out") {
			t.Errorf("the timed-out prompt's audit line: %+v", e)
		}
	}
	for _, want := range []string{"other.test:80 grant-once", "other.test:80 grant-session", "grey.test:80 grant-persist", "third.test:80 block", "late.test:80 block"} {
		if decisions[want] != 1 {
			t.Errorf("prompted audit lines %v: want one %q", decisions, want)
		}
	}
}
