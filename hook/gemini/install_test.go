package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// installWorld is a home and a project, with the options install gets.
type installWorld struct {
	home, proj, state string
	env               map[string]string
	out, msgs         *bytes.Buffer
}

func newInstallWorld(t *testing.T) *installWorld {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &installWorld{home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), state: filepath.Join(base, "state"),
		out: &bytes.Buffer{}, msgs: &bytes.Buffer{}}
	os.MkdirAll(w.home, 0o755)
	os.MkdirAll(w.proj, 0o755)
	w.env = map[string]string{"HOME": w.home, "PATH": os.Getenv("PATH"), "PICKET_SANDBOX_PROBE": "true"}
	return w
}

func (w *installWorld) opts(project, print bool) hook.InstallOptions {
	say := func(kind string) func(string, ...any) {
		return func(f string, a ...any) { fmt.Fprintf(w.msgs, "picket: %s"+f+"\n", append([]any{kind}, a...)...) }
	}
	return hook.InstallOptions{Project: project, User: !project, Print: print, Exe: exe, Home: w.home, StateDir: w.state,
		Getenv: func(k string) string { return w.env[k] }, Dir: w.proj, Stdout: w.out,
		Info: say(""), Warn: say("warning: "), Hint: say("hint: ")}
}

// TestInstallGivesTheFileBack: uninstall gives back a settings file with
// comments byte for byte; once the person changed it after install,
// uninstall takes picket's hooks out and keeps the change.
func TestInstallGivesTheFileBack(t *testing.T) {
	w := newInstallWorld(t)
	path := filepath.Join(w.home, ".gemini", "settings.json")
	orig := []byte("// mine\n{\"ui\": {\"theme\": \"x\"},}\n")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, orig, 0o600)
	if err := install(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	wired, _ := os.ReadFile(path)
	if !bytes.Contains(wired, []byte(`"name": "picket"`)) || !bytes.Contains(wired, []byte(exe+" hook --agent gemini")) {
		t.Fatalf("install wrote no hook:\n%s", wired)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("install changed the file's mode to %v", fi.Mode().Perm())
	}
	if err := install(w.opts(false, false)); err != nil || !strings.Contains(w.msgs.String(), "already up to date") {
		t.Errorf("a second install: %v\n%s", err, w.msgs)
	}
	if err := uninstall(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, orig)
	}
	install(w.opts(false, false))
	wired, _ = os.ReadFile(path)
	edited := bytes.Replace(wired, []byte(`"theme": "x"`), []byte(`"theme": "y"`), 1)
	os.WriteFile(path, edited, 0o600)
	uninstall(w.opts(false, false))
	got, _ := os.ReadFile(path)
	if bytes.Contains(got, []byte("picket")) || !bytes.Contains(got, []byte(`"theme": "y"`)) || !bytes.Contains(got, []byte("// mine")) {
		t.Errorf("uninstall after an edit:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(w.state, "installs"))
	if len(entries) != 0 {
		t.Errorf("uninstall left %d install records", len(entries))
	}
}

// TestInstallScopes: --project writes the settings of the directory
// Gemini CLI starts in, never the home's; --print writes nothing.
func TestInstallScopes(t *testing.T) {
	w := newInstallWorld(t)
	if err := install(w.opts(true, true)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.proj, ".gemini")); err == nil || !bytes.Contains(w.out.Bytes(), []byte(`"BeforeTool"`)) {
		t.Errorf("install --project --print wrote a file or printed no settings:\n%s", w.out)
	}
	if err := install(w.opts(true, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.proj, ".gemini", "settings.json")); err != nil {
		t.Errorf("install --project: %v", err)
	}
	w.env[projectDirEnv] = w.home
	if err := install(w.opts(true, false)); err == nil {
		t.Errorf("install --project in the home: no error")
	}
	delete(w.env, projectDirEnv)
	w.env["GEMINI_CLI_HOME"] = filepath.Join(w.proj, "gh")
	if err := install(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "gh", ".gemini", "settings.json")); err != nil {
		t.Errorf("install --user with GEMINI_CLI_HOME: %v", err)
	}
	if want := `add "` + filepath.Join(w.proj, "gh", ".gemini") + `" to "filesystem": {"denyWrite"`; !strings.Contains(w.msgs.String(), "picket: warning: GEMINI_CLI_HOME is set") || !strings.Contains(w.msgs.String(), want) {
		t.Errorf("install with GEMINI_CLI_HOME did not say its settings are not a mandatory deny:\n%s", w.msgs)
	}
}

