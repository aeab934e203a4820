package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/lint"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["lint"] = runLint }

// runLint prints the policy's lint warnings on stdout, one per line (text
// or JSON). Exit 0, or 1 with --strict when any warning fires; 2 for usage
// or policy errors. Lint never changes a decision.
func runLint(c *cli, args []string) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory for discovery")
	config := fs.String("config", "", "policy file to use instead of discovery")
	asJSON := fs.Bool("json", false, "print one JSON warning per line")
	strict := fs.Bool("strict", false, "exit 1 when any warning fires")
	pos, code, ok := c.parseFlags(fs, args, false)
	if !ok {
		return code
	}
	if !c.noArgs("lint", pos) {
		return 2
	}
	loaded, err := c.loadPolicy(*cwd, *config)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	warnings := lint.Run(loaded)
	for _, w := range warnings {
		if *asJSON {
			b, _ := json.Marshal(w)
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintln(c.stdout, w)
	}
	// What the shell sandbox cannot enforce for this policy: notes, not
	// warnings (they hold for the file tools), so --strict ignores them.
	for _, n := range sandbox.FileToolsOnly(loaded) {
		if *asJSON {
			b, _ := json.Marshal(struct {
				Kind string `json:"kind"`
				sandbox.Note
			}{noteKind(n), n})
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintln(c.stdout, noteLine(n))
	}
	if *strict && len(warnings) > 0 {
		return 1
	}
	return 0
}

// noteKind is "file-tools-only" for a rule the file tools enforce and the
// shell only partly, and "not-enforced" for fence's command and ssh
// sections, which nothing enforces yet.
func noteKind(n sandbox.Note) string {
	if n.Field == "command" || n.Field == "ssh" {
		return "not-enforced"
	}
	return "file-tools-only"
}

// noteLine is one note: "source: note: field pattern: msg [kind]",
// escaped as a whole: the note quotes policy text.
func noteLine(n sandbox.Note) string {
	where := n.Source
	if where == "" {
		where = "policy"
	}
	what := n.Field
	if n.Pattern != "" {
		what += " " + escape.Field(n.Pattern)
	}
	return escape.Text(fmt.Sprintf("%s: note: %s: %s [%s]", escape.Field(where), what, n.Msg, noteKind(n)))
}

// lintResult is picket serve's lint answer: the warnings and, as notes,
// what the shell sandbox cannot enforce, as picket lint prints them.
func lintResult(loaded *decide.Loaded) any {
	type warning struct {
		lint.Warning
		Text string `json:"text"`
	}
	ws := []warning{}
	for _, w := range lint.Run(loaded) {
		ws = append(ws, warning{w, w.String()})
	}
	type note struct {
		Kind string `json:"kind"`
		sandbox.Note
		Text string `json:"text"`
	}
	notes := []note{}
	for _, n := range sandbox.FileToolsOnly(loaded) {
		notes = append(notes, note{noteKind(n), n, noteLine(n)})
	}
	return struct {
		Warnings []warning `json:"warnings"`
		Notes    []note    `json:"notes"`
	}{ws, notes}
}
