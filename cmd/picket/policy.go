package main

import (
	"os"
	"path/filepath"

	"github.com/picketdev/picket/decide"
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
// directory) and --config, validating every file of the chain.
func (c *cli) loadPolicy(cwd, config string) (*decide.Loaded, error) {
	env, err := c.policyEnv(cwd, config)
	if err != nil {
		return nil, err
	}
	return decide.Load(env)
}
