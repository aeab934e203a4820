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
