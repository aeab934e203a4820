package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/schema"
)

func init() { commands["validate"] = runValidate }

// runValidate checks FILE, or every file of the discovered chain, against
// the schema and the pattern compiler. Each problem is printed as
// file:line:col: message, escaped (a message may quote the file's text);
// exit 1 when there is any.
func runValidate(c *cli, args []string) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory for discovery")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 1 {
		c.errorf("validate takes at most one FILE")
		return 2
	}
	if fs.NArg() == 1 {
		src, _, err := decide.ReadPolicyFile(fs.Arg(0))
		if err != nil {
			c.errorf("%v", err) // it names the file
			return 2
		}
		if probs := schema.Validate(fs.Arg(0), src); len(probs) > 0 {
			for _, p := range probs {
				fmt.Fprintln(c.stdout, escape.Text(fmt.Sprint(p)))
			}
			return 1
		}
	}
	config := ""
	if fs.NArg() == 1 {
		config = fs.Arg(0)
	}
	loaded, err := c.loadPolicy(*cwd, config)
	if err != nil {
		var pe *decide.ProblemsError
		if errors.As(err, &pe) {
			for _, p := range pe.Problems {
				fmt.Fprintln(c.stdout, escape.Text(fmt.Sprint(p)))
			}
			return 1
		}
		fmt.Fprintln(c.stdout, escape.Text(err.Error()))
		return 1
	}
	chain := make([]string, len(loaded.Chain))
	for i, f := range loaded.Chain {
		chain[i] = escape.Field(f)
	}
	fmt.Fprintf(c.stdout, "ok: %s\n", strings.Join(chain, " <- "))
	return 0
}
