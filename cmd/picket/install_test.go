package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type installResult struct {
	code           int
	stdout, stderr string
}

func runInstallCLI(env []string, args ...string) installResult {
	var out, errb bytes.Buffer
	code := run(args, env, strings.NewReader(""), &out, &errb)
	return installResult{code, out.String(), errb.String()}
}

func TestInstallClaudeProject(t *testing.T) {
	project := t.TempDir()
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project}
	path := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"model": "opus"}`), 0o644)

	r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket")
	if r.code != 0 {
		t.Fatalf("install: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	first, _ := os.ReadFile(path)
	var s struct {
		Model string
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(first, &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "opus" || len(s.Hooks["PreToolUse"]) != 1 || s.Hooks["PreToolUse"][0].Hooks[0].Command != "/opt/picket/picket hook --agent claude" {
		t.Errorf("install wrote unexpected settings:\n%s", first)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err == nil {
		t.Errorf("install --project touched ~/.claude")
	}

	r = runInstallCLI(env, "install", "claude", "--project", "--exe", "/opt/picket/picket")
	if second, _ := os.ReadFile(path); r.code != 0 || !bytes.Equal(first, second) {
		t.Errorf("second install: exit %d, file changed: %v", r.code, !bytes.Equal(first, second))
	}
	if !strings.Contains(r.stderr, "already up to date") {
		t.Errorf("second install stderr = %q, want it to say the file is up to date", r.stderr)
	}

	r = runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket")
	if got, _ := os.ReadFile(path); r.code != 0 || string(got) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("uninstall: exit %d, settings now:\n%s", r.code, got)
	}
}

// TestUninstallWithNothingInstalled: uninstall where picket never was
// writes nothing, creates no settings file, and says so.
func TestUninstallWithNothingInstalled(t *testing.T) {
	for _, scope := range []string{"--project", "--user"} {
		t.Run(scope, func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project}
			r := runInstallCLI(env, "uninstall", "claude", scope, "--exe", "/opt/picket/picket")
			if r.code != 0 || !strings.Contains(r.stderr, "nothing of picket's") {
				t.Errorf("uninstall: exit %d, stderr %q, want 0 and a note that nothing was there", r.code, r.stderr)
			}
			for _, p := range []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(home, ".claude", "settings.json")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("uninstall created %s", p)
				}
			}
		})
	}
}

// TestUninstallKeepsThePersonsDenyRules: deny rules the person had
// written before install, even ones picket would add too, stay after
// uninstall; only what install added goes. An install by a picket that
// kept no record is taken to have added all of its rules.
func TestUninstallKeepsThePersonsDenyRules(t *testing.T) {
	project := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "CLAUDE_PROJECT_DIR=" + project}
	path := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	mine := `{"permissions": {"deny": ["Edit(~/.bashrc)", "Write(/.git/hooks/**)", "Read(./secret)"]}, "env": {"KEEP": "1"}}`
	os.WriteFile(path, []byte(mine), 0o644)
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: exit %d: %s", r.code, r.stderr)
	}
	if r := runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("uninstall: exit %d: %s", r.code, r.stderr)
	}
	if b, same := sameJSON(path, mine); !same {
		t.Errorf("after install and uninstall:\n%s\nwant the person's own settings:\n%s", b, mine)
	}

	// An older install, with no record: uninstall takes out all of
	// picket's rules, as before, and a reinstall records them so.
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	records, _ := filepath.Glob(filepath.Join(stateDirOf(env), "installs", "claude-*.json"))
	for _, f := range records {
		os.Remove(f)
	}
	runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket")
	runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket")
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "Edit(~/.bashrc)") || !strings.Contains(string(b), "Read(./secret)") {
		t.Errorf("uninstall after a recordless install:\n%s\nwant picket's rules gone, the others kept", b)
	}
}

// TestInstallClaudeDeniesOwnPaths: the deny rules protect picket's state
// dir and the fence config dir where XDG_STATE_HOME and XDG_CONFIG_HOME put
// them, and the picket the hooks run; uninstall takes them out again.
func TestInstallClaudeDeniesOwnPaths(t *testing.T) {
	project, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project,
		"XDG_STATE_HOME=" + filepath.Join(elsewhere, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "cfg")}
	path := filepath.Join(project, ".claude", "settings.json")
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{"Edit(/" + elsewhere + "/state/picket/**)", "Edit(~/cfg/fence/**)", "Edit(//opt/picket/picket)"} {
		if !strings.Contains(string(b), strconv.Quote(want)) {
			t.Errorf("install wrote no %s:\n%s", want, b)
		}
	}
	for _, stale := range []string{"~/.local/state/picket/**", "~/.config/fence/**"} {
		if strings.Contains(string(b), stale) {
			t.Errorf("install wrote a rule for %s, where nothing of picket's is:\n%s", stale, b)
		}
	}
	if r := runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("picket")) {
		t.Errorf("uninstall left picket's rules:\n%s", b)
	}
}

// TestUninstallRemovesWhatInstallCreated: a settings file and .claude/
// directory that install created are gone after uninstall, unless
// something else is in them by then; a file or directory the person had
// before stays.
func TestUninstallRemovesWhatInstallCreated(t *testing.T) {
	tests := []struct {
		name        string
		before      func(dir string) // the .claude dir, before install
		between     func(dir string) // after install, before uninstall
		wantFile    string           // "" for no file
		wantDirGone bool
	}{
		{"nothing before", nil, nil, "", true},
		{"the directory before", func(dir string) { os.MkdirAll(dir, 0o755) }, nil, "", false},
		{"the file before", func(dir string) {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "settings.json"), []byte("{}"), 0o644)
		}, nil, "{}\n", false},
		{"another file since", nil, func(dir string) { os.WriteFile(filepath.Join(dir, "settings.local.json"), []byte("{}"), 0o644) }, "", false},
		{"a setting of the person's since", nil, func(dir string) {
			path := filepath.Join(dir, "settings.json")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(b, []byte("{"), []byte(`{"model": "opus",`), 1), 0o644)
		}, "{\n  \"model\": \"opus\"\n}\n", false},
	}
	for _, scope := range []string{"--project", "--user"} {
		for _, tt := range tests {
			t.Run(scope+"/"+tt.name, func(t *testing.T) {
				project, home := t.TempDir(), t.TempDir()
				env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project}
				dir := filepath.Join(project, ".claude")
				if scope == "--user" {
					dir = filepath.Join(home, ".claude")
				}
				if tt.before != nil {
					tt.before(dir)
				}
				if r := runInstallCLI(env, "install", "claude", scope, "--exe", "/opt/picket/picket"); r.code != 0 {
					t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
				}
				if tt.between != nil {
					tt.between(dir)
				}
				if r := runInstallCLI(env, "uninstall", "claude", scope, "--exe", "/opt/picket/picket"); r.code != 0 {
					t.Fatalf("uninstall: exit %d\n%s", r.code, r.stderr)
				}
				b, err := os.ReadFile(filepath.Join(dir, "settings.json"))
				if got := string(b); (err == nil) != (tt.wantFile != "") || got != tt.wantFile {
					t.Errorf("settings.json after uninstall = %q, %v; want %q (\"\" for none)", got, err, tt.wantFile)
				}
				if _, err := os.Stat(dir); (err != nil) != tt.wantDirGone {
					t.Errorf("after uninstall, Stat(%s) = %v; want it gone: %v", dir, err, tt.wantDirGone)
				}
			})
		}
	}
}

// stateDirOf is picket's state dir for a test environment.
func stateDirOf(env []string) string {
	for _, kv := range env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			return filepath.Join(h, ".local", "state", "picket")
		}
	}
	return ""
}

func TestInstallClaudeUserPrint(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	r := runInstallCLI(env, "install", "claude", "--user", "--print", "--exe", "/opt/picket/picket")
	if r.code != 0 {
		t.Fatalf("install --print: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !json.Valid([]byte(r.stdout)) || !strings.Contains(r.stdout, `"Edit(~/.claude/settings*.json)"`) || !strings.Contains(r.stdout, `"Edit(**/.git/hooks/**)"`) {
		t.Errorf("install --print stdout is not the settings JSON:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err == nil {
		t.Errorf("install --print wrote to ~/.claude")
	}
}

func TestInstallClaudeErrors(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project}
	path := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"hooks": `), 0o644)

	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"install"}, "claude or pi"},
		{[]string{"install", "cursor"}, "unknown agent cursor"},
		{[]string{"install", "claude", "--user", "--project"}, "exclude each other"},
		{[]string{"install", "claude", "--nope"}, "flag provided but not defined"},
		{[]string{"install", "claude", "--exe", "/p"}, "invalid settings JSON"},
		{[]string{"uninstall", "claude", "--exe", "/p"}, "invalid settings JSON"},
		{[]string{"install", "claude", "--print", "--exe", "/p"}, "invalid settings JSON"},
	}
	for _, tt := range tests {
		r := runInstallCLI(env, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.wantErr) {
			t.Errorf("picket %q: exit %d, stderr %q; want exit 2 and %q", tt.args, r.code, r.stderr, tt.wantErr)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != `{"hooks": ` {
		t.Errorf("malformed settings were rewritten: %q", got)
	}
}

// TestUninstallAfterTheBinaryMoved: uninstall takes out the hooks of the
// picket that installed them (kept in the install record), wherever the
// picket running uninstall is; hooks of a picket it has no record of are
// named in a warning, with the command that removes them.
func TestUninstallAfterTheBinaryMoved(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	path := filepath.Join(project, ".claude", "settings.json")
	if r := runInstallCLI(env, "install", "claude", "--exe", "/old/place/picket"); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	r := runInstallCLI(env, "uninstall", "claude")
	b, _ := os.ReadFile(path)
	if r.code != 0 || bytes.Contains(b, []byte("/old/place/picket")) || bytes.Contains(b, []byte("hook --agent claude")) {
		t.Errorf("uninstall: exit %d, settings still hold the old hooks:\n%s\n%s", r.code, b, r.stderr)
	}

	// No record (another state dir): the leftover hooks are named.
	if r := runInstallCLI(env, "install", "claude", "--exe", "/old/place/picket"); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	env2 := append(env[:2:2], "XDG_STATE_HOME="+filepath.Join(home, "other-state"))
	r = runInstallCLI(env2, "uninstall", "claude")
	if !strings.Contains(r.stderr, "/old/place/picket hook --agent claude") || !strings.Contains(r.stderr, "picket uninstall claude --exe /old/place/picket") {
		t.Errorf("uninstall with the hooks of another picket left: stderr %q, want them named with a hint", r.stderr)
	}
}

// TestInstallTakesOutStaleRules: an install over one made by an earlier
// picket takes out the rules that picket recorded and this one no longer
// writes (the Write(...) forms, which Claude Code 2.1.332 warns about),
// keeps the person's own, and uninstall still leaves nothing of picket's.
func TestInstallTakesOutStaleRules(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + project, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	path := filepath.Join(project, ".claude", "settings.json")
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	// What an earlier picket added and recorded: a Write(...) form.
	records, _ := filepath.Glob(filepath.Join(home, "state", "picket", "installs", "claude-*.json"))
	if len(records) != 1 {
		t.Fatalf("install records: %v, want one", records)
	}
	var rec map[string]any
	rb, _ := os.ReadFile(records[0])
	if err := json.Unmarshal(rb, &rec); err != nil {
		t.Fatal(err)
	}
	rec["deny"] = append(rec["deny"].([]any), "Write(/fence.jsonc)")
	rb, _ = json.Marshal(rec)
	if err := os.WriteFile(records[0], rb, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b = bytes.Replace(b, []byte(`"deny": [`), []byte(`"deny": ["Write(/fence.jsonc)", "Read(./mine)", `), 1)
	os.WriteFile(path, b, 0o644)
	if r := runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("second install: exit %d\n%s", r.code, r.stderr)
	}
	b, _ = os.ReadFile(path)
	if bytes.Contains(b, []byte("Write(")) || !bytes.Contains(b, []byte("Read(./mine)")) {
		t.Errorf("second install: want the stale Write rule gone and the person's rule kept:\n%s", b)
	}
	if r := runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("Edit(")) || !bytes.Contains(b, []byte("Read(./mine)")) {
		t.Errorf("uninstall: want picket's rules gone and the person's kept:\n%s", b)
	}
}

