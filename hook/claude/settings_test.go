package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testCommand = "/opt/picket/bin/picket hook --agent claude"

var testOpts = Wiring{Command: testCommand, Deny: []string{"Edit(/.mcp.json)", "Write(/.mcp.json)"}}

// existingSettings is a settings file someone already uses: other settings,
// other hooks on the same events, and permissions of their own.
const existingSettings = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": [
      "Read(./secrets/**)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "lint-bash"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify"
          }
        ]
      }
    ]
  },
  "env": {
    "B": "1",
    "A": "2"
  }
}
`

func TestInstallClaudeEmpty(t *testing.T) {
	got, err := AddWiring(nil, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob|LS|LSP|PowerShell|Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/picket/bin/picket hook --agent claude",
            "timeout": 90
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob|LS|LSP|PowerShell",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/picket/bin/picket hook --agent claude",
            "timeout": 90
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/picket/bin/picket hook --agent claude",
            "timeout": 90
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/picket/bin/picket hook --agent claude",
            "timeout": 90
          }
        ]
      }
    ]
  },
  "permissions": {
    "deny": [
      "Edit(/.mcp.json)",
      "Write(/.mcp.json)"
    ]
  }
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("AddWiring(nil) mismatch (-want +got):\n%s", diff)
	}
}

// settingsShape is what the tests compare: every event's commands with their
// matchers, and the permission lists, in file order.
type settingsShape struct {
	Other map[string]string
	Hooks map[string][]string
	Allow []string
	Deny  []string
}

func shapeOf(t *testing.T, settings []byte) settingsShape {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
		Permissions struct{ Allow, Deny []string }
	}
	if err := json.Unmarshal(settings, &s); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, settings)
	}
	var all map[string]json.RawMessage
	json.Unmarshal(settings, &all)
	shape := settingsShape{Other: map[string]string{}, Hooks: map[string][]string{}, Allow: s.Permissions.Allow, Deny: s.Permissions.Deny}
	for k, v := range all {
		if k != "hooks" && k != "permissions" {
			shape.Other[k] = string(v)
		}
	}
	for event, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				shape.Hooks[event] = append(shape.Hooks[event], g.Matcher+" => "+h.Command)
			}
		}
	}
	return shape
}

func TestInstallClaudeKeepsOtherSettings(t *testing.T) {
	got, err := AddWiring([]byte(existingSettings), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	ours := ToolMatcher + " => " + testCommand
	want := settingsShape{
		Other: map[string]string{"model": `"opus"`, "env": "{\n    \"B\": \"1\",\n    \"A\": \"2\"\n  }"},
		Hooks: map[string][]string{
			"PreToolUse":   {"Bash => lint-bash", PreToolMatcher + " => " + testCommand},
			"PostToolUse":  {ours},
			"Stop":         {" => notify"},
			"SessionStart": {" => " + testCommand},
			"SessionEnd":   {" => " + testCommand},
		},
		Allow: []string{"Bash(go test:*)"},
		Deny:  []string{"Read(./secrets/**)", "Edit(/.mcp.json)", "Write(/.mcp.json)"},
	}
	if diff := cmp.Diff(want, shapeOf(t, got), cmp.AllowUnexported(settingsShape{})); diff != "" {
		t.Errorf("AddWiring(existing) mismatch (-want +got):\n%s", diff)
	}
	// Members keep their order: model, permissions, hooks, env.
	order := []string{`"model"`, `"permissions"`, `"hooks"`, `"env"`, `"B"`, `"A"`}
	last := -1
	for _, k := range order {
		i := bytes.Index(got, []byte(k))
		if i < last {
			t.Errorf("AddWiring moved %s before an earlier member:\n%s", k, got)
		}
		last = i
	}
}

func TestInstallClaudeIdempotent(t *testing.T) {
	for name, in := range map[string]string{"empty": "", "object": "{}", "existing": existingSettings} {
		once, err := AddWiring([]byte(in), testOpts)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := AddWiring(once, testOpts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Errorf("%s: second AddWiring changed the file:\n%s", name, cmp.Diff(string(once), string(twice)))
		}
	}
}

func TestUninstallClaudeRoundTrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"existing", existingSettings, existingSettings},
		{"empty object", "{}", "{}\n"},
		{"empty file", "", "{}\n"},
	}
	for _, tt := range tests {
		installed, err := AddWiring([]byte(tt.in), testOpts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := RemoveWiring(installed, testOpts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("%s: RemoveWiring(AddWiring(x)) mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUninstallClaudeNothingToRemove(t *testing.T) {
	in := []byte("{\"model\":\"opus\"}") // not our formatting: must stay as is
	got, err := RemoveWiring(in, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, in) {
		t.Errorf("RemoveWiring(%q) = %q, want it unchanged", in, got)
	}
}

func TestInstallClaudeReplacesStaleEntry(t *testing.T) {
	// An older install with another matcher, and picket sharing a group
	// with someone else's hook: the stale entry goes, the neighbour stays.
	in := `{"hooks":{"PreToolUse":[
	  {"matcher":"Read|Write","hooks":[{"type":"command","command":"` + testCommand + `","timeout":30}]},
	  {"matcher":"Bash","hooks":[{"type":"command","command":"lint-bash"},{"type":"command","command":"` + testCommand + `"}]}
	]}}`
	got, err := AddWiring([]byte(in), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Bash => lint-bash", PreToolMatcher + " => " + testCommand}
	if diff := cmp.Diff(want, shapeOf(t, got).Hooks["PreToolUse"]); diff != "" {
		t.Errorf("PreToolUse mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(got), `"timeout": 90`) {
		t.Errorf("AddWiring kept a stale timeout:\n%s", got)
	}
	un, err := RemoveWiring(got, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Bash => lint-bash"}, shapeOf(t, un).Hooks["PreToolUse"]); diff != "" {
		t.Errorf("after uninstall, PreToolUse mismatch (-want +got):\n%s", diff)
	}
}

func TestInstallClaudeRejects(t *testing.T) {
	tests := []struct{ name, in, wantErr string }{
		{"truncated", `{"hooks": {`, "invalid settings JSON"},
		{"array", `[]`, "want a JSON object"},
		{"trailing", `{} {}`, "after the top-level object"},
		{"comment", "{ // no comments in settings.json\n}", "invalid settings JSON"},
		{"hooks not object", `{"hooks": []}`, `"hooks"`},
		{"event not array", `{"hooks": {"PreToolUse": {}}}`, `"PreToolUse"`},
		{"deny not array", `{"permissions": {"deny": "Edit(x)"}}`, `"deny"`},
	}
	for _, tt := range tests {
		for op, f := range map[string]func([]byte, Wiring) ([]byte, error){"install": AddWiring, "uninstall": RemoveWiring} {
			_, err := f([]byte(tt.in), testOpts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s %s: err = %v, want one containing %q", op, tt.name, err, tt.wantErr)
			}
		}
	}
	if _, err := AddWiring(nil, Wiring{}); err == nil {
		t.Error("AddWiring with no command: err = nil, want an error")
	}
}

// defaultOwn are picket's own paths with no XDG variables set.
var defaultOwn = OwnPaths{Home: "/home/u", StateDir: "/home/u/.local/state/picket", ConfigDir: "/home/u/.config/fence"}

func TestClaudeDenyRules(t *testing.T) {
	rules := DenyRules(defaultOwn)
	for _, want := range []string{
		"Edit(~/.claude/settings*.json)",
		"Edit(/.claude/settings*.json)", "Edit(/.claude/hooks/**)", "Edit(~/.claude/skills/**)",
		"Edit(/.git/hooks/**)", "Edit(/fence.jsonc)", "Edit(/**/fence.jsonc)", "Edit(/**/.claude/skills/**)",
		"Edit(~/.gitconfig)", "Edit(~/.local/state/picket/**)",
	} {
		if !slices.Contains(rules, want) {
			t.Errorf("DenyRules() lacks %q", want)
		}
	}
	user := UserDenyRules(defaultOwn)
	for _, want := range []string{"Edit(~/.claude/settings*.json)", "Edit(**/.claude/settings*.json)", "Edit(**/.git/hooks/**)", "Edit(**/fence.json)", "Edit(**/.claude/agents/**)"} {
		if !slices.Contains(user, want) {
			t.Errorf("UserDenyRules() lacks %q", want)
		}
	}
	// Edit rules cover the Write tool; Claude Code 2.1.332 warns for every
	// Write(...) rule, which never stopped anything.
	for _, r := range append(rules, user...) {
		if strings.HasPrefix(r, "Write(") {
			t.Errorf("deny rules hold %q", r)
		}
	}
	if len(user) != len(rules) {
		t.Errorf("UserDenyRules() has %d rules, DenyRules() %d; want the same paths", len(user), len(rules))
	}
	for _, tool := range []string{"Workflow"} {
		if !slices.Contains(rules, tool) || !slices.Contains(user, tool) {
			t.Errorf("deny rules lack the whole-tool rule %q", tool)
		}
	}
	for _, r := range rules {
		if slices.Contains(claudeDenyTools, r) {
			continue
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(r, "Edit("), "Write("), ")")
		if strings.ContainsAny(inner, "{}, ") || !(strings.HasPrefix(inner, "~/") || strings.HasPrefix(inner, "/")) {
			t.Errorf("rule %q is not anchored at ~/ or the project root, or uses syntax Claude Code lacks", r)
		}
	}
}

func TestClaudeHookCommand(t *testing.T) {
	tests := map[string]string{
		"/usr/local/bin/picket":   "/usr/local/bin/picket hook --agent claude",
		"/home/a b/picket":        "'/home/a b/picket' hook --agent claude",
		"/tmp/it's/picket":        `'/tmp/it'\''s/picket' hook --agent claude`,
		"/x/$(rm -rf ~)/picket":   `'/x/$(rm -rf ~)/picket' hook --agent claude`,
		"/opt/picket-1.0+x/bin/p": "/opt/picket-1.0+x/bin/p hook --agent claude",
	}
	for exe, want := range tests {
		if got := HookCommand(exe); got != want {
			t.Errorf("HookCommand(%q) = %q, want %q", exe, got, want)
		}
	}
}

func TestUpdateClaudeSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	install := func(b []byte) ([]byte, error) { return AddWiring(b, testOpts) }

	changed, err := UpdateSettings(path, install)
	if err != nil || !changed {
		t.Fatalf("first install: changed = %v, err = %v; want true, nil", changed, err)
	}
	first, _ := os.ReadFile(path)
	os.Chmod(path, 0o600)
	changed, err = UpdateSettings(path, install)
	if err != nil || changed {
		t.Fatalf("second install: changed = %v, err = %v; want false, nil", changed, err)
	}
	if second, _ := os.ReadFile(path); !bytes.Equal(first, second) {
		t.Errorf("second install rewrote the file")
	}

	// Mode survives a rewrite; no temporary file is left behind.
	changed, err = UpdateSettings(path, func(b []byte) ([]byte, error) { return RemoveWiring(b, testOpts) })
	if err != nil || !changed {
		t.Fatalf("uninstall: changed = %v, err = %v; want true, nil", changed, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after rewrite = %v, want 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("settings directory holds %d entries, want only settings.json", len(entries))
	}
}

func TestUpdateClaudeSettingsMalformed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	bad := []byte(`{"hooks": {`)
	os.WriteFile(path, bad, 0o644)
	_, err := UpdateSettings(path, func(b []byte) ([]byte, error) { return AddWiring(b, testOpts) })
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "invalid settings JSON") {
		t.Errorf("install over malformed settings: err = %v, want one naming %s and the JSON error", err, path)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
		t.Errorf("malformed settings were rewritten: %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("a temporary file was left behind")
	}
}

