package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/picketdev/picket/escape"
)

// cli carries what every subcommand may touch, so tests can call the real
// CLI in-process without changing the process environment.
type cli struct {
	env    []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	// shellPrefix marks a run for Claude Code's CLAUDE_CODE_SHELL_PREFIX,
	// where no one can add --unsandboxed.
	shellPrefix bool
	goos        string // the OS the shell sandbox is decided for; "": runtime.GOOS
}

// getenv returns the last value of key in c.env, as os.Getenv would.
func (c *cli) getenv(key string) string {
	v := ""
	for _, kv := range c.env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

func (c *cli) errorf(format string, args ...any) { c.say("error", format, args...) }

func (c *cli) warnf(format string, args ...any) { c.say("warning", format, args...) }

func (c *cli) hintf(format string, args ...any) { c.say("hint", format, args...) }

// say prints a human message on stderr, each of its lines as "picket:
// kind: …" and escaped by [escape.Text]: a message may quote a policy file,
// a path or agent input (the JSONC parser's "invalid literal" quotes the
// file's bytes), and a policy error lists one problem per line.
func (c *cli) say(kind, format string, args ...any) {
	for _, l := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		fmt.Fprintf(c.stderr, "picket: %s: %s\n", kind, escape.Text(l))
	}
}

// commands maps each subcommand to its implementation. Each lives in its own
// file in this directory.
var commands = map[string]func(c *cli, args []string) int{}

func run(args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{env: env, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		c.errorf("unknown command %q", args[0])
		c.hintf("run 'picket help' for the list of commands")
		return 2
	}
	if helpFirst(args[0], args[1:]) {
		fmt.Fprint(stdout, commandUsage(args[0]))
		return 0
	}
	return cmd(c, args[1:])
}

const usage = `picket: a permission fence for AI coding agents

Usage:
  picket check [--cwd DIR] [--config FILE] [--json] ACCESS PATH...
  picket show [--cwd DIR] [--config FILE] [--json]
  picket validate [FILE]
  picket lint [--cwd DIR] [--config FILE] [--json] [--strict]
  picket init [--template NAME] [--force] [--cwd DIR]
  picket hook [--agent AGENT] [--headless] [--deadline DUR]
  picket serve [--agent pi]
  picket run [--cwd DIR] [--config FILE] [--session ID] [--agent NAME] [--mode MODE] [--unsandboxed] -- COMMAND [ARGS...]
  picket --shell-prefix COMMANDLINE   (Claude Code's CLAUDE_CODE_SHELL_PREFIX)
  picket prompt [--request FILE] [--answer FILE] [--tty PATH]
  picket console [--socket PATH]
  picket grants [--session ID] [--json]
  picket grants revoke ACCESS PATH [--session ID]
  picket log [-f] [--json] [--session ID] [--decision D] [--tool T] [--since WHEN] [--file PATH] [N]
  picket install AGENT [--project | --user] [--trust] [--print] [--exe P]
  picket uninstall AGENT [--project | --user] [--print] [--exe P]
  picket doctor
  picket version
  picket help

ACCESS is one of list, read, write; grants revoke also takes connect with a host.
`

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments ("picket grants revoke read /p --session S"), and
// returns the positional ones. After "--" everything is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
