package qwen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// qwenEnvVar is the pattern Qwen Code 0.15.10 replaces in every string of
// its settings by an environment variable's value
// (resolveEnvVarsInString), before it runs a hook command.
var qwenEnvVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+)\})`)

// TestHookCommandSurvivesQwenExpansion: Qwen Code would replace "$s",
// "$0" or "${x}" in the command by whatever its environment holds;
// picket's command holds nothing it would replace, and install refuses an
// executable whose path holds a "$".
func TestHookCommandSurvivesQwenExpansion(t *testing.T) {
	for _, cmd := range []string{HookCommand("/opt/picket/bin/picket", ""), HookCommand("/opt/my picket/it's", "/usr/bin/timeout")} {
		if m := qwenEnvVar.FindString(cmd); m != "" {
			t.Errorf("%s: Qwen Code would replace %q", cmd, m)
		}
	}
	for _, p := range []string{"/opt/$HOME/picket", "/opt/${x}/picket", "/opt/a\nb/picket"} {
		if checkPath("exe", p) == nil {
			t.Errorf("checkPath(%q) = nil, want a refusal", p)
		}
	}
	if err := checkPath("exe", "/opt/my picket/it's"); err != nil {
		t.Errorf("checkPath of a path with a space and a quote: %v", err)
	}
}

// TestHookCommandFailsClosed runs the hook command as Qwen Code does
// (bash -c) with picket missing, crashing (exit 1, a signal), hanging
// past timeout(1), blocking on its own (exit 2 and its reason) and
// allowing: every failure is exit 2 with a reason on stderr, Qwen Code's
// block; picket's own answers pass as they are.
func TestHookCommandFailsClosed(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	tb := timeoutBin(os.Getenv)
	if tb == "" {
		t.Skip("no timeout(1) with --foreground")
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, exe string
		exit      int
		stderr    string
	}{
		{"missing", filepath.Join(dir, "no-picket"), 2, "picket: error:"},
		{"exit 1", script("one", "echo oops >&2; exit 1"), 2, "picket: error:"},
		{"killed", script("killed", "kill -9 $$"), 2, "picket: error:"},
		{"hangs", script("hangs", "exec sleep 30"), 2, "picket: error:"},
		{"blocks", script("blocks", "echo 'picket: blocked Read /p/.env' >&2; exit 2"), 2, "picket: blocked Read /p/.env\n"},
		{"allows", script("allows", "exit 0"), 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bash, "-c", hookCommand(tt.exe, tb, 1))
			cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse"}`)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.exit || !strings.Contains(stderr.String(), tt.stderr) || tt.stderr == "" && stderr.Len() > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tt.exit, tt.stderr)
			}
			if tt.name == "blocks" && strings.Contains(stderr.String(), "picket: error") {
				t.Errorf("picket's own block got the failure line too: %q", stderr.String())
			}
		})
	}
}

// TestWireRoundTrip: Unwire(Wire(x)) is x byte for byte for every sample,
// Wire is idempotent, replaces a picket hook of another executable rather
// than adding a second, and keeps the person's hooks, comments and
// layout.
func TestWireRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.settings*")
	if len(files) < 4 {
		t.Fatalf("samples: %v", files)
	}
	for _, f := range files {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		wired, err := wire(orig, "/opt/picket/bin/picket")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if again, _ := wire(wired, "/opt/picket/bin/picket"); !bytes.Equal(again, wired) {
			t.Errorf("%s: Wire is not idempotent:\n%s\n---\n%s", f, wired, again)
		}
		moved, err := wire(wired, "/usr/local/bin/picket")
		if err != nil || strings.Count(string(moved), "hook --agent qwen") != 2 || strings.Contains(string(moved), "/opt/picket") {
			t.Errorf("%s: Wire for another executable = %s, %v; want its two hooks only", f, moved, err)
		}
		if len(HookCommands(wired)) != 2 {
			t.Errorf("%s: HookCommands = %q", f, HookCommands(wired))
		}
		for _, keep := range []string{"audit-shell", "notify-send", "/* a block comment */", "// tabs, and a comment after"} {
			if bytes.Contains(orig, []byte(keep)) && !bytes.Contains(wired, []byte(keep)) {
				t.Errorf("%s: Wire lost %q", f, keep)
			}
		}
		for _, w := range [][]byte{wired, moved} {
			back, err := unwire(w, "")
			if err != nil || !bytes.Equal(back, orig) {
				t.Errorf("%s: Unwire = %q, %v; want the file back", f, back, err)
			}
		}
		if same, err := unwire(orig, ""); err != nil || !bytes.Equal(same, orig) {
			t.Errorf("%s: Unwire of a file without picket = %q, %v", f, same, err)
		}
	}
	// The person's own hook named picket, running something else, stays.
	own := []byte(`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "name": "picket", "command": "echo hi"}]}]}}`)
	if back, _ := unwire(own, ""); !bytes.Equal(back, own) {
		t.Errorf("Unwire took the person's own hook: %s", back)
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `{"hooks": {}, "hooks": {}}`, `{`} {
		if _, err := wire([]byte(bad), "/opt/picket"); err == nil {
			t.Errorf("Wire(%s) = nil error, want a refusal", bad)
		}
	}
}

// TestParseHookCommand reads back the executable of every command
// HookCommand writes, for picket doctor.
func TestParseHookCommand(t *testing.T) {
	for _, exe := range []string{"/opt/picket/bin/picket", "/opt/my picket/it's", "/a'b'/c"} {
		for _, tb := range []string{"", "/usr/bin/timeout"} {
			if got := ParseHookCommand(HookCommand(exe, tb)); got != exe {
				t.Errorf("ParseHookCommand(HookCommand(%q, %q)) = %q", exe, tb, got)
			}
		}
	}
	if got := ParseHookCommand("echo hi"); got != "" {
		t.Errorf("ParseHookCommand of another command = %q", got)
	}
}

// TestWrapperInsideBus: timeout(1) ends a picket that hangs, TERM then
// KILL, with room to spare before Qwen Code stops waiting for its
// PreToolUse hooks and runs the call; the hook timeout install writes is
// past both.
func TestWrapperInsideBus(t *testing.T) {
	if end := WrapperTimeout + KillAfter; end > BusTimeout-10*time.Second || end >= HookTimeout {
		t.Errorf("timeout(1) ends picket after %s, want well inside Qwen Code's %s and the hook timeout %s", end, BusTimeout, HookTimeout)
	}
	if cmd := HookCommand("/p", "/usr/bin/timeout"); !strings.Contains(cmd, " --foreground -k 5 40 '/p' hook") && !strings.Contains(cmd, " --foreground -k 5 40 /p hook") {
		t.Errorf("hook command %s", cmd)
	}
}