// TestInstallSaysTrust: install tells the person when Gemini CLI will not
// run picket in the folder, and exactly what to do; it trusts nothing.
func TestInstallSaysTrust(t *testing.T) {
	w := newInstallWorld(t)
	store := filepath.Join(w.home, ".gemini", "trustedFolders.json")
	if err := install(w.opts(false, true)); err != nil {
		t.Fatal(err)
	}
	msgs := w.msgs.String()
	if !strings.Contains(msgs, "picket: warning: Gemini CLI will not run picket in "+w.proj) || !strings.Contains(msgs, store) || !strings.Contains(msgs, `"TRUST_FOLDER"`) {
		t.Errorf("install --print in an untrusted folder said:\n%s", msgs)
	}
	if _, err := os.Stat(store); err == nil {
		t.Errorf("install wrote %s", store)
	}
	os.MkdirAll(filepath.Dir(store), 0o755)
	os.WriteFile(store, []byte(`{"`+w.proj+`": "TRUST_FOLDER"}`), 0o600)
	w.msgs.Reset()
	install(w.opts(false, true))
	if msgs := w.msgs.String(); strings.Contains(msgs, "will not run") || !strings.Contains(msgs, "runs picket's hooks in "+w.proj) {
		t.Errorf("install --print in a trusted folder said:\n%s", msgs)
	}
}

