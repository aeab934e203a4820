package qwen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

type world struct {
	home, proj, state string
	env               map[string]string
	out               bytes.Buffer
	msgs              []string
}

func newWorld(t *testing.T) *world {
	base := t.TempDir()
	w := &world{home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), state: filepath.Join(base, "state")}
	os.MkdirAll(w.home, 0o755)
	os.MkdirAll(w.proj, 0o755)
	w.env = map[string]string{"HOME": w.home, "PATH": os.Getenv("PATH"), "QWEN_CODE_SYSTEM_SETTINGS_PATH": filepath.Join(base, "etc", "settings.json")}
	return w
}

func (w *world) opts(project bool) hook.InstallOptions {
	say := func(f string, a ...any) { w.msgs = append(w.msgs, f) }
	return hook.InstallOptions{Project: project, User: !project, Exe: "/opt/picket/bin/picket", Home: w.home, StateDir: w.state,
		Getenv: func(k string) string { return w.env[k] }, Dir: w.proj, Stdout: &w.out, Info: say, Warn: say, Hint: say}
}

// TestInstallUninstall: install writes picket's hooks under timeout(1),
// keeps the person's settings, is idempotent; uninstall gives the file
// back byte for byte, and after Qwen Code changed the file ("$version"),
// takes only picket's hooks out.
func TestInstallUninstall(t *testing.T) {
	w := newWorld(t)
	settings := filepath.Join(w.home, ".qwen", "settings.json")
	orig, _ := os.ReadFile("testdata/user.settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, orig, 0o600)
	o := w.opts(false)
	for i := 0; i < 2; i++ {
		if err := install(o); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(settings)
	cmds := HookCommands(got)
	if len(cmds) != 2 || !strings.Contains(cmds[0], "/opt/picket/bin/picket hook --agent qwen") || !strings.Contains(string(got), "audit-shell") || !strings.Contains(string(got), `"timeout": 150000`) {
		t.Fatalf("installed settings:\n%s", got)
	}
	if timeoutBin(os.Getenv) != "" && !strings.Contains(cmds[0], " --foreground -k 5 40 ") {
		t.Errorf("the hook command does not bound picket with timeout(1): %s", cmds[0])
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	if err := uninstall(o); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(settings); !bytes.Equal(back, orig) {
		t.Errorf("uninstall did not give the file back:\n%s", back)
	}
	// Qwen Code adds "$version" to a file at its start.
	os.Remove(settings)
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(settings)
	os.WriteFile(settings, bytes.Replace(b, []byte("{\n"), []byte("{\n  \"$version\": 4,\n"), 1), 0o644)
	if err := uninstall(o); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(settings); string(back) != "{\n  \"$version\": 4\n}\n" {
		t.Errorf("after Qwen Code's own change, uninstall left:\n%s", back)
	}
	// --print writes nothing.
	w.out.Reset()
	os.Remove(settings)
	o.Print = true
	if err := install(o); err != nil || !strings.Contains(w.out.String(), "hook --agent qwen") {
		t.Fatalf("--print: %v\n%s", err, w.out.String())
	}
	if _, err := os.Stat(settings); err == nil {
		t.Errorf("--print wrote %s", settings)
	}
	// An executable Qwen Code's settings would change is refused.
	o.Print, o.Exe = false, "/opt/$HOME/picket"
	if err := install(o); err == nil {
		t.Errorf("install of %s = nil error", o.Exe)
	}
}

// TestProjectInstallHome: Qwen Code reads no project settings in the home
// directory, so a project install there is refused.
func TestProjectInstallHome(t *testing.T) {
	w := newWorld(t)
	o := w.opts(true)
	o.Dir = w.home
	if err := install(o); err == nil {
		t.Errorf("project install in the home directory = nil error")
	}
}

// TestTrust: Qwen Code runs the user's hooks everywhere; a project's only
// where the folder is not marked DO_NOT_TRUST (folder trust on); no hook
// at all with disableAllHooks.
func TestTrust(t *testing.T) {
	w := newWorld(t)
	qh := filepath.Join(w.home, ".qwen")
	os.MkdirAll(qh, 0o755)
	st := TrustOf(w.proj, w.home, func(k string) string { return w.env[k] })
	if st.Trusted || !strings.Contains(st.Fix, "picket install qwen") {
		t.Errorf("nothing installed: %+v", st)
	}
	if err := install(w.opts(true)); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return w.env[k] }
	if st := TrustOf(w.proj, w.home, getenv); !st.Trusted {
		t.Errorf("project install, folder trust off: %+v", st)
	}
	os.WriteFile(filepath.Join(qh, "settings.json"), []byte(`{"security": {"folderTrust": {"enabled": true}}}`), 0o644)
	os.WriteFile(filepath.Join(qh, "trustedFolders.json"), []byte(`{"`+w.proj+`": "DO_NOT_TRUST"}`), 0o644)
	if st := TrustOf(w.proj, w.home, getenv); st.Trusted || !strings.Contains(st.Detail, "DO_NOT_TRUST") || !strings.Contains(st.Fix, "TRUST_FOLDER") {
		t.Errorf("project install, folder DO_NOT_TRUST: %+v", st)
	}
	os.WriteFile(filepath.Join(qh, "trustedFolders.json"), []byte(`{"`+filepath.Dir(w.proj)+`": "TRUST_FOLDER", "`+w.proj+`": "DO_NOT_TRUST"}`), 0o644)
	if st := TrustOf(w.proj, w.home, getenv); !st.Trusted {
		t.Errorf("a TRUST_FOLDER above wins over DO_NOT_TRUST: %+v", st)
	}
	os.WriteFile(filepath.Join(w.proj, ".qwen", "settings.json"), bytes.Replace(mustRead(t, filepath.Join(w.proj, ".qwen", "settings.json")), []byte("{\n"), []byte("{\n  \"disableAllHooks\": true,\n"), 1), 0o644)
	if st := TrustOf(w.proj, w.home, getenv); st.Trusted || !strings.Contains(st.Detail, "disableAllHooks") {
		t.Errorf("disableAllHooks in the project: %+v", st)
	}
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInstallQwenHome: with QWEN_HOME set, install writes there and says
// that the mandatory write denies do not reach it.
func TestInstallQwenHome(t *testing.T) {
	w := newWorld(t)
	qh := filepath.Join(filepath.Dir(w.home), "qwen-home")
	w.env["QWEN_HOME"] = qh
	var warned []string
	o := w.opts(false)
	o.Warn = func(f string, a ...any) { warned = append(warned, f) }
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(qh, "settings.json")); err != nil {
		t.Errorf("install did not write $QWEN_HOME/settings.json: %v", err)
	}
	if !strings.Contains(strings.Join(warned, "\n"), "QWEN_HOME moves") {
		t.Errorf("install said nothing of QWEN_HOME: %q", warned)
	}
}
