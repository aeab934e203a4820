package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionStartLintOnce: the lint warnings are shown once per session
// and policy: a second SessionStart of the same session (resume, /clear,
// compaction) shows nothing, another session or a changed policy shows
// them, and so does the same session id after its SessionEnd. A broken
// policy is an error and is shown every time.
func TestSessionStartLintOnce(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	policy := func(s string) { os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(s), 0o644) }
	event := func(name, session string) string {
		var out, errb bytes.Buffer
		ev := `{"session_id":"` + session + `","cwd":"` + proj + `","hook_event_name":"` + name + `","source":"startup","reason":"exit"}`
		if code := run([]string{"hook"}, env, strings.NewReader(ev), &out, &errb); code != 0 {
			t.Fatalf("hook %s: exit %d: %s", name, code, errb.String())
		}
		return out.String()
	}
	policy(`{"filesystem": {"allowWrite": ["**"]}}`)
	steps := []struct {
		event, session, policy string
		want                   string // in the systemMessage; "" for no output
	}{
		{"SessionStart", "s1", "", "footguns"},
		{"SessionStart", "s1", "", ""},
		{"SessionStart", "s2", "", "footguns"},
		{"SessionStart", "s2", `{"filesystem": {"allowRead": ["**"]}}`, "footguns"},
		{"SessionStart", "s2", "", ""},
		{"SessionEnd", "s1", "", ""},
		{"SessionStart", "s1", "", "footguns"},
		{"SessionStart", "s1", `{"filesystem": `, "policy is broken"},
		{"SessionStart", "s1", "", "policy is broken"},
	}
	for i, st := range steps {
		if st.policy != "" {
			policy(st.policy)
		}
		got := event(st.event, st.session)
		if (st.want == "") != (got == "") || !strings.Contains(got, st.want) || st.want != "" && !strings.Contains(got, "systemMessage") {
			t.Errorf("step %d, %s of %s: output %q, want a systemMessage with %q (none if empty)", i, st.event, st.session, got, st.want)
		}
	}
}
