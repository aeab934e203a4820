package main

import (
	"os"
	"path/filepath"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
)

// policyEnv builds the resolver's environment from the CLI's, with cwd and
// --config applied. It is the one place picket builds a decide.Env: the
// agents' configuration paths (the mandatory write denies) and project
// directory come from the registry here, for check, hook, serve and run
// alike.
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
	env.ProjectDir = agents.ProjectDir(c.getenv)
	env.Agents = agents.ConfigPaths()
	env.ConfigFile = config
	env.ValidCache = filepath.Join(env.StateDir(), "valid")
	return env, nil
}

// loadPolicy resolves the policy for cwd (or the process's working
// directory) and --config, validating every file of the chain. It refuses
// a chain with a file a sandboxed command may have written.
func (c *cli) loadPolicy(cwd, config string) (*decide.Loaded, error) {
	return c.loadObserved(cwd, config, nil)
}

// loadObserved is loadPolicy telling observe of every path the loaded
// policy depends on (see [decide.Env.Observe]), for a cache.
func (c *cli) loadObserved(cwd, config string, observe func(string)) (*decide.Loaded, error) {
	env, err := c.policyEnv(cwd, config)
	if err != nil {
		return nil, err
	}
	env.Observe = observe
	return hook.LoadPolicy(env)
}

func (c *cli) stateDir() string {
	return decide.Env{Home: c.home(), StateHome: c.getenv("XDG_STATE_HOME")}.StateDir()
}

// home is $HOME, or the user's home when it is unset.
func (c *cli) home() string {
	if h := c.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// grantStore is the session grant store in picket's state dir. A session
// file it does not trust is ignored, with a warning: the call is judged as
// if the session held no grant.
func (c *cli) grantStore() grants.Store {
	return grants.Store{
		Dir:  grants.DefaultDir(c.getenv("HOME"), c.getenv("XDG_STATE_HOME")),
		Warn: func(err error) { c.warnf("ignoring session grants: %v", err) },
	}
}

// auditLog is the audit sink of this process.
func (c *cli) auditLog() hook.AuditLog {
	return hook.AuditLog{Home: c.home(), StateHome: c.getenv("XDG_STATE_HOME"), Warn: c.warnf}
}
