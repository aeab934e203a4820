package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/picketdev/picket/hook"
)

// TestDoctorOpencode: picket doctor finds picket's opencode plugin, runs
// the picket serve it starts with a canary write that must be blocked,
// and says whether opencode loaded the plugin the last time it ran: not
// yet, loaded (its announcement after the run began), or a later run that
// did not load it (--pure).
func TestDoctorOpencode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	w := newDoctorWorld(t)
	w.must("install", "opencode", "--project")
	plugin := filepath.Join(w.project, ".opencode", "plugins", "picket.js")
	w.doctor("installed, opencode never ran", 1,
		"opencode (opencode):\n  ok: project wiring in "+plugin+"\n  ok: it runs this picket, BIN\n  ok: the canary write of PROJECT/.git/hooks/pre-commit is blocked: picket: blocked write",
		"problem: opencode does not run it: opencode has not run since picket's plugin was installed")

	logf := filepath.Join(w.home, ".local", "share", "opencode", "log", "opencode.log")
	os.MkdirAll(filepath.Dir(logf), 0o755)
	at := time.Now().UTC().Add(-time.Minute)
	run := "timestamp=" + at.Format(time.RFC3339Nano) + " level=INFO run=1 message=\"creating instance\" directory=" + w.project + "\n"
	os.WriteFile(logf, []byte(run), 0o644)
	state := filepath.Join(filepath.Dir(w.home), "state", "picket")
	if err := hook.WriteAnnouncement(state, hook.Announcement{Agent: "opencode", Plugin: plugin, Version: "1", Directory: w.project, Picket: "dev", Time: at.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	w.doctor("loaded", 0, "ok: opencode runs it: opencode loaded picket's plugin "+plugin)

	later := "timestamp=" + at.Add(30*time.Second).Format(time.RFC3339Nano) + " level=INFO run=2 message=\"creating instance\" directory=" + w.project + "\n"
	os.WriteFile(logf, []byte(run+later), 0o644)
	w.doctor("a later run without the plugin", 1, "problem: opencode does not run it: opencode's last run", "--pure")

	w.must("uninstall", "opencode", "--project")
	w.doctor("removed", 1, "opencode (opencode):\n  note: not installed")
}
