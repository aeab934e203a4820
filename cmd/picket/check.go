package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
)

func init() { commands["check"] = runCheck }

// runCheck decides each PATH for ACCESS. Exit 0 when all are allowed, 1 when
// any is denied, 2 for usage or policy errors.
func runCheck(c *cli, args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory the paths are relative to")
	config := fs.String("config", "", "policy file to use instead of discovery")
	asJSON := fs.Bool("json", false, "print one JSON decision per line")
	pos, code, ok := c.parseFlags(fs, args, true)
	if !ok {
		return code
	}
	if len(pos) < 2 {
		c.errorf("check needs ACCESS and at least one PATH")
		c.hintf("picket check read ~/.ssh/id_rsa")
		return 2
	}
	access, err := decide.ParseAccess(pos[0])
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	loaded, err := c.loadPolicy(*cwd, *config)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	status := 0
	for _, p := range pos[1:] {
		d := decide.Check(loaded.Policy, access, p, loaded.Env.Cwd, -1)
		if !d.Allow {
			status = 1
		}
		if *asJSON {
			b, _ := json.Marshal(d)
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintln(c.stdout, checkLine(d))
	}
	return status
}

// checkLine is one decision as text: "allow <resolved>" or
// "deny <layer> <rule> <pattern> <resolved>", "-" standing for an empty
// field. The pattern and the path are quoted by [escape.Field], so neither
// can pose as two columns; the rule, which may quote policy text, is
// escaped too.
func checkLine(d decide.Decision) string {
	path := d.Resolved
	if path == "" {
		path = d.Path
	}
	if d.Allow {
		return "allow " + escape.Field(path)
	}
	return escape.Text(fmt.Sprintf("deny %s %s %s %s", d.Layer, d.Rule, dash(escape.Field(d.Pattern)), escape.Field(path)))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
