package main

import (
	"cmp"
	"errors"
	"flag"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress/proxy"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/sandbox"
	"github.com/picketdev/picket/shell"
)

func init() { commands["run"] = runRun }

// exitUnavailable is picket run's status when it refuses to run the
// command (no sandbox, broken policy): nothing ran, as a shell's 126.
const exitUnavailable = 126

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// runRun runs COMMAND in the shell sandbox built from the policy and exits
// with its status; 126 when it cannot sandbox it (nothing ran), 2 for usage
// errors.
//
// --bind-tmp GLOB binds host files directly in GLOB's directory that the
// command line names and GLOB matches, through the private /tmp (Claude
// Code's Bash tool writes its cwd to "/tmp/claude-*-cwd", or to the same
// name in TMPDIR, and reads it from outside);
// --read PATH keeps PATH readable under defaultDenyRead (Claude Code's
// ~/.claude/shell-snapshots). Both are for agent wiring, set by the person.
func runRun(c *cli, args []string) int {
	if code, ok := sandbox.RunHidden(args, c.stderr); ok {
		return code
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	cwd := fs.String("cwd", "", "working directory of the command")
	root := fs.String("root", "", "the session's directory, whose policy fences the command wherever --cwd is")
	config := fs.String("config", "", "policy file to use instead of discovery")
	session := fs.String("session", "", "agent session id, for the audit log")
	agent := fs.String("agent", "", "the agent whose command this is, for the audit log (claude under Claude Code's shell prefix)")
	mode := fs.String("mode", "", "the session's mode, when the agent switched it (read-only, workspace-write or full)")
	unsandboxed := fs.Bool("unsandboxed", false, "run without the sandbox (audited)")
	var bindTmp, extraRead stringList
	fs.Var(&bindTmp, "bind-tmp", "bind host files the command names and GLOB matches (directly in GLOB's directory) through the private /tmp")
	fs.Var(&extraRead, "read", "keep PATH readable under defaultDenyRead")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	cmd := fs.Args()
	if len(cmd) == 0 {
		c.errorf("run needs a COMMAND")
		c.hintf("picket run -- sh -c 'make test'")
		return 2
	}
	if _, err := decide.ParseMode(*mode); err != nil {
		c.errorf("%v", err)
		return 2
	}
	if *agent == "" && c.shellPrefix {
		*agent = "claude"
	}
	recoverQuarantine(c)
	loaded, err := c.loadPolicy(cmp.Or(*root, *cwd), *config)
	if err == nil && *root != "" { // the model chose where it runs (opencode's workdir), not its policy
		loaded.Env.Cwd, err = filepath.Abs(cmp.Or(*cwd, *root))
	}
	if err != nil {
		c.errorf("%v", err)
		var sw *hook.SandboxWrittenError
		if errors.As(err, &sw) {
			c.hintf("nothing ran")
		} else {
			c.hintf("fix the policy (picket validate); nothing ran")
		}
		return exitUnavailable
	}
	if *mode != "" {
		// A session's /fence mode holds for its shell as for its file tools.
		loaded.Policy = loaded.Policy.WithMode(decide.Mode(*mode))
	}
	dir := loaded.Env.Cwd
	env, _ := loaded.Settings.Sandbox.Environ(c.env)
	r := shellRunner(c)
	if *unsandboxed {
		c.warnf("--unsandboxed: the command runs without the shell sandbox; the policy does not hold for it")
		// Logged before it starts, so a picket killed meanwhile still leaves
		// a trace, and again with its exit status; runPlain passes signals
		// on, so picket outlives it.
		line := audit.Entry{Session: *session, Agent: *agent, Decision: "run", Command: shell.CommandLine(cmd), Cwd: dir,
			Reason: "--unsandboxed: the command starts without the shell sandbox"}
		c.auditLog().Append(loaded, line)
		code := r.Plain(cmd, dir, env)
		line.Exit, line.Reason = &code, "--unsandboxed: the command ran without the shell sandbox"
		c.auditLog().Append(loaded, line)
		return code
	}
	code, err := r.Sandboxed(loaded, cmd, env, bindTmp, extraRead, *session, *agent)
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		c.errorf("cannot sandbox the command, so it did not run: %v", ue)
		if c.shellPrefix {
			c.hintf("%s", ue.HintOr("run 'picket uninstall claude' to take the shell sandbox out of Claude Code's settings (Bash then runs unfenced)"))
		} else {
			c.hintf("%s", ue.Hint())
		}
		return exitUnavailable
	}
	if err != nil {
		c.errorf("%v; nothing ran", err)
		return exitUnavailable
	}
	if loaded.Settings.Audit.LogCommands {
		c.auditLog().Append(loaded, audit.Entry{Session: *session, Agent: *agent, Decision: "run", Command: shell.CommandLine(cmd), Cwd: dir, Exit: &code})
	}
	return code
}

// shellRunner runs commands for this process, network prompts included.
func shellRunner(c *cli) shell.Runner {
	return shell.Runner{Getenv: c.getenv, Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, Warn: c.warnf, Audit: c.auditLog().Append,
		Person: func(loaded *decide.Loaded, session, agent, cwd, command string) proxy.Person {
			pipe := c.pipeline(&hook.Agent{}, false)
			return pipe.NetworkPerson(loaded, hook.Call{Agent: agent, Session: session, Cwd: cwd, Tool: "network"}, command)
		}}
}

// recoverQuarantine does the checks that picket runs which died first left
// pending (see shell.RecoverQuarantine), before any policy is read.
func recoverQuarantine(c *cli) {
	shell.RecoverQuarantine(c.stateDir(), c.stderr, c.auditLog().Append)
}
