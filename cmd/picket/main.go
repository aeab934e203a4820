// Command picket is a permission fence for AI coding agents.
//
// Output rules, for every subcommand:
//   - protocol output (hook answers, --json lines, serve responses) goes to
//     stdout and nowhere else;
//   - human messages go to stderr as "picket: error: …", "picket: warning: …"
//     or "picket: hint: …" (a hint says what to do next), escaped;
//   - help that was asked for (picket help, picket CMD --help) goes to
//     stdout with exit 0; a usage error is "picket: error: …" with exit 2.
package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"strings"

	_ "github.com/picketdev/picket/cmd/internal/firststart" // the sandbox's first process, started before the rest is initialised
	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/doctor"
)

func main() {
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}

// parseFlags parses fs's flags in args and returns the positional
// arguments; with interspersed, flags may follow them (see
// [parseInterspersed]). When ok is false the command returns code at once:
// 0 after -h or --help, which print the command's usage on stdout, 2 after
// a flag error, which is printed as "picket: error: …" with a hint.
func (c *cli) parseFlags(fs *flag.FlagSet, args []string, interspersed bool) (pos []string, code int, ok bool) {
	fs.SetOutput(io.Discard) // the flag package's own messages lack the prefix
	var err error
	if interspersed {
		pos, err = parseInterspersed(fs, args)
	} else {
		err, pos = fs.Parse(args), fs.Args()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(c.stdout, commandUsage(fs.Name()))
		return nil, 0, false
	case err != nil:
		c.errorf("%v", err)
		c.hintf("run 'picket %s --help' for its usage", fs.Name())
		return nil, 2, false
	}
	return pos, 0, true
}

// noArgs reports a usage error when a command that takes no arguments got
// some, naming them.
func (c *cli) noArgs(name string, args []string) bool {
	if len(args) == 0 {
		return true
	}
	c.errorf("%s takes no arguments, got %q", name, args)
	c.hintf("run 'picket %s --help' for its usage", name)
	return false
}

// helpFirst reports whether args ask for help before anything else: -h,
// -help or --help among the leading flags. The hook is never asked: it
// answers every call with a decision (a deny when its input is not an
// event), and a command after "--" or after the first argument keeps its
// own -h.
func helpFirst(name string, args []string) bool {
	if name == "hook" || name == "shell-prefix" || name == "--shell-prefix" {
		return false
	}
	for _, a := range args {
		switch {
		case a == "-h" || a == "-help" || a == "--help":
			return true
		case a == "--" || !strings.HasPrefix(a, "-"):
			return false
		}
	}
	return false
}

// commandUsage is the usage of one command: its lines of the usage text
// (log has its own, longer one).
func commandUsage(name string) string {
	switch name {
	case "log":
		return logUsage
	case "serve":
		return serveUsage
	case "doctor":
		return doctor.Usage
	}
	if verb, agent, ok := strings.Cut(name, " "); ok && (verb == "install" || verb == "uninstall") {
		if a := agents.Lookup(agent); a != nil {
			return a.InstallHelp
		}
	}
	if name == "install" || name == "uninstall" {
		return installUsage()
	}
	name, _, _ = strings.Cut(name, " ") // "grants revoke" is a grants line
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, l := range strings.Split(usage, "\n") {
		if strings.HasPrefix(l, "  picket "+name+" ") || l == "  picket "+name {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\nRun 'picket help' for every command.\n")
	return b.String()
}