// TestUninstallKeepsThePersonsDenyRulesThroughASymlink: install through a
// symlink to the project (CLAUDE_PROJECT_DIR) and uninstall through its
// real path (the git top level, say) use the same record, so the rules
// the person had before install stay.
func TestUninstallKeepsThePersonsDenyRulesThroughASymlink(t *testing.T) {
	project := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	home, state := t.TempDir(), t.TempDir()
	path := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	mine := `{"permissions": {"deny": ["Workflow", "Edit(~/.bashrc)"]}}`
	os.WriteFile(path, []byte(mine), 0o644)
	viaLink := []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "CLAUDE_PROJECT_DIR=" + link}
	viaReal := []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "CLAUDE_PROJECT_DIR=" + project}
	if r := runInstallCLI(viaLink, "install", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: exit %d: %s", r.code, r.stderr)
	}
	if r := runInstallCLI(viaReal, "uninstall", "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("uninstall: exit %d: %s", r.code, r.stderr)
	}
	if b, same := sameJSON(path, mine); !same {
		t.Errorf("after install through a symlink and uninstall through the real path:\n%s\nwant the person's own settings:\n%s", b, mine)
	}
}

// TestUninstallKeepsThePersonsShellPrefix: a CLAUDE_CODE_SHELL_PREFIX the
// person had set to picket's own value before install is not install's to
// take out, across a second install too.
func TestUninstallKeepsThePersonsShellPrefix(t *testing.T) {
	project := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "CLAUDE_PROJECT_DIR=" + project}
	path := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	mine := `{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/opt/picket/picket --shell-prefix", "KEEP": "1"}}`
	os.WriteFile(path, []byte(mine), 0o644)
	for _, cmd := range []string{"install", "install", "uninstall"} {
		if r := runInstallCLI(env, cmd, "claude", "--exe", "/opt/picket/picket"); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
		}
	}
	if b, same := sameJSON(path, mine); !same {
		t.Errorf("after install and uninstall:\n%s\nwant the person's own settings:\n%s", b, mine)
	}

	// Set by install: uninstall takes it out.
	os.WriteFile(path, []byte(`{"env": {"KEEP": "1"}}`), 0o644)
	runInstallCLI(env, "install", "claude", "--exe", "/opt/picket/picket")
	runInstallCLI(env, "uninstall", "claude", "--exe", "/opt/picket/picket")
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "SHELL_PREFIX") {
		t.Errorf("uninstall left the prefix install set:\n%s", b)
	}
}

// sameJSON reports whether the file at path holds the same JSON value as
// want, and returns what it holds.
func sameJSON(path, want string) ([]byte, bool) {
	var got, w any
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(want), &w)
	return b, reflect.DeepEqual(got, w)
}
