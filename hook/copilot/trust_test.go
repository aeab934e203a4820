package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustedFolder: an entry trusts its folder and every one below it,
// as written or through symlinks, and no sibling that shares a prefix;
// config.json may hold comments (Copilot CLI writes two).
func TestTrustedFolder(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "work", "proj")
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
	os.Symlink(filepath.Join(base, "work"), filepath.Join(base, "link"))
	config := filepath.Join(base, "config.json")
	write := func(folders string) {
		os.WriteFile(config, []byte("// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": ["+folders+"],\n  \"firstLaunchAt\": \"2026-03-11T00:00:00.000Z\"\n}\n"), 0o600)
	}
	for _, tt := range []struct {
		folders, dir string
		want         bool
	}{
		{`"` + proj + `"`, proj, true},
		{`"` + proj + `/"`, proj, true},
		{`"` + base + `/work"`, proj + "/sub", true},
		{`"` + base + `/link"`, proj, true},
		{`"` + proj + `"`, base + "/link/proj", true},
		{`"` + proj + `x"`, proj, false},
		{`"` + proj + `/sub"`, proj, false},
		{`"relative/proj", ""`, proj, false},
		{``, proj, false},
	} {
		write(tt.folders)
		if _, got := TrustedFolder(config, tt.dir); got != tt.want {
			t.Errorf("trustedFolders [%s], dir %s: %v, want %v", tt.folders, tt.dir, got, tt.want)
		}
	}
	os.Remove(config)
	if _, ok := TrustedFolder(config, proj); ok {
		t.Errorf("no config.json trusts %s", proj)
	}
}

// TestTrust: the person's hooks run everywhere; a repository's only in a
// trusted folder, and with what to do where not; no hook at all where a
// settings file sets disableAllHooks.
func TestTrust(t *testing.T) {
	w := newInstallWorld(t)
	if st := trust(w.opts(false, false)); !st.Trusted || st.Fix != "" {
		t.Errorf("user install: %+v, want trusted", st)
	}
	st := trust(w.opts(true, false))
	if st.Trusted || !strings.Contains(st.Fix, "trustedFolders") || !strings.Contains(st.Fix, w.proj) {
		t.Errorf("untrusted project: %+v, want the fix", st)
	}
	os.MkdirAll(filepath.Join(w.home, ".copilot"), 0o755)
	os.WriteFile(filepath.Join(w.home, ".copilot", "config.json"), []byte(`{"trustedFolders":["`+w.proj+`"]}`), 0o600)
	if st := trust(w.opts(true, false)); !st.Trusted {
		t.Errorf("trusted project: %+v", st)
	}
	os.MkdirAll(filepath.Join(w.proj, ".github", "copilot"), 0o755)
	os.WriteFile(filepath.Join(w.proj, ".github", "copilot", "settings.local.json"), []byte(`{"disableAllHooks": true}`), 0o600)
	for _, project := range []bool{false, true} {
		if st := trust(w.opts(project, false)); st.Trusted || !strings.Contains(st.Detail, "disableAllHooks") || !strings.Contains(st.Fix, "settings.local.json") {
			t.Errorf("disableAllHooks (project %v): %+v", project, st)
		}
	}
}

