package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/schema"
)

var update = flag.Bool("update", false, "rewrite golden files")

// initEnv is a machine with its home and XDG dirs under a temp dir, and a
// git-less project dir.
func initEnv(t *testing.T) (env []string, home, proj string) {
	t.Helper()
	dir := t.TempDir()
	home, proj = filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
	return env, home, proj
}

func runCLI(env []string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, env, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestInitGolden(t *testing.T) {
	env, _, proj := initEnv(t)
	if _, stderr, code := runCLI(env, "init", "--cwd", proj); code != 0 {
		t.Fatalf("init = %d, want 0\n%s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(proj, "fence.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", t.Name(), "fence.jsonc.golden")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("init wrote:\n%s\nwant (%s):\n%s", got, golden, want)
	}
}

// Each template gives a file that validates, loads, extends it and keeps
// its mode: the starter restates the base, it never loosens it.
func TestInitTemplates(t *testing.T) {
	for _, name := range append(decide.Templates(), "@base") {
		t.Run(name, func(t *testing.T) {
			env, home, proj := initEnv(t)
			_, stderr, code := runCLI(env, "init", "--cwd", proj, "--template", name)
			if code != 0 {
				t.Fatalf("init --template %s = %d, want 0\n%s", name, code, stderr)
			}
			file := filepath.Join(proj, "fence.jsonc")
			if !strings.Contains(stderr, "picket: wrote "+file+" ") || !strings.Contains(stderr, "picket: hint: run 'picket show'") {
				t.Errorf("stderr = %q, want what was written and a hint", stderr)
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if probs := schema.Validate(file, src); len(probs) > 0 {
				t.Fatalf("Validate = %v", probs)
			}
			if !bytes.Contains(src, []byte(`"extends": "`+name+`",`)) {
				t.Errorf("the file does not extend %q:\n%s", name, src)
			}
			got := load(t, decide.Env{Cwd: proj, Home: home})
			base := "builtin:" + name
			if name == "@base" {
				base = "builtin:" + decide.DefaultTemplate
			}
			want := load(t, decide.Env{Cwd: proj, Home: home, ConfigFile: writeFile(t, proj, "base.jsonc", `{"extends": "`+name+`"}`)})
			if n := len(got.Chain); n < 2 || got.Chain[n-2] != base || got.Chain[n-1] != file {
				t.Errorf("Chain = %q, want it to end with %s, %s", got.Chain, base, file)
			}
			if got.Policy.Mode() != want.Policy.Mode() {
				t.Errorf("Mode() = %s, want the base's %s", got.Policy.Mode(), want.Policy.Mode())
			}
			if g, w := got.Policy.Spec().DefaultDenyRead, want.Policy.Spec().DefaultDenyRead; g != w {
				t.Errorf("DefaultDenyRead = %v, want the base's %v", g, w)
			}
			// Every template keeps .env files from agents, and the starter
			// keeps that.
			for _, f := range []string{".env", "sub/.env.local"} {
				if d := decide.Check(got.Policy, decide.Read, filepath.Join(proj, f), proj, -1); d.Allow {
					t.Errorf("after init --template %s, read %s is allowed, want denied", name, f)
				}
			}
		})
	}
}

// TestInitEnvRules guards against the starter's blocklist of ".env" and
// ".env.*" (final: a project could not allow one file, and .env.example
// was blocked too) where the base is the code template, whose own .env
// rules a project can override: the starter leaves them to it, says how
// to allow one file, and does so only where it can. On a base without
// them (a user config that extends nothing) it still lists them.
func TestInitEnvRules(t *testing.T) {
	for _, tc := range []struct {
		name, user string
		codeEnv    bool
	}{
		{"code", "", true},
		{"user config extending code", `{"extends": "code"}`, true},
		{"user config of its own", `{"filesystem": {"denyRead": ["~/.ssh"]}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, home, proj := initEnv(t)
			if tc.user != "" {
				os.MkdirAll(filepath.Join(home, ".config", "fence"), 0o755)
				writeFile(t, filepath.Join(home, ".config", "fence"), "fence.jsonc", tc.user)
			}
			if _, stderr, code := runCLI(env, "init", "--cwd", proj); code != 0 {
				t.Fatalf("init = %d, want 0\n%s", code, stderr)
			}
			src, _ := os.ReadFile(filepath.Join(proj, "fence.jsonc"))
			if got := bytes.Contains(src, []byte(`"blocklist": [".env", ".env.*",`)); got == tc.codeEnv {
				t.Errorf("the starter's blocklist lists .env: %v, want %v:\n%s", got, !tc.codeEnv, src)
			}
			if got := bytes.Contains(src, []byte(`add { "pattern": ".env.test", "permission": "read" }`)); got != tc.codeEnv {
				t.Errorf("the starter says how to allow one .env file: %v, want %v", got, tc.codeEnv)
			}
			for f, allow := range map[string]bool{".env": false, "sub/.env.production": false, ".env.example": tc.codeEnv} {
				if _, _, code := runCLI(env, "check", "--cwd", proj, "read", filepath.Join(proj, f)); (code == 0) != allow {
					t.Errorf("after init, check read %s = %d, want allowed %v", f, code, allow)
				}
			}
		})
	}
}

func TestInitRefusesWithoutForce(t *testing.T) {
	for _, name := range []string{"fence.jsonc", "fence.json"} {
		t.Run(name, func(t *testing.T) {
			env, _, proj := initEnv(t)
			old := writeFile(t, proj, name, `{"filesystem": {"denyRead": ["mine"]}}`)
			_, stderr, code := runCLI(env, "init", "--cwd", proj)
			if code != 1 {
				t.Fatalf("init = %d, want 1\n%s", code, stderr)
			}
			if want := "picket: error: " + old + " already exists\n"; !strings.HasPrefix(stderr, want) {
				t.Errorf("stderr = %q, want it to start %q", stderr, want)
			}
			if !strings.Contains(stderr, "picket: hint: ") || !strings.Contains(stderr, "--force") {
				t.Errorf("stderr = %q, want a hint naming --force", stderr)
			}
			if names := dirNames(t, proj); strings.Join(names, " ") != name {
				t.Errorf("project holds %q, want only %s", names, name)
			}
		})
	}
}

func TestInitForceKeepsBackup(t *testing.T) {
	for _, name := range []string{"fence.jsonc", "fence.json"} {
		t.Run(name, func(t *testing.T) {
			env, home, proj := initEnv(t)
			const oldSrc = `{"filesystem": {"denyRead": ["mine"]}}`
			old := writeFile(t, proj, name, oldSrc)
			_, stderr, code := runCLI(env, "init", "--cwd", proj, "--force")
			if code != 0 {
				t.Fatalf("init --force = %d, want 0\n%s", code, stderr)
			}
			var bak string
			for _, n := range dirNames(t, proj) {
				if strings.HasPrefix(n, name+".bak.") {
					bak = filepath.Join(proj, n)
				}
			}
			if bak == "" {
				t.Fatalf("no backup of %s in %q", name, dirNames(t, proj))
			}
			if b, _ := os.ReadFile(bak); string(b) != oldSrc {
				t.Errorf("backup holds %q, want %q", b, oldSrc)
			}
			if !strings.Contains(stderr, "picket: kept the old policy as "+bak+"\n") {
				t.Errorf("stderr = %q, want it to name the backup", stderr)
			}
			if _, err := os.Lstat(old); name == "fence.json" && err == nil {
				t.Errorf("%s is still there; discovery would find two files", old)
			}
			l := load(t, decide.Env{Cwd: proj, Home: home})
			if got := l.Chain[len(l.Chain)-1]; got != filepath.Join(proj, "fence.jsonc") {
				t.Errorf("Chain ends with %s, want the new fence.jsonc", got)
			}
		})
	}
}

// The file goes to the git top level, not the working directory, and the
// temporary files are gone.
func TestInitGitRoot(t *testing.T) {
	env, _, proj := initEnv(t)
	sub := filepath.Join(proj, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(env, "init", "--cwd", sub); code != 0 {
		t.Fatalf("init = %d, want 0\n%s", code, stderr)
	}
	if got, want := strings.Join(dirNames(t, proj), " "), ".git a fence.jsonc"; got != want {
		t.Errorf("project holds %q, want %q", got, want)
	}
	if fi, err := os.Stat(filepath.Join(proj, "fence.jsonc")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("Stat(fence.jsonc) = %v, %v; want mode 0644", fi, err)
	}
}

func TestInitUsage(t *testing.T) {
	env, _, proj := initEnv(t)
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"--template", "nope"}, `picket: error: no template "nope" (have @base, agent-safe, code, code-strict, read-only)`},
		{[]string{"extra"}, "picket: error: init takes no arguments"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(env, append([]string{"init", "--cwd", proj}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("init %q = %d, %q; want 2 and %q", tt.args, code, stderr, tt.stderr)
		}
	}
	if names := dirNames(t, proj); len(names) > 0 {
		t.Errorf("project holds %q after usage errors, want nothing", names)
	}
}

func load(t *testing.T, env decide.Env) *decide.Loaded {
	t.Helper()
	l, err := decide.Load(env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestInitKeepsThePolicyInForce: without --template the new file extends
// what applied there before (a fence file above the project, else the
// user config), so writing it loosens nothing.
func TestInitKeepsThePolicyInForce(t *testing.T) {
	strict := `{"extends": "code", "filesystem": {"denyRead": ["**/secret.txt"]}, "picket": {"mode": "read-only"}}`
	for _, tc := range []struct {
		name    string
		dir     func(home, proj string) string // where the policy in force is
		extends string
	}{
		{"user config", func(home, proj string) string { return filepath.Join(home, ".config", "fence") }, "@base"},
		{"a fence file above the project", func(home, proj string) string { return filepath.Dir(proj) }, "../fence.jsonc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, home, proj := initEnv(t)
			os.Mkdir(filepath.Join(proj, ".git"), 0o755)
			dir := tc.dir(home, proj)
			os.MkdirAll(dir, 0o755)
			writeFile(t, dir, "fence.jsonc", strict)
			if _, stderr, code := runCLI(env, "init", "--cwd", proj); code != 0 {
				t.Fatalf("init = %d, want 0\n%s", code, stderr)
			}
			src, _ := os.ReadFile(filepath.Join(proj, "fence.jsonc"))
			if !bytes.Contains(src, []byte(`"extends": "`+tc.extends+`",`)) {
				t.Errorf("init wrote a file that does not extend %s:\n%s", tc.extends, src)
			}
			for _, c := range []struct{ access, path string }{{"write", "a.txt"}, {"read", "secret.txt"}} {
				if out, _, code := runCLI(env, "check", "--cwd", proj, c.access, filepath.Join(proj, c.path)); code != 1 {
					t.Errorf("after init, check %s %s = %d %q, want it still denied", c.access, c.path, code, out)
				}
			}
		})
	}
}
