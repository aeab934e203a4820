package opencode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/hook"
)

type installWorld struct {
	base, home, proj, state, xdg string
	out                          bytes.Buffer
}

func newInstallWorld(t *testing.T) *installWorld {
	base := t.TempDir()
	w := &installWorld{base: base, home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"),
		state: filepath.Join(base, "state"), xdg: filepath.Join(base, "xdg")}
	for _, d := range []string{w.home, filepath.Join(w.proj, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	if out, err := exec.Command("git", "init", "-q", w.proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return w
}

func (w *installWorld) opts(project bool) hook.InstallOptions {
	env := map[string]string{"HOME": w.home, "XDG_CONFIG_HOME": w.xdg}
	nop := func(string, ...any) {}
	return hook.InstallOptions{Project: project, User: !project, Exe: "/opt/picket's/bin/picket", Home: w.home, StateDir: w.state,
		Getenv: func(k string) string { return env[k] }, Dir: filepath.Join(w.proj, "sub"), Stdout: &w.out, Info: nop, Warn: nop, Hint: nop}
}

// TestInstall: the plugin lands where opencode loads it for each scope
// (the project's git top, $XDG_CONFIG_HOME), with the executable baked in
// as a string; a second install changes nothing; an edited plugin is kept
// as a backup opencode does not load; uninstall removes the plugin and
// the directories install made, and leaves what it did not write.
func TestInstall(t *testing.T) {
	w := newInstallWorld(t)
	for _, project := range []bool{true, false} {
		o := w.opts(project)
		file := filepath.Join(w.xdg, "opencode", "plugins", "picket.js")
		if project {
			file = filepath.Join(w.proj, ".opencode", "plugins", "picket.js")
		}
		if err := install(o); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("project %v: %v", project, err)
		}
		if !bytes.Contains(b, []byte(`const PICKET = "/opt/picket's/bin/picket";`)) || bytes.Contains(b, []byte("__PICKET_EXE__")) {
			t.Errorf("project %v: the plugin does not name the executable", project)
		}
		fi, _ := os.Stat(file)
		if err := install(o); err != nil {
			t.Fatal(err)
		}
		if fi2, _ := os.Stat(file); !fi2.ModTime().Equal(fi.ModTime()) {
			t.Errorf("project %v: a second install rewrote the plugin", project)
		}
		// An edited plugin is kept, under a name opencode does not load.
		os.WriteFile(file, []byte("// edited\n"), 0o644)
		if err := install(o); err != nil {
			t.Fatal(err)
		}
		baks, _ := filepath.Glob(file + ".bak-*")
		if len(baks) != 1 || strings.HasSuffix(baks[0], ".js") || strings.HasSuffix(baks[0], ".ts") {
			t.Fatalf("project %v: backups %v", project, baks)
		}
		if b, _ := os.ReadFile(baks[0]); string(b) != "// edited\n" {
			t.Errorf("project %v: backup holds %q", project, b)
		}
		os.Remove(baks[0])
		other := filepath.Join(filepath.Dir(file), "other.js")
		os.WriteFile(other, []byte("export const X = async () => ({})\n"), 0o644)
		if err := uninstall(o); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("project %v: uninstall left the plugin: %v", project, err)
		}
		if _, err := os.Stat(other); err != nil {
			t.Errorf("project %v: uninstall removed another plugin: %v", project, err)
		}
		os.Remove(other)
		if err := uninstall(o); err != nil {
			t.Errorf("project %v: a second uninstall: %v", project, err)
		}
	}
	// The other plugin kept the plugins directories; they are still
	// recorded, and go at the next uninstall once empty. What is left:
	for _, d := range []string{filepath.Join(w.proj, ".opencode"), filepath.Join(w.xdg, "opencode")} {
		if err := uninstall(w.opts(strings.HasPrefix(d, w.proj))); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the last uninstall: %v", d, err)
		}
	}
}