// TestLaterHooks: Copilot CLI runs a preToolUse hook after picket's, and
// applies its input, when it is in a file of the same hooks directory
// whose name sorts before picket's, in the person's settings.json, or,
// in a trusted folder, anywhere in the repository; picket then does not
// fence the calls, and says so with what to do. A file sorting after
// picket's, a hook on another event, picket's own hooks and an untrusted
// repository's hooks do not count.
func TestLaterHooks(t *testing.T) {
	w := newInstallWorld(t)
	hooks := filepath.Join(w.home, ".copilot", "hooks")
	os.MkdirAll(hooks, 0o755)
	pre := `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}`
	write := func(f, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(hooks, HooksFile), string(Render("/opt/picket", "")))
	write(filepath.Join(hooks, "zz-runs-first.json"), pre)
	write(filepath.Join(hooks, "aa-post.json"), `{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"./mine.sh"}]}}`)
	write(filepath.Join(hooks, "aa-picket.json"), `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"/other/picket hook --agent copilot"}]}}`)
	repoHook := filepath.Join(w.proj, ".github", "hooks", "repo.json")
	write(repoHook, pre)
	if st := trust(w.opts(false, false)); !st.Trusted {
		t.Fatalf("no hook after picket's (the repository untrusted): %+v", st)
	}

	for _, tt := range []struct{ file, body string }{
		{filepath.Join(hooks, "aa-mine.json"), pre},
		{filepath.Join(w.home, ".copilot", "settings.json"), "// mine\n{\"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"./mine.sh\"}]}}"},
		{filepath.Join(hooks, "00-claude-style.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./mine.sh"}]}]}}`},
	} {
		write(tt.file, tt.body)
		st := trust(w.opts(false, false))
		if st.Trusted || !strings.Contains(st.Detail, tt.file+" (1 preToolUse hook)") || !strings.Contains(st.Fix, "sorts after picket.json") {
			t.Errorf("with %s: %+v, want it named as running after picket's", tt.file, st)
		}
		os.Remove(tt.file)
	}

	os.WriteFile(filepath.Join(w.home, ".copilot", "config.json"), []byte(`{"trustedFolders":["`+w.proj+`"]}`), 0o600)
	if st := trust(w.opts(false, false)); st.Trusted || !strings.Contains(st.Detail, repoHook) {
		t.Errorf("trusted repository with a hook: %+v, want it named", st)
	}
	// picket's own in the repository: the repository's files after it
	// count, the person's (run before it) do not.
	write(filepath.Join(w.proj, ".github", "hooks", HooksFile), string(Render("/opt/picket", "")))
	if st := trust(w.opts(true, false)); !st.Trusted {
		t.Errorf("project install, repo.json sorting after picket.json: %+v", st)
	}
	write(filepath.Join(w.proj, ".github", "copilot", "settings.json"), `{"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}`)
	if st := trust(w.opts(true, false)); st.Trusted || !strings.Contains(st.Detail, "settings.json (1 preToolUse hook)") {
		t.Errorf("project install with the repository's settings hook: %+v", st)
	}
}

// TestPreflight: picket hook, run from a hooks file Copilot CLI names in
// COPILOT_HOOK_DIR, refuses every call while a preToolUse hook runs after
// that file's, and says which; run from elsewhere it checks nothing.
func TestPreflight(t *testing.T) {
	w := newInstallWorld(t)
	hooks := filepath.Join(w.home, ".copilot", "hooks")
	env := map[string]string{"HOME": w.home, "COPILOT_HOOK_DIR": hooks, "COPILOT_PROJECT_DIR": w.proj}
	getenv := func(k string) string { return env[k] }
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, HooksFile), Render("/opt/picket", ""), 0o644)
	os.WriteFile(filepath.Join(hooks, "zz.json"), []byte(`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}`), 0o644)
	if err := preflight(getenv); err != nil {
		t.Fatalf("a hook before picket's: %v", err)
	}
	mine := filepath.Join(hooks, "aa.json")
	os.WriteFile(mine, []byte(`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}`), 0o644)
	if err := preflight(getenv); err == nil || !strings.Contains(err.Error(), mine) {
		t.Errorf("a hook after picket's: %v, want it named", err)
	}
	env["COPILOT_HOOK_DIR"] = ""
	if err := preflight(getenv); err != nil {
		t.Errorf("no hooks dir named: %v", err)
	}
	os.Remove(mine)

	// picket's hooks file in the repository: its files after it count,
	// the folder being trusted since Copilot CLI runs them.
	repo := filepath.Join(w.proj, ".github", "hooks")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, HooksFile), Render("/opt/picket", ""), 0o644)
	env["COPILOT_HOOK_DIR"] = repo
	if err := preflight(getenv); err != nil {
		t.Fatalf("repository hooks file alone: %v", err)
	}
	os.WriteFile(filepath.Join(repo, "lint.json"), []byte(`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./lint.sh"}]}}`), 0o644)
	if err := preflight(getenv); err == nil || !strings.Contains(err.Error(), "lint.json") {
		t.Errorf("a repository hook after picket's: %v, want it named", err)
	}
}
