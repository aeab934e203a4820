package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/egress/netnstest"
	"github.com/picketdev/picket/internal/testenv"
)

// TestRunNetworkConsole: a command run with no terminal and no tmux (as
// an agent runs its shell) reaches for a host no entry names; the
// network prompt reaches `picket console` in a real terminal (a tmux
// pane), the person answers "this command", and the connection passes.
func TestRunNetworkConsole(t *testing.T) {
	if !netnstest.Enter(t, netConfig) {
		return
	}
	testenv.Tmux(t)
	w := newNetWorld(t, netPolicy)
	runtime := filepath.Join(filepath.Dir(w.proj), "run")
	os.MkdirAll(runtime, 0o700)
	env := sandboxEnv(w.home, w.proj, "XDG_RUNTIME_DIR="+runtime) // no CI, no TMUX

	p := &tmuxPrompt{t: t, socket: fmt.Sprintf("picket-netconsole-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "prompt", "-x", "100", "-y", "30",
		"env "+strings.Join(quoteAll(env), " ")+" "+shellQuote(w.bin)+" console")
	t.Cleanup(func() { _ = p.run("kill-server") })
	p.waitScreen("waiting for grant requests")

	run := exec.Command(w.bin, "run", "--session", "net-console", "--", "curl", "-sS", "--max-time", "30", "http://other.test/")
	run.Dir, run.Env = w.proj, env
	run.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var out, errOut bytes.Buffer
	run.Stdout, run.Stderr = &out, &errOut
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	s := p.waitScreen("Allow connections to other.test, on any port?")
	if !strings.Contains(s, "command curl -sS") {
		t.Errorf("the console's network prompt does not name the command:\n%s", s)
	}
	p.waitArmed()
	p.key("a")
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "web11 saw other.test") {
			t.Errorf("answered this command on the console: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
		}
	case <-time.After(40 * time.Second):
		run.Process.Kill()
		t.Fatalf("picket run never finished; console:\n%s", p.screen())
	}
	var granted bool
	for _, e := range w.audit(t) {
		granted = granted || e.Path == "other.test:80" && e.Decision == "grant-once" && e.Prompted
	}
	if !granted {
		t.Errorf("no prompted grant-once line for other.test:80: %+v", w.audit(t))
	}
}
