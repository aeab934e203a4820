package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// installWorld is a home, a project and picket's state dir, with the
// options install gets.
type installWorld struct {
	home, proj, state string
	env               map[string]string
	out, msgs         *bytes.Buffer
}

func newInstallWorld(t *testing.T) *installWorld {
	base := t.TempDir()
	w := &installWorld{home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), state: filepath.Join(base, "state"),
		out: &bytes.Buffer{}, msgs: &bytes.Buffer{}}
	os.MkdirAll(w.home, 0o755)
	os.MkdirAll(filepath.Join(w.proj, ".git"), 0o755)
	w.env = map[string]string{"HOME": w.home, "PATH": os.Getenv("PATH"), "PICKET_SANDBOX_PROBE": "true"}
	return w
}

func (w *installWorld) opts(project, print bool) hook.InstallOptions {
	say := func(kind string) func(string, ...any) {
		return func(f string, a ...any) { fmt.Fprintf(w.msgs, "picket: %s%s\n", kind, fmt.Sprintf(f, a...)) }
	}
	return hook.InstallOptions{Project: project, User: !project, Print: print, Exe: "/opt/pi cket/picket", Home: w.home, StateDir: w.state,
		Getenv: func(k string) string { return w.env[k] }, Env: []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")},
		Dir: w.proj, Stdout: w.out, Info: say(""), Warn: say("warning: "), Hint: say("hint: ")}
}

