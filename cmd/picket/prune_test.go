package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/grants"
)

// TestSessionStartPrunesOldGrants: a session that never reached SessionEnd
// (a crash) leaves its grants file; a week later the next SessionStart
// removes it, and leaves a fresh one alone.
func TestSessionStartPrunesOldGrants(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	store := grants.Store{Dir: grants.DefaultDir(home, filepath.Join(home, "state"))}
	for _, s := range []string{"old-session", "new-session"} {
		if err := store.Add(s, grants.Grant{Access: "read", Path: "/etc/hostname", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	week := time.Now().Add(-8 * 24 * time.Hour)
	entries, _ := os.ReadDir(store.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "old-session") {
			os.Chtimes(filepath.Join(store.Dir, e.Name()), week, week)
		}
	}
	ev := `{"session_id":"s","cwd":"` + proj + `","hook_event_name":"SessionStart","source":"startup"}`
	var out, errb bytes.Buffer
	if code := run([]string{"hook"}, env, strings.NewReader(ev), &out, &errb); code != 0 {
		t.Fatalf("hook exit %d: %s", code, errb.String())
	}
	if ok, _ := store.Has("old-session", "read", "/etc/hostname"); ok {
		t.Error("a week-old session's grant survived SessionStart")
	}
	if ok, _ := store.Has("new-session", "read", "/etc/hostname"); !ok {
		t.Error("a fresh session's grant was pruned")
	}
}

// TestSessionStartForgetsResidentServer: the resident hook server is gone;
// what it left in picket's state dir and the runtime dir (its sockets,
// locks, start markers) is removed at the next SessionStart, and the
// console's socket beside them stays.
func TestSessionStartForgetsResidentServer(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	state := filepath.Join(home, "state")
	runtime := filepath.Join(home, "run")
	os.MkdirAll(proj, 0o755)
	left := []string{
		filepath.Join(state, "picket", "resident", "hook-0123456789abcdef.sock"),
		filepath.Join(state, "picket", "resident", "hook-0123456789abcdef.sock.lock"),
		filepath.Join(runtime, "picket", "hook-0123456789abcdef.sock"),
		filepath.Join(runtime, "picket", "hook-0123456789abcdef.sock.start"),
	}
	console := filepath.Join(runtime, "picket", "console.sock")
	for _, f := range append(left, console) {
		os.MkdirAll(filepath.Dir(f), 0o700)
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_RUNTIME_DIR=" + runtime}
	ev := `{"session_id":"s","cwd":"` + proj + `","hook_event_name":"SessionStart","source":"startup"}`
	var out, errb bytes.Buffer
	if code := run([]string{"hook"}, env, strings.NewReader(ev), &out, &errb); code != 0 {
		t.Fatalf("hook exit %d: %s", code, errb.String())
	}
	for _, f := range left {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s survived SessionStart", f)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "picket", "resident")); err == nil {
		t.Error("the resident server's directory survived SessionStart")
	}
	if _, err := os.Stat(console); err != nil {
		t.Errorf("the console's socket was removed: %v", err)
	}
}
