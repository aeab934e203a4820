package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/persist"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["init"] = runInit }

// runInit writes a commented starter fence.jsonc at the project root.
// Exit 0 when written, 1 when a policy file is already there (without
// --force), 2 for usage errors or a starter that does not validate or load.
func runInit(c *cli, args []string) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	tmpl := fs.String("template", "", "what the new file extends: a built-in template or @base (default: the policy in force there now)")
	force := fs.Bool("force", false, "replace an existing policy file, keeping a backup")
	cwd := fs.String("cwd", "", "directory whose project root gets the file")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("init takes no arguments")
		c.hintf("picket init [--template NAME] [--force] [--cwd DIR]")
		return 2
	}
	if *tmpl != "" && *tmpl != "@base" && !slices.Contains(decide.Templates(), *tmpl) {
		c.errorf("no template %q (have @base, %s)", *tmpl, strings.Join(decide.Templates(), ", "))
		return 2
	}
	env, err := c.policyEnv(*cwd, "")
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	return initAt(c, env, *tmpl, *force)
}

func initAt(c *cli, env decide.Env, tmpl string, force bool) int {
	root := decide.GitTop(env.Cwd)
	if root == "" {
		root = env.Cwd
	}
	if tmpl == "" {
		tmpl = persist.InitBase(env, root)
	}
	file := filepath.Join(root, "fence.jsonc")
	old := persist.Existing(root)
	if len(old) > 0 && !force {
		c.errorf("%s already exists", old[0])
		c.hintf("run 'picket lint' to check it, or 'picket init --force' to replace it (the old file is kept as a backup)")
		return 1
	}
	tmp, src, err := persist.Starter(env, root, tmpl)
	if tmp != "" {
		defer os.Remove(tmp)
	}
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	backups, err := persist.Replace(file, tmp, old)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	if err := sandbox.TrustWrite(env.StateDir(), file); err != nil {
		c.warnf("could not record %s as picket's own write: %v", file, err)
	}
	fmt.Fprintf(c.stderr, "picket: wrote %s (%d lines, extends %s)\n", file, bytes.Count(src, []byte("\n")), tmpl)
	for _, b := range backups {
		fmt.Fprintf(c.stderr, "picket: kept the old policy as %s\n", b)
	}
	c.hintf("run 'picket show' to see the resolved policy and 'picket lint' to check it")
	return 0
}
