package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/sandbox"
)

// policyEnv builds the resolver's environment from the CLI's, with cwd and
// --config applied.
func (c *cli) policyEnv(cwd, config string) (decide.Env, error) {
	if cwd == "" {
		if pwd := c.getenv("PWD"); filepath.IsAbs(pwd) {
			cwd = pwd
		} else {
			wd, err := os.Getwd()
			if err != nil {
				return decide.Env{}, err
			}
			cwd = wd
		}
	}
	if !filepath.IsAbs(cwd) {
		abs, err := filepath.Abs(cwd)
		if err != nil {
			return decide.Env{}, err
		}
		cwd = abs
	}
	env := decide.EnvFromOS(c.getenv, cwd)
	env.ConfigFile = config
	env.ValidCache = filepath.Join(env.StateDir(), "valid")
	return env, nil
}

// loadPolicy resolves the policy for cwd (or the process's working
// directory) and --config, validating every file of the chain. It refuses
// a chain with a file a sandboxed command may have written.
func (c *cli) loadPolicy(cwd, config string) (*decide.Loaded, error) {
	return c.loadPolicyObserved(cwd, config, nil)
}

// loadPolicyObserved is loadPolicy telling observe of every path the
// loaded policy depends on (see [decide.Env.Observe]), for a cache.
func (c *cli) loadPolicyObserved(cwd, config string, observe func(string)) (*decide.Loaded, error) {
	env, err := c.policyEnv(cwd, config)
	if err != nil {
		return nil, err
	}
	env.Observe = observe
	loaded, err := decide.Load(env)
	if err != nil {
		return nil, err
	}
	if f := sandboxWritten(loaded); f != "" {
		return nil, &sandboxWrittenError{file: f}
	}
	return loaded, nil
}

// sandboxWrittenError is a policy chain holding a file a sandboxed command
// may have written.
type sandboxWrittenError struct{ file string }

func (e *sandboxWrittenError) Error() string {
	return fmt.Sprintf("%s changed while a sandboxed command ran, so the command may have written it, and picket takes no policy from it; if you wrote it, run 'touch %s' once no sandboxed command runs", e.file, e.file)
}

// sandboxWritten returns the first file of l's chain that changed while a
// sandboxed command ran (see sandbox.ChangedDuringSandbox), or "". Every
// file is asked, the project's own too: which directory is the project is
// the command's to change (a .git file makes any directory a git top).
// Not asked: the user's fence config (every sandbox mounts its directory
// read-only) and a chain named with --config (the caller chose it). A
// persisted grant or picket init, written while a command runs, is
// recorded as picket's own (sandbox.TrustWrite).
func sandboxWritten(l *decide.Loaded) string {
	if l.Env.ConfigFile != "" {
		return ""
	}
	for _, f := range l.Chain {
		if strings.HasPrefix(f, "builtin:") || sameDir(filepath.Dir(f), l.Env.UserConfigDir()) {
			continue
		}
		if sandbox.ChangedDuringSandbox(l.Env.StateDir(), f) {
			return f
		}
	}
	return ""
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