// TestInstallPrint writes nothing and prints the plugin, or the file
// uninstall would remove.
func TestInstallPrint(t *testing.T) {
	w := newInstallWorld(t)
	o := w.opts(true)
	o.Print = true
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.out.String(), "export const PicketFence") {
		t.Errorf("--print printed %q", w.out.String())
	}
	w.out.Reset()
	if err := uninstall(o); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(w.out.String()); got != filepath.Join(w.proj, ".opencode", "plugins", "picket.js") {
		t.Errorf("uninstall --print = %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.proj, ".opencode")); !os.IsNotExist(err) {
		t.Errorf("--print wrote .opencode: %v", err)
	}
}

// TestRenderRefusesRelative: the plugin runs an absolute picket only.
func TestRenderRefusesRelative(t *testing.T) {
	if _, err := Render("picket"); err == nil {
		t.Error("Render took a relative executable")
	}
	b, err := Render(`/a"b\c`)
	if err != nil || !bytes.Contains(b, []byte(`const PICKET = "/a\"b\\c";`)) {
		t.Errorf("Render quoted the path wrongly: %v", err)
	}
}

// TestTrust reads opencode's log and the plugin's announcements: not
// installed, installed but never run, loaded, a later run that did not
// load it (--pure), a run where it failed to load.
func TestTrust(t *testing.T) {
	w := newInstallWorld(t)
	o := w.opts(true)
	data := filepath.Join(w.home, ".local", "share")
	logf := LogFile(data)
	if st := trust(o); st.Trusted || !strings.Contains(st.Fix, "picket install opencode") {
		t.Errorf("not installed: %+v", st)
	}
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if st := trust(o); st.Trusted || !strings.Contains(st.Detail, "has not run") {
		t.Errorf("installed, never run: %+v", st)
	}
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	run := func(at time.Time, extra string) {
		f, _ := os.OpenFile(logf, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		defer f.Close()
		f.WriteString("timestamp=" + at.Format(time.RFC3339Nano) + " level=INFO service=default message=\"creating instance\" directory=" + w.proj + "\n" + extra)
	}
	os.MkdirAll(filepath.Dir(logf), 0o755)
	run(t0, "")
	if st := trust(o); st.Trusted || !strings.Contains(st.Detail, "never loaded") {
		t.Errorf("ran, never loaded: %+v", st)
	}
	file := filepath.Join(w.proj, ".opencode", "plugins", "picket.js")
	hook.WriteAnnouncement(w.state, hook.Announcement{Agent: Name, Plugin: file, Version: "1", Directory: w.proj, Picket: "dev", Time: t0.Add(time.Second)})
	if st := trust(o); !st.Trusted || !strings.Contains(st.Detail, file) {
		t.Errorf("loaded: %+v", st)
	}
	run(t0.Add(time.Minute), "")
	if st := trust(o); st.Trusted || !strings.Contains(st.Detail, "did not load") || !strings.Contains(st.Fix, "--pure") {
		t.Errorf("a later run that did not load it: %+v", st)
	}
	run(t0.Add(2*time.Minute), "timestamp=x level=ERROR service=plugin message=\"failed to load plugin\" path=file://"+file+" error=\"SyntaxError: x\"\n")
	if st := trust(o); st.Trusted || !strings.Contains(st.Detail, "failed to load") || !strings.Contains(st.Detail, "SyntaxError") {
		t.Errorf("a run where it failed to load: %+v", st)
	}
}

// TestInstallSaysShellUnfenced: where picket run has no sandbox (not
// Linux), the plugin leaves bash as the model wrote it, and install says
// so; on Linux it says nothing of the kind.
func TestInstallSaysShellUnfenced(t *testing.T) {
	for goos, want := range map[string]bool{"darwin": true, "linux": false} {
		w := newInstallWorld(t)
		o := w.opts(true)
		o.GOOS = goos
		var warned []string
		o.Warn = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
		if err := install(o); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(warned, "\n"), "opencode's bash commands are not fenced on darwin")
		if got != want {
			t.Errorf("install on %s warned %q; want the unfenced shell said: %v", goos, warned, want)
		}
	}
	src, _ := Render("/opt/picket")
	if !bytes.Contains(src, []byte(`const SHELL_SANDBOXED = process.platform === "linux";`)) {
		t.Error("the plugin does not follow hook.ShellSandboxed (Linux only)")
	}
}
