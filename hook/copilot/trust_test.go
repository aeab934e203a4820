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
