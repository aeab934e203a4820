package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
)

func init() {
	commands["install"] = runInstall
	commands["uninstall"] = runUninstall
}

// installUsage is picket install --help: the agents come from the
// registry, each one's own help (picket install AGENT --help) says what
// it writes where.
func installUsage() string {
	var list strings.Builder
	for _, a := range agents.All {
		fmt.Fprintf(&list, "  %-9s %s\n", a.Name, a.Title)
	}
	return `Usage:
  picket install AGENT [--project | --user] [--trust] [--print] [--exe P]
  picket uninstall AGENT [--project | --user] [--print] [--exe P]

Wires picket into an agent, keeping everything else in its settings;
uninstall takes out exactly what install added. AGENT is one of:
` + list.String() + `
  --project  the project's own settings (the root is the git top level of
             the current directory, else the current directory)
  --user     the person's settings, for every project
  --trust    codex: also trust picket's hook, as Codex's /hooks would
  --print    print what would be written to stdout and write nothing
  --exe P    picket executable the wiring runs (default: this one)

Each agent's default scope, files and trust steps: picket install AGENT
--help. Run it yourself: an agent may never write these files (they are
mandatory write denies).
`
}

func runInstall(c *cli, args []string) int   { return install(c, "install", args) }
func runUninstall(c *cli, args []string) int { return install(c, "uninstall", args) }

// install implements picket install and uninstall for every registered
// agent: the flags are the same, the work is the agent's.
func install(c *cli, name string, args []string) int {
	// The agent comes first in the usage text, flags after it.
	var agent []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		agent, args = args[:1], args[1:]
	}
	label := name
	if len(agent) == 1 {
		label = name + " " + agent[0]
	}
	fs := flag.NewFlagSet(label, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	project := fs.Bool("project", false, "")
	user := fs.Bool("user", false, "")
	print := fs.Bool("print", false, "")
	exe := fs.String("exe", "", "")
	trust := fs.Bool("trust", false, "")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	agent = append(agent, fs.Args()...)
	names := strings.Join(agents.Names(), " or ")
	a := (*hook.Agent)(nil)
	switch {
	case len(agent) == 1 && agents.Lookup(agent[0]) == nil:
		c.errorf("%s: unknown agent %s: picket installs into %s", name, escape.Field(agent[0]), names)
		c.hintf("run 'picket %s %s'", name, agents.Names()[0])
		return 2
	case len(agent) != 1:
		c.errorf("%s needs exactly one agent: %s", name, names)
		c.hintf("run 'picket %s %s'", name, agents.Names()[0])
		return 2
	default:
		a = agents.Lookup(agent[0])
	}
	if *project && *user {
		c.errorf("--project and --user exclude each other")
		return 2
	}
	o, err := installOptions(c, *exe)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	o.User, o.Project, o.Print, o.Trust = *user, *project, *print, *trust
	do := a.Install
	if name == "uninstall" {
		do = a.Uninstall
	}
	if err := do(o); err != nil {
		c.errorf("%v", err)
		return 2
	}
	return 0
}

// installOptions are what install, uninstall and doctor hand an agent,
// for the picket executable exe ("" for this one).
func installOptions(c *cli, exe string) (hook.InstallOptions, error) {
	exePath, err := hook.Executable(exe)
	if err != nil {
		return hook.InstallOptions{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return hook.InstallOptions{}, fmt.Errorf("failed to find the current directory: %w", err)
	}
	return hook.InstallOptions{
		Exe: exePath, ExeGiven: exe != "",
		Home: c.getenv("HOME"), StateDir: c.stateDir(),
		ConfigDir: decide.Env{Home: c.home(), ConfigHome: c.getenv("XDG_CONFIG_HOME")}.UserConfigDir(),
		Getenv:    c.getenv, Env: c.env, Dir: wd, Stdout: c.stdout, GOOS: c.goos,
		Info: func(format string, args ...any) { fmt.Fprintf(c.stderr, "picket: %s\n", fmt.Sprintf(format, args...)) },
		Warn: c.warnf, Hint: c.hintf,
	}, nil
}