func TestInstallClaudeShellPrefix(t *testing.T) {
	opts := testOpts
	opts.ShellPrefix = ShellPrefix("/opt/picket/bin/picket")
	got, err := AddWiring([]byte(existingSettings), opts)
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Env map[string]string }
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"B": "1", "A": "2", ShellPrefixEnv: "/opt/picket/bin/picket --shell-prefix"}
	if diff := cmp.Diff(want, s.Env); diff != "" {
		t.Errorf("env after install mismatch (-want +got):\n%s", diff)
	}
	if again, err := AddWiring(got, opts); err != nil || !bytes.Equal(again, got) {
		t.Errorf("second install: err %v, changed %v", err, !bytes.Equal(again, got))
	}
	un, err := RemoveWiring(got, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(existingSettings, string(un)); diff != "" {
		t.Errorf("uninstall did not restore the settings (-want +got):\n%s", diff)
	}
	// env left empty by uninstall goes; a prefix that is not picket's stays.
	empty, _ := AddWiring(nil, opts)
	if un, _ := RemoveWiring(empty, opts); string(un) != "{}\n" {
		t.Errorf("uninstall left %s, want {}", un)
	}
	theirs := `{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/log-cmd"}}`
	if un, _ := RemoveWiring([]byte(theirs), opts); string(un) != theirs {
		t.Errorf("uninstall touched someone else's prefix: %s", un)
	}
	if _, err := AddWiring([]byte(theirs), opts); err == nil || !strings.Contains(err.Error(), "already set") {
		t.Errorf("install over someone else's prefix: err = %v, want one saying it is already set", err)
	}
}