func TestTrustOf(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "work", "proj")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".gemini"), 0o755)
	os.Symlink(proj, filepath.Join(base, "link"))
	store := filepath.Join(home, ".gemini", "trustedFolders.json")
	userSettings := filepath.Join(home, ".gemini", "settings.json")
	for _, tt := range []struct {
		name, rules, settings, project string
		env                            map[string]string
		dir                            string
		trusted                        bool
		detail                         string
	}{
		{name: "no store", trusted: false, detail: "no entry"},
		{name: "folder", rules: `{"` + proj + `": "TRUST_FOLDER"}`, trusted: true},
		{name: "parent", rules: `{"` + proj + `/x": "TRUST_PARENT"}`, trusted: true},
		{name: "above", rules: `{"` + base + `": "TRUST_FOLDER"}`, trusted: true},
		{name: "longest wins", rules: `{"` + base + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`, trusted: false, detail: "DO_NOT_TRUST"},
		{name: "through a link", rules: `{"` + proj + `": "TRUST_FOLDER"}`, dir: filepath.Join(base, "link"), trusted: true},
		{name: "sibling", rules: `{"` + proj + `x": "TRUST_FOLDER"}`, trusted: false},
		{name: "comments", rules: "// mine\n{\"" + proj + "\": \"TRUST_FOLDER\",}", trusted: true},
		{name: "broken", rules: `{"` + proj + `": `, trusted: false, detail: "does not parse"},
		{name: "bad level", rules: `{"` + proj + `": "YES"}`, trusted: false, detail: "does not know"},
		{name: "env true", env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}, trusted: true},
		{name: "restricted", rules: `{"` + proj + `": "TRUST_FOLDER"}`, env: map[string]string{"GEMINI_RESTRICTED_MODE": "true"}, trusted: false},
		{name: "trust off", settings: `{"security": {"folderTrust": {"enabled": false}}}`, trusted: true, detail: "folderTrust"},
		{name: "trust off in the project only", project: `{"security": {"folderTrust": {"enabled": false}}}`, trusted: false},
		{name: "hooks off", rules: `{"` + proj + `": "TRUST_FOLDER"}`, settings: `{"hooksConfig": {"enabled": false}}`, trusted: false, detail: "hooksConfig.enabled"},
		{name: "hooks off in the project", rules: `{"` + proj + `": "TRUST_FOLDER"}`, project: `{"hooksConfig": {"enabled": false}}`, trusted: false},
		{name: "picket disabled", rules: `{"` + proj + `": "TRUST_FOLDER"}`, settings: `{"hooksConfig": {"disabled": ["picket"]}}`, trusted: false, detail: "hooksConfig.disabled"},
	} {
		os.Remove(store)
		os.Remove(userSettings)
		os.Remove(filepath.Join(proj, ".gemini", "settings.json"))
		if tt.rules != "" {
			os.WriteFile(store, []byte(tt.rules), 0o600)
		}
		if tt.settings != "" {
			os.WriteFile(userSettings, []byte(tt.settings), 0o600)
		}
		if tt.project != "" {
			os.WriteFile(filepath.Join(proj, ".gemini", "settings.json"), []byte(tt.project), 0o600)
		}
		env := map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(base, "none.json")}
		for k, v := range tt.env {
			env[k] = v
		}
		dir := proj
		if tt.dir != "" {
			dir = tt.dir
		}
		st := TrustOf(dir, home, func(k string) string { return env[k] })
		if st.Trusted != tt.trusted || !strings.Contains(st.Detail, tt.detail) || !st.Trusted && st.Fix == "" {
			t.Errorf("%s: %+v, want trusted %v, detail with %q, and a fix when not", tt.name, st, tt.trusted, tt.detail)
		}
	}
}

// TestInstallFromNothing: install where Gemini CLI has no settings yet
// creates them (and ~/.gemini); uninstall --print shows what uninstall
// would leave (nothing) and changes nothing; uninstall takes out the
// file and the directory install made, and a second uninstall is a
// no-op. A directory that held anything else stays.
func TestInstallFromNothing(t *testing.T) {
	w := newInstallWorld(t)
	dir := filepath.Join(w.home, ".gemini")
	path := filepath.Join(dir, "settings.json")
	if err := install(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	wired, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(wired, []byte(`"timeout": 90000`)) {
		t.Fatalf("install from nothing: %v\n%s", err, wired)
	}
	w.out.Reset()
	if err := uninstall(w.opts(false, true)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, wired) || w.out.Len() != 0 || !strings.Contains(w.msgs.String(), "uninstall would remove "+path) {
		t.Errorf("uninstall --print changed the file, printed %q or did not say the file goes:\n%s", w.out, w.msgs)
	}
	if err := uninstall(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("uninstall left %s, which install created", dir)
	}
	if err := uninstall(w.opts(false, false)); err != nil || !strings.Contains(w.msgs.String(), "nothing to remove") {
		t.Errorf("a second uninstall: %v\n%s", err, w.msgs)
	}
	install(w.opts(false, false))
	os.WriteFile(filepath.Join(dir, "trustedFolders.json"), []byte("{}"), 0o600)
	uninstall(w.opts(false, false))
	if _, err := os.Stat(path); err == nil {
		t.Errorf("uninstall left %s", path)
	}
	if _, err := os.Stat(filepath.Join(dir, "trustedFolders.json")); err != nil {
		t.Errorf("uninstall took the person's trust store: %v", err)
	}
}

// TestUninstallPrint: uninstall --print prints the file as uninstall
// would leave it, the person's own file byte for byte, and writes
// nothing.
func TestUninstallPrint(t *testing.T) {
	w := newInstallWorld(t)
	path := filepath.Join(w.proj, ".gemini", "settings.json")
	orig := []byte("{\n  // theirs\n  \"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}]}\n}\n")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, orig, 0o644)
	if err := install(w.opts(true, false)); err != nil {
		t.Fatal(err)
	}
	wired, _ := os.ReadFile(path)
	w.out.Reset()
	if err := uninstall(w.opts(true, true)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.out.Bytes(), orig) {
		t.Errorf("uninstall --print printed\n%s\nwant\n%s", w.out, orig)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, wired) {
		t.Errorf("uninstall --print changed the file:\n%s", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(w.state, "installs")); len(entries) != 1 {
		t.Errorf("uninstall --print removed install's record")
	}
	uninstall(w.opts(true, false))
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, orig)
	}
}

// TestInstallSaysLaterHooks: install names the settings files whose
// BeforeTool hooks Gemini CLI runs after picket's (the workspace's after
// the user's, the system's after both), whose rewrites picket does not
// judge again; picket's own hooks there, and other events, are not named.
func TestInstallSaysLaterHooks(t *testing.T) {
	w := newInstallWorld(t)
	sys := filepath.Join(w.proj, "system.json")
	w.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = sys
	ws := filepath.Join(w.proj, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(ws), 0o755)
	os.WriteFile(ws, []byte(`{"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "log"}]}]}}`), 0o644)
	install(w.opts(false, true))
	if strings.Contains(w.msgs.String(), "run after picket's") {
		t.Errorf("install named hooks of another event:\n%s", w.msgs)
	}
	os.WriteFile(ws, []byte(`{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "rtk-rewrite"}]}]}}`), 0o644)
	os.WriteFile(sys, []byte(`{"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [{"type": "command", "command": "audit"}]}]}}`), 0o644)
	w.msgs.Reset()
	install(w.opts(false, true))
	if !strings.Contains(w.msgs.String(), "picket: warning: "+ws+" and "+sys+" hold BeforeTool hooks that Gemini CLI runs after picket's") {
		t.Errorf("install --user did not name the later hooks:\n%s", w.msgs)
	}
	w.msgs.Reset()
	install(w.opts(true, true))
	if !strings.Contains(w.msgs.String(), "picket: warning: "+sys+" holds BeforeTool hooks") || strings.Contains(w.msgs.String(), ws+" and") {
		t.Errorf("install --project named other than the system's hooks:\n%s", w.msgs)
	}
}
