package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["run"] = runRun }

// exitUnavailable is picket run's status when it refuses to run the
// command (no sandbox, broken policy): nothing ran, as a shell's 126.
const exitUnavailable = 126

// probeEnv names a command run instead of picket's user-namespace probe;
// tests set it to simulate a machine without user namespaces. It can only
// make picket refuse: bubblewrap still has to create the sandbox.
const probeEnv = "PICKET_SANDBOX_PROBE"

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
	if len(args) > 0 && args[0] == sandbox.LandlockExec {
		return sandbox.Inner(args[1:], c.stderr)
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	cwd := fs.String("cwd", "", "working directory of the command")
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
	switch decide.Mode(*mode) {
	case "", decide.ReadOnly, decide.WorkspaceWrite, decide.Full:
	default:
		c.errorf("unknown mode %q (want read-only, workspace-write or full)", *mode)
		return 2
	}
	if *agent == "" && c.shellPrefix {
		*agent = "claude"
	}
	c.recoverQuarantine()
	loaded, err := c.loadPolicy(*cwd, *config)
	if err != nil {
		c.errorf("%v", err)
		var sw *sandboxWrittenError
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
	env := stripEnv(c.env, loaded.Settings.Sandbox.StripEnv)
	if *unsandboxed {
		c.warnf("--unsandboxed: the command runs without the shell sandbox; the policy does not hold for it")
		// Logged before it starts, so a picket killed meanwhile still leaves
		// a trace, and again with its exit status; runPlain passes signals
		// on, so picket outlives it.
		line := audit.Entry{Session: *session, Agent: *agent, Decision: "run", Command: commandLine(cmd), Cwd: dir,
			Reason: "--unsandboxed: the command starts without the shell sandbox"}
		c.audit(loaded, line)
		code := c.runPlain(cmd, dir, env)
		line.Exit, line.Reason = &code, "--unsandboxed: the command ran without the shell sandbox"
		c.audit(loaded, line)
		return code
	}
	code, err := c.runSandboxed(loaded, cmd, env, bindTmp, extraRead, *session, *agent)
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
		c.audit(loaded, audit.Entry{Session: *session, Agent: *agent, Decision: "run", Command: commandLine(cmd), Cwd: dir, Exit: &code})
	}
	return code
}

func (c *cli) runSandboxed(loaded *decide.Loaded, cmd, env []string, bindTmp, extraRead []string, session, agent string) (int, error) {
	bwrap := sandbox.FindBwrap(c.getenv("PATH"))
	if bwrap == "" {
		return 0, &sandbox.UnavailableError{What: "bubblewrap (bwrap) is not installed or not in PATH"}
	}
	if probe := c.getenv(probeEnv); probe != "" && !sandbox.Probe(c.getenv("PATH"), probe).UserNS {
		return 0, &sandbox.UnavailableError{What: "user namespaces are disabled (the probe failed)", Userns: true}
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	state := loaded.Env.StateDir()
	plan, err := sandbox.NewPlan(loaded, sandbox.Options{
		Exe: exe, EmptyFile: filepath.Join(state, "sandbox", "hidden"),
		BindTmp: bindTmp, ExtraRead: extraRead, Command: cmd, CacheDir: filepath.Join(state, "sandbox"),
	})
	if err != nil {
		return 0, err
	}
	// Once per walk: a reused walk would repeat it on every command, and
	// everything on stderr lands in the agent's tool result.
	if x := plan.Expansion; x.Truncated && !x.Cached {
		c.warnf("pattern expansion stopped after %d entries (depth %d): files beyond are fenced for the file tools only", x.Entries, x.MaxDepth)
	}
	return sandbox.Run(plan, sandbox.Runner{
		Bwrap: bwrap, Env: env, Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, StateDir: state,
		Quarantined: func(q sandbox.Quarantined) {
			e := quarantineEntry(q)
			e.Session, e.Agent, e.Command, e.Cwd = session, agent, commandLine(cmd), plan.Cwd
			c.audit(loaded, e)
		},
	}, cmd)
}

// runPlain runs cmd without a sandbox (--unsandboxed), passing signals on.
func (c *cli) runPlain(cmd []string, dir string, env []string) int {
	p := exec.Command(cmd[0], cmd[1:]...)
	p.Dir, p.Env, p.Stdin, p.Stdout, p.Stderr = dir, env, c.stdin, c.stdout, c.stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := p.Start(); err != nil {
		c.errorf("%v", err)
		return 127
	}
	go func() {
		for s := range sigs {
			p.Process.Signal(s)
		}
	}()
	p.Wait()
	if ws, ok := p.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return p.ProcessState.ExitCode()
}

// stripEnv drops the variables whose names match one of patterns ("AWS_*").
func stripEnv(env, patterns []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// commandLine is the command as one audit field.
func commandLine(cmd []string) string {
	parts := make([]string, len(cmd))
	for i, a := range cmd {
		parts[i] = escape.Field(a)
	}
	return strings.Join(parts, " ")
}

// recoverQuarantine does the policy-file checks that picket runs which
// died first left pending (see sandbox.RecoverQuarantine). It runs before
// any policy is read: one of those files could be the policy.
func (c *cli) recoverQuarantine() {
	sandbox.RecoverQuarantine(c.stateDir(), func(q sandbox.Quarantined) {
		sandbox.ReportQuarantined(c.stderr, q)
		c.audit(nil, quarantineEntry(q))
	})
}

// quarantineEntry is the audit line for a policy file a command created.
func quarantineEntry(q sandbox.Quarantined) audit.Entry {
	reason := "the command created a file only the person may create (a policy file, or a git config, hook or gitfile); moved to " + q.MovedTo
	if q.Err != nil {
		reason = fmt.Sprintf("the command created a file only the person may create, and picket could not move it aside: %v", q.Err)
	}
	return audit.Entry{Decision: "block", Tool: "run", Access: "write", Path: q.Path, Resolved: q.Path,
		Layer: string(decide.LayerMandatory), Rule: decide.RuleMandatory, Reason: reason}
}
