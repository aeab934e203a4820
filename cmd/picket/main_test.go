package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the real CLI in-process as "picket".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"picket": func() { os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)) },
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