// TestRender: the hooks file runs picket's hook (and, where picket
// itself fails or hangs, exits 2) on every tool call, with a timeout well
// above picket's own deadline and prompt and above the hook command's
// timeout(1), and on the events that keep the ledger and the session's
// state.
func TestRender(t *testing.T) {
	var f struct {
		Version int
		Hooks   map[string][]map[string]any
	}
	if err := json.Unmarshal(Render("/opt/pi cket/picket", "/usr/bin/timeout"), &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || len(f.Hooks) != 4 {
		t.Fatalf("hooks file %+v, want version 1 and four events", f)
	}
	cmd := HookCommand("/opt/pi cket/picket", "/usr/bin/timeout")
	if !strings.HasPrefix(cmd, "/usr/bin/timeout --foreground -k 10 120 '/opt/pi cket/picket' hook --agent copilot || ") {
		t.Errorf("hook command %q does not bound picket with timeout(1)", cmd)
	}
	if WrapperTimeout+10 >= HookTimeout || WrapperTimeout <= 90 {
		t.Errorf("timeout(1) ends picket after %d+10 s, Copilot CLI gives up after %d s: want picket's longest answer (90 s) < the one < the other", WrapperTimeout, HookTimeout)
	}
	for _, ev := range []string{"sessionStart", "preToolUse", "postToolUse", "sessionEnd"} {
		es := f.Hooks[ev]
		if len(es) != 1 || es[0]["type"] != "command" || es[0]["bash"] != cmd || es[0]["timeoutSec"] != float64(HookTimeout) {
			t.Errorf("%s = %v, want the hook command with a %d s timeout", ev, es, HookTimeout)
		}
	}
	if m, ok := f.Hooks["preToolUse"][0]["matcher"]; ok {
		t.Errorf("preToolUse has matcher %v: every tool must reach picket (bash is wrapped)", m)
	}
	if m := f.Hooks["postToolUse"][0]["matcher"]; m != afterMatcher {
		t.Errorf("postToolUse matcher = %v", m)
	}
}

// TestInstall: the person's hooks dir by default ($COPILOT_HOME's when
// set), the repository's with --project; a second install changes
// nothing; --print writes nothing; uninstall leaves the tree as it was,
// putting back a file install replaced.
func TestInstall(t *testing.T) {
	w := newInstallWorld(t)
	o := w.opts(false, false)
	o.User = false // neither flag: the default is the person's
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(w.home, ".copilot", "hooks", HooksFile)
	bin := hook.TimeoutBin(o.Getenv)
	if b, err := os.ReadFile(user); err != nil || !bytes.Equal(b, Render(o.Exe, bin)) {
		t.Fatalf("install wrote %q, %v to %s", b, err, user)
	}
	if !strings.Contains(w.msgs.String(), "in every folder, trusted or not") || !strings.Contains(w.msgs.String(), "--add-dir '/opt/pi cket'") && !strings.Contains(w.msgs.String(), "--add-dir /opt/pi cket") {
		t.Errorf("install said:\n%s\nwant the trust state and the path allowance", w.msgs)
	}
	w.msgs.Reset()
	if err := install(o); err != nil || !strings.Contains(w.msgs.String(), "already up to date") {
		t.Errorf("second install: %v\n%s", err, w.msgs)
	}
	if err := uninstall(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.home, ".copilot")); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s (install made it): %v", filepath.Join(w.home, ".copilot"), err)
	}

	// COPILOT_HOME moves the person's hooks dir.
	w.env["COPILOT_HOME"] = filepath.Join(w.home, "ch")
	if err := install(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.home, "ch", "hooks", HooksFile)); err != nil {
		t.Errorf("with COPILOT_HOME: %v", err)
	}
	delete(w.env, "COPILOT_HOME")

	// The repository's, replacing a file of the person's: kept, put back.
	proj := filepath.Join(w.proj, ".github", "hooks", HooksFile)
	os.MkdirAll(filepath.Dir(proj), 0o755)
	mine := []byte(`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./mine.sh"}]}}` + "\n")
	os.WriteFile(proj, mine, 0o600)
	w.msgs.Reset()
	if err := install(w.opts(true, false)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(proj); !bytes.Equal(b, Render("/opt/pi cket/picket", bin)) {
		t.Errorf("project install wrote %s", b)
	}
	if !strings.Contains(w.msgs.String(), "kept the previous") || !strings.Contains(w.msgs.String(), "not a trusted folder") ||
		!strings.Contains(w.msgs.String(), "Yes, and remember this folder") || !strings.Contains(w.msgs.String(), ".claude/settings.json") {
		t.Errorf("project install said:\n%s\nwant the backup, the trust state and what to do", w.msgs)
	}
	if err := uninstall(w.opts(true, false)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(proj); err != nil || !bytes.Equal(b, mine) {
		t.Errorf("after uninstall %s holds %q, %v; want the person's file back", proj, b, err)
	}

	// --print: the file on stdout, nothing written.
	w.out.Reset()
	os.Remove(proj)
	if err := install(w.opts(true, true)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.out.Bytes(), Render("/opt/pi cket/picket", bin)) {
		t.Errorf("--print wrote %q", w.out)
	}
	if _, err := os.Stat(proj); !os.IsNotExist(err) {
		t.Errorf("--print wrote %s", proj)
	}
}

// TestUninstallLeavesOthers: a picket.json that runs no picket hook is
// not picket's: uninstall leaves it.
func TestUninstallLeavesOthers(t *testing.T) {
	w := newInstallWorld(t)
	f := filepath.Join(w.home, ".copilot", "hooks", HooksFile)
	os.MkdirAll(filepath.Dir(f), 0o755)
	os.WriteFile(f, []byte(`{"version":1,"hooks":{}}`), 0o644)
	if err := uninstall(w.opts(false, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); err != nil {
		t.Errorf("uninstall removed a file picket did not write: %v", err)
	}
}

// TestHookCommand: run by bash as Copilot CLI runs it, the hook command
// passes picket's answer on as it is (an allow, a deny with exit 2), and
// turns a picket that is missing, fails, is killed or hangs past the
// hook command's timeout(1) (cut to 1 s here) into exit 2 with a deny
// object for the model.
func TestHookCommand(t *testing.T) {
	dir := t.TempDir()
	bin := hook.TimeoutBin(os.Getenv)
	if bin == "" && os.Getenv("CI") != "" {
		t.Fatal("no timeout(1) on PATH")
	}
	deny := `{"permissionDecision":"deny","permissionDecisionReason":"picket: blocked view /p/.env"}`
	for _, tt := range []struct {
		name, script string // the stand-in picket ("" for none)
		exit         int
		stdout       string // a substring
	}{
		{"allow", "#!/bin/sh\nexit 0\n", 0, ""},
		{"rewrite", "#!/bin/sh\necho '{\"modifiedArgs\":{}}'\n", 0, `{"modifiedArgs":{}}`},
		{"deny", "#!/bin/sh\necho '" + deny + "'\nexit 2\n", 2, deny},
		{"missing", "", 2, "the picket hook failed"},
		{"fails", "#!/bin/sh\nexit 1\n", 2, "the picket hook failed"},
		{"killed", "#!/bin/sh\nkill -KILL $$\n", 2, "the picket hook failed"},
		{"hangs", "#!/bin/sh\nexec sleep 600\n", 2, "the picket hook failed"},
	} {
		if tt.name == "hangs" && bin == "" {
			continue
		}
		exe := filepath.Join(dir, tt.name, "pick'et")
		if tt.script != "" {
			os.MkdirAll(filepath.Dir(exe), 0o755)
			os.WriteFile(exe, []byte(tt.script), 0o755)
		}
		cmd := exec.Command("bash", "-c", hookCommand(exe, bin, 1))
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tt.exit || !strings.Contains(out.String(), tt.stdout) || tt.stdout == "" && out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q; want exit %d and %q", tt.name, code, out.String(), tt.exit, tt.stdout)
		}
		if tt.exit == 2 {
			var v map[string]string
			if err := json.Unmarshal(out.Bytes(), &v); err != nil || v["permissionDecision"] != "deny" {
				t.Errorf("%s: stdout %q is not one deny object", tt.name, out.String())
			}
		}
	}
}

// TestInstallWithoutSandbox: where picket run has no sandbox (macOS),
// install says Copilot CLI's bash commands are not fenced and gives no
// hint about picket's directory in them, and a bash call is left as the
// model wrote it (the pipeline answers nothing for ErrShellUnsandboxed).
func TestInstallWithoutSandbox(t *testing.T) {
	w := newInstallWorld(t)
	o := w.opts(false, false)
	o.GOOS = "darwin"
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if s := w.msgs.String(); !strings.Contains(s, "warning: Copilot CLI's bash commands are not fenced on darwin") || strings.Contains(s, "--add-dir") {
		t.Errorf("install on darwin said:\n%s", s)
	}
	c := hook.Call{Tool: "bash", Cwd: "/p", Input: map[string]json.RawMessage{"command": json.RawMessage(`"cat .env"`)}}
	if in, err := rewrite(c, hook.ShellRun{Exe: "/opt/picket", GOOS: "darwin"}); !errors.Is(err, hook.ErrShellUnsandboxed) || in != nil {
		t.Errorf("rewrite on darwin = %s, %v; want ErrShellUnsandboxed", in, err)
	}
}
