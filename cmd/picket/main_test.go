package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/picketdev/picket/escape"
)

// TestMain lets testscript run the real CLI in-process as "picket".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"picket": func() {
			os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs every testdata/script/*.txtar. Each script gets its own
// HOME and XDG dirs under $WORK, and none of the variables that would make
// picket look outside it.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   filepath.Join("testdata", "script"),
		Setup: scriptEnv,
	})
}

// scriptEnv sets HOME, XDG_CONFIG_HOME and XDG_STATE_HOME under $WORK and
// drops CI and CLAUDE_PROJECT_DIR.
func scriptEnv(env *testscript.Env) error {
	drop := map[string]bool{"CI": true, "CLAUDE_PROJECT_DIR": true}
	vars := env.Vars[:0]
	for _, kv := range env.Vars {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			vars = append(vars, kv)
		}
	}
	env.Vars = vars
	home := filepath.Join(env.WorkDir, "home")
	env.Setenv("HOME", home)
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	return os.MkdirAll(home, 0o755)
}

// TestPolicyTextEscaped guards against policy files, paths and their
// parser's messages repainting the terminal: a brace pattern carrying an
// OSC title and a screen clear once reached picket lint's output raw, raw
// control bytes in a JSONC string reached validate, lint, show and check
// through the parser's messages, and validate's "ok:" line printed the
// chain's paths raw. Every line any of them prints must be one that
// escape.Text leaves as it is, --json aside.
func TestPolicyTextEscaped(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj\x1b]0;title\a")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, src string) string {
		p := filepath.Join(proj, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	escaped := write("escaped.jsonc", `{"filesystem": {"allowRead": ["/x/{a,b}\u001b]0;LINT-PWNED\u0007\u001b[2J\u001b[H", "/x/\u2800\u2800->\u2800/y"]}}`)
	rawString := write("raw-string.jsonc", "{\"filesystem\": {\"allowRead\": [\"/x/\x1b[2J\u202e\"]}}")
	rawLiteral := write("raw-literal.jsonc", "{\"filesystem\": {\"allowRead\": x\x1b]0;PWNED\a\x1b[2J}}")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, "state")}

	var runs [][]string
	for _, f := range []string{escaped, rawString, rawLiteral} {
		runs = append(runs,
			[]string{"validate", f},
			[]string{"lint", "--config", f},
			[]string{"show", "--config", f},
			[]string{"check", "--config", f, "read", "/x/a\x1b[2J", "/p/notes\u2800\u2800->\u2800/home/me/.ssh/id_rsa"},
		)
	}
	for _, args := range runs {
		var stdout, stderr bytes.Buffer
		run(args, env, strings.NewReader(""), &stdout, &stderr)
		for _, l := range strings.Split(stdout.String()+stderr.String(), "\n") {
			if escape.Text(l) != l {
				t.Errorf("picket %q printed an unescaped line: %q", args, l)
			}
		}
	}
}

// TestExitCodes guards the CLI's exit statuses: help that was asked for is
// 0 for every command (it was 2 after "picket CMD --help"), a flag error or
// an unknown extra argument is 2 with a "picket: error:" line naming it
// ("picket grants revok read /x" once listed grants and exited 0), and the
// hook answers --help with a deny and 0, as it answers every bad call.
func TestExitCodes(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	tests := []struct {
		args   []string
		code   int
		stdout string // a substring
		stderr string // a substring; "" wants stderr empty, "*" anything
	}{
		{[]string{"help"}, 0, "Usage:", ""},
		{[]string{"-h"}, 0, "Usage:", ""},
		{[]string{"hook", "--help"}, 0, `"permissionDecision":"deny"`, "Usage:\n  picket hook [--agent AGENT]"},
		{[]string{"hook", "--bogus"}, 0, `"permissionDecision":"deny"`, "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"check", "read", "/x", "-1"}, 2, "", "picket: error: flag provided but not defined: -1\n"},
		{[]string{"log", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"show", "--json=maybe"}, 2, "", "picket: error: invalid boolean value"},
		{[]string{"grants", "revok", "read", "/x"}, 2, "", `picket: error: grants takes no arguments but revoke, got ["revok" "read" "/x"]`},
		{[]string{"show", "extra"}, 2, "", `picket: error: show takes no arguments, got ["extra"]`},
		{[]string{"version", "extra"}, 2, "", `picket: error: version takes no arguments, got ["extra"]`},
		{[]string{"lint", "extra"}, 2, "", `picket: error: lint takes no arguments, got ["extra"]`},
		{[]string{"check", "read", "/x", "--help"}, 0, "picket check [", ""},
		{[]string{"grants", "revoke", "--help"}, 0, "picket grants revoke ACCESS", ""},
		{[]string{"init", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"install", "claude", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"install", "pi", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"run", "--bogus", "--", "true"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"prompt", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"serve", "--bogus"}, 2, "", "picket: error: flag provided but not defined: -bogus\n"},
		{[]string{"install", "cursor"}, 2, "", "picket: error: install: unknown agent cursor: picket installs into claude or "},
		{[]string{"install"}, 2, "", "picket: error: install needs exactly one agent: claude or pi"},
		// The agent's own usage, once, on stdout (it also went to stderr).
		{[]string{"install", "claude", "--help"}, 0, "  --exe P    picket executable the hook command runs", ""},
		{[]string{"uninstall", "pi", "--help"}, 0, "picket uninstall pi [--user | --project] [--print] [--exe P]", ""},
		{[]string{"serve", "--help"}, 0, "Answers NDJSON requests on stdin", ""},
	}
	for _, name := range []string{"check", "show", "validate", "lint", "init", "run", "prompt", "console",
		"grants", "log", "install", "uninstall", "serve", "version"} {
		for _, h := range []string{"-h", "--help"} {
			tests = append(tests, struct {
				args           []string
				code           int
				stdout, stderr string
			}{[]string{name, h}, 0, "picket " + name, ""})
		}
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, env, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) ||
			tt.stderr == "" && stderr.Len() > 0 || tt.stderr != "*" && !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("picket %q = %d, stdout %q, stderr %q; want %d, stdout with %q, stderr with %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}