func TestClaudeShellPrefix(t *testing.T) {
	// Claude Code quotes what precedes the prefix's last " -" as one word
	// and appends the rest as is, so that cut must fall right before our
	// flag, whatever the path holds.
	for _, exe := range []string{"/usr/local/bin/picket", "/home/a b/picket", "/opt/x -y/picket"} {
		p := ShellPrefix(exe)
		i := strings.LastIndex(p, " -")
		if p[:i] != exe || p[i+1:] != "--shell-prefix" {
			t.Errorf("ShellPrefix(%q) = %q: Claude Code would run %q with %q", exe, p, p[:i], p[i+1:])
		}
	}
}

// TestClaudeOwnPathRules: the rules for picket's state dir, fence config
// dir and executable follow where they resolve to (XDG_STATE_HOME,
// XDG_CONFIG_HOME, the install's picket), "~/" under home and "//" (the
// file system root) elsewhere, in project and user settings alike.
func TestClaudeOwnPathRules(t *testing.T) {
	tests := []struct {
		name      string
		own       OwnPaths
		want, not []string
	}{
		{"default", defaultOwn,
			[]string{"Edit(~/.local/state/picket/**)", "Edit(~/.config/fence/**)"}, nil},
		{"xdg elsewhere", OwnPaths{Home: "/home/u", StateDir: "/srv/state/picket", ConfigDir: "/home/u/xdg/fence", Executable: "/usr/local/bin/picket"},
			[]string{"Edit(//srv/state/picket/**)", "Edit(~/xdg/fence/**)", "Edit(//usr/local/bin/picket)"},
			[]string{"Edit(~/.local/state/picket/**)", "Edit(~/.config/fence/**)", "Edit(**//srv/state/picket/**)"}},
		{"executable under home", OwnPaths{Home: "/home/u/", Executable: "/home/u/bin/picket"},
			[]string{"Edit(~/bin/picket)"}, nil},
		{"a neighbour of home is not under it", OwnPaths{Home: "/home/u", StateDir: "/home/u2/picket"},
			[]string{"Edit(//home/u2/picket/**)"}, []string{"Edit(~/2/picket/**)"}},
		{"glob characters escaped", OwnPaths{Home: "/home/u", Executable: "/opt/p[1]/pick*t?"},
			[]string{`Edit(//opt/p\[1]/pick\*t\?)`}, nil},
	}
	for _, tt := range tests {
		for scope, rules := range map[string][]string{"project": DenyRules(tt.own), "user": UserDenyRules(tt.own)} {
			for _, w := range tt.want {
				if !slices.Contains(rules, w) {
					t.Errorf("%s: %s rules lack %q", tt.name, scope, w)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(rules, n) {
					t.Errorf("%s: %s rules hold %q", tt.name, scope, n)
				}
			}
		}
	}
}

// TestReadSettingsNotRegular: a settings path that is a FIFO is refused,
// not waited on for good (install and --print hung), and /dev/zero is
// refused, not read until memory runs out.
func TestReadSettingsNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "settings.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here")
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			_, err := UpdateSettings(p, func(b []byte) ([]byte, error) { return b, nil })
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("UpdateSettings(%s) = %v, want not a regular file", p, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("UpdateSettings(%s) still reads after 20 s", p)
		}
	}
}
