package codex

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookCommandFailsClosed runs the hook command install writes the way
// Codex runs it ($SHELL -lc COMMAND), with a stand-in for picket that
// fails in each way Codex would read as "go ahead": every one must come
// out as exit 2 with a reason on stderr, the only failure Codex blocks
// on. picket's own block (exit 2, its reason) passes through unchanged,
// and its allow (exit 0, nothing) too.
func TestHookCommandFailsClosed(t *testing.T) {
	timeout := timeoutBin(os.Getenv)
	if timeout == "" {
		t.Fatal("no timeout(1) with --foreground on PATH")
	}
	dir := t.TempDir()
	stand := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var shells []string
	for _, sh := range []string{"bash", "dash", "zsh", "fish"} {
		if p, err := exec.LookPath(sh); err == nil {
			shells = append(shells, p)
		}
	}
	for _, tt := range []struct {
		name, exe string
		seconds   int
		exit      int
		stderr    string // a part of it
	}{
		{"allow", stand("allow", "exit 0"), 5, 0, ""},
		{"block", stand("block", "echo 'picket: blocked Bash cat .env' >&2; exit 2"), 5, 2, "picket: blocked Bash cat .env"},
		{"exit 1", stand("exit1", "echo oops >&2; exit 1"), 5, 2, "picket: error: the picket hook failed (exit 1)"},
		{"silent exit 2", stand("quiet2", "exit 2"), 5, 2, ""},
		{"exit 3", stand("exit3", "exit 3"), 5, 2, "failed (exit 3)"},
		{"killed", stand("killed", "kill -9 $$"), 5, 2, "failed (exit 137)"},
		{"missing", filepath.Join(dir, "no-such-picket"), 5, 2, "failed (exit 127)"},
		{"hangs", stand("hangs", "exec sleep 60"), 1, 2, "failed (exit 124)"},
		{"hangs, TERM ignored", stand("stubborn", "trap '' TERM; exec sleep 60"), 1, 2, "failed (exit 137)"},
	} {
		for _, sh := range shells {
			t.Run(tt.name+"/"+filepath.Base(sh), func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(sh, "-lc", hookCommand(tt.exe, timeout, tt.seconds))
				cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse"}`)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				start := time.Now()
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != tt.exit || !strings.Contains(stderr.String(), tt.stderr) {
					t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tt.exit, tt.stderr)
				}
				if code == 2 && tt.name != "silent exit 2" && strings.TrimSpace(stderr.String()) == "" {
					t.Errorf("exit 2 with nothing on stderr: Codex runs the call")
				}
				if tt.name == "block" && strings.Contains(stderr.String(), "picket: error") {
					t.Errorf("picket's own block got the wrapper's error added: %q", stderr.String())
				}
				if took := time.Since(start); took > 30*time.Second {
					t.Errorf("took %v", took)
				}
			})
		}
	}
}

// TestHookCommandParses: uninstall and doctor know picket's command, for
// any executable, with or without timeout(1), and nothing else.
func TestHookCommandParses(t *testing.T) {
	for _, tt := range []struct{ exe, timeout string }{
		{"/opt/picket/bin/picket", ""},
		{"/home/me/go/bin/picket", "/usr/bin/timeout"},
		{"/p with spaces/picket", "/usr/bin/timeout"},
	} {
		exe, to, ok := ParseHookCommand(HookCommand(tt.exe, tt.timeout))
		if !ok || exe != tt.exe || to != tt.timeout {
			t.Errorf("ParseHookCommand(HookCommand(%q, %q)) = %q, %q, %v", tt.exe, tt.timeout, exe, to, ok)
		}
	}
	// Another picket's timeouts (an older or newer release) are picket's
	// command all the same: uninstall takes it out, doctor checks it.
	other := strings.Replace(HookCommand("/opt/picket", "/usr/bin/timeout"), " -k 10 120 ", " -k 5 60 ", 1)
	if exe, _, ok := ParseHookCommand(other); !ok || exe != "/opt/picket" {
		t.Errorf("ParseHookCommand(%q) = %q, %v: not picket's", other, exe, ok)
	}
	for _, cmd := range []string{
		"/opt/picket/bin/picket hook --agent codex",
		HookCommand("/opt/picket", "") + "; rm -rf ~",
		strings.Replace(HookCommand("/opt/picket", ""), "exit 2", "exit 0", 1),
	} {
		if _, _, ok := ParseHookCommand(cmd); ok {
			t.Errorf("ParseHookCommand(%q) took it as picket's", cmd)
		}
	}
	if err := checkPath("exe", "/a'b/picket"); err == nil {
		t.Errorf("a path with a quote is not refused")
	}
}

// TestAddHook: picket's group goes last (the person's groups keep their
// positions, which Codex's trust keys name), a second install changes
// nothing, an install from another picket replaces the group where it
// stands, and every byte of the person's own stays.
func TestAddHook(t *testing.T) {
	person, err := os.ReadFile("testdata/hooks-person.settings.json")
	if err != nil {
		t.Fatal(err)
	}
	a := HookCommand("/opt/a/picket", "")
	b := HookCommand("/opt/b/picket", "/usr/bin/timeout")
	one, err := AddHook(person, a)
	if err != nil {
		t.Fatal(err)
	}
	if cmds, idx := HookCommands(one); len(cmds) != 1 || cmds[0] != a || idx[0] != 1 {
		t.Errorf("after install: picket's groups %q at %v, want one, at 1", cmds, idx)
	}
	if !bytes.Contains(one, []byte(`"command": "/usr/local/bin/audit-shell"`)) || !bytes.Contains(one, []byte(`"notify-send done"`)) {
		t.Errorf("install lost the person's hooks:\n%s", one)
	}
	if again, _ := AddHook(one, a); !bytes.Equal(again, one) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	two, err := AddHook(one, b)
	if err != nil {
		t.Fatal(err)
	}
	if cmds, idx := HookCommands(two); len(cmds) != 1 || cmds[0] != b || idx[0] != 1 {
		t.Errorf("after another picket's install: %q at %v, want its command alone, at 1", cmds, idx)
	}
	if back, _ := RemoveHook(two, ""); !bytes.Equal(back, person) {
		t.Errorf("uninstall did not give the file back:\n%s", back)
	}
	if _, err := AddHook([]byte(`{"hooks": {"PreToolUse": {}}}`), a); err == nil {
		t.Errorf("a PreToolUse that is not a list was edited")
	}
	if _, err := AddHook([]byte("{// comment\n}"), a); err == nil {
		t.Errorf("a hooks.json Codex cannot read (comments) was edited")
	}
}
