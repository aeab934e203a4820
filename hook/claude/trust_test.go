package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestTrust: Claude Code runs picket's hooks unless a settings file turns
// every hook off (the last one that says so wins) or its managed
// settings allow only their own.
func TestTrust(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string // relative to the test's base
		ok    bool
		says  string
	}{
		{"nothing", nil, true, "no settings turn hooks off"},
		{"user off", map[string]string{"home/.claude/settings.json": `{"disableAllHooks": true}`}, false, "home/.claude/settings.json"},
		{"user off, project on", map[string]string{"home/.claude/settings.json": `{"disableAllHooks": true}`, "proj/.claude/settings.json": `{"disableAllHooks": false}`}, true, ""},
		{"local off", map[string]string{"proj/.claude/settings.local.json": "{\n  // mine\n  \"disableAllHooks\": true,\n}"}, false, "settings.local.json"},
		{"managed only", map[string]string{"etc/managed-settings.json": `{"allowManagedHooksOnly": true}`}, false, "managed settings"},
		{"managed drop-in off", map[string]string{"etc/managed-settings.d/10-x.json": `{"disableAllHooks": true}`}, false, "10-x.json"},
		{"broken file", map[string]string{"home/.claude/settings.json": `{"disableAllHooks": tru`}, true, ""},
	} {
		base := t.TempDir()
		for _, d := range []string{"home", "proj", "etc"} {
			os.MkdirAll(filepath.Join(base, d), 0o755)
		}
		for f, body := range tt.files {
			p := filepath.Join(base, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
		env := map[string]string{projectDirEnv: filepath.Join(base, "proj")}
		o := hook.InstallOptions{Home: filepath.Join(base, "home"), Dir: filepath.Join(base, "proj"), Getenv: func(k string) string { return env[k] }}
		st := trustIn(o, filepath.Join(base, "etc"))
		if st.Trusted != tt.ok || !strings.Contains(st.Detail, tt.says) || (!st.Trusted && st.Fix == "") {
			t.Errorf("%s: %+v, want trusted %v, saying %q", tt.name, st, tt.ok, tt.says)
		}
	}
}
