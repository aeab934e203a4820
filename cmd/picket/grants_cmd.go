package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/grants"
)

func init() { commands["grants"] = runGrants }

// runGrants lists session grants, or revokes one:
//
//	picket grants [--session ID] [--json]
//	picket grants revoke ACCESS PATH [--session ID]
func runGrants(c *cli, args []string) int {
	if len(args) > 0 && args[0] == "revoke" {
		return revokeGrant(c, args[1:])
	}
	fs := flag.NewFlagSet("grants", flag.ContinueOnError)
	session := fs.String("session", "", "only this session's grants (its id, or 8 or more characters of its start)")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	pos, code, ok := c.parseFlags(fs, args, false)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		// "picket grants revok read /x" once listed every grant.
		c.errorf("grants takes no arguments but revoke, got %q", pos)
		c.hintf("picket grants revoke ACCESS PATH [--session ID]")
		return 2
	}
	store := c.grantStore()
	all, err := store.ListAll()
	if err != nil {
		c.warnf("%v", err)
	}
	if *session != "" {
		all = slices.DeleteFunc(all, func(g grants.SessionGrant) bool { return !audit.SessionMatches(g.Session, *session) })
		if len(all) == 0 {
			c.hintf("no grants in a session %s (a session is named by its id, or the first %d or more characters of it, as picket log shows them)", escape.Field(*session), audit.MinSessionPrefix)
		}
	}
	for _, g := range all {
		if *asJSON {
			b, _ := json.Marshal(map[string]any{"session": g.Session, "access": g.Access, "path": g.Path, "at": g.At.UTC().Format(audit.TimeFormat)})
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintf(c.stdout, "%s  %-5s %s  %s\n", g.At.UTC().Format(audit.TimeFormat), g.Access, escape.Field(g.Path), escape.Field(g.Session))
	}
	return 0
}

func revokeGrant(c *cli, args []string) int {
	fs := flag.NewFlagSet("grants revoke", flag.ContinueOnError)
	session := fs.String("session", "", "the session holding the grant: its id or 8 or more characters of its start (default: every session)")
	pos, code, ok := c.parseFlags(fs, args, true)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		c.errorf("grants revoke needs ACCESS and PATH")
		return 2
	}
	env, _ := c.policyEnv("", "")
	access, path, err := grants.Target(pos[0], pos[1], env.Cwd, env.Home)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	store := c.grantStore()
	var sessions []string
	all, _ := store.ListAll()
	for _, g := range all {
		if (*session == "" || audit.SessionMatches(g.Session, *session)) && !contains(sessions, g.Session) {
			sessions = append(sessions, g.Session)
		}
	}
	n := 0
	for _, s := range sessions {
		ok, err := store.Revoke(s, access, path)
		if err != nil {
			c.errorf("%v", err)
			return 1
		}
		if ok {
			n++
		}
	}
	if n == 0 {
		c.errorf("no grant of %s %s", access, escape.Field(path))
		return 1
	}
	fmt.Fprintf(c.stdout, "revoked %s %s in %d session(s)\n", access, escape.Field(path), n)
	return 0
}
