// Package shell runs an agent's shell command under the policy in force,
// as picket run does: in the sandbox built from the policy (package
// sandbox), or, only when the person asked with --unsandboxed, without
// it and audited. It strips the variables the policy names and audits
// what the sandbox moved aside.
//
// # What it does not stop
//
// Whatever the sandbox does not (docs/shell-sandbox.md); a command run
// with --unsandboxed is only logged, and has the host's network.
//
// # Network
//
// With a network section in force, the command's one way out is the
// filtering proxy of package egress/proxy, served by this process on the
// listeners the sandbox hands over; every connection attempt is an audit
// line, and a host no entry names is put to [Runner.Person].
package shell

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress/proxy"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/sandbox"
)

// Runner runs commands for one picket process.
type Runner struct {
	Getenv         func(string) string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Warn           func(format string, args ...any)
	Audit          func(loaded *decide.Loaded, e audit.Entry)
	// Person, when set, gives who to ask about a host no network entry
	// names, for a command of session and agent run in cwd; nil, or a
	// nil Person, refuses such hosts (headless).
	Person func(loaded *decide.Loaded, session, agent, cwd, command string) proxy.Person
}

// Sandboxed runs cmd in the sandbox built from loaded, with env, and
// returns its exit status. bindTmp and extraRead are picket run's
// --bind-tmp and --read; session and agent name the call in audit lines
// (a policy file the command made, moved aside).
func (r Runner) Sandboxed(loaded *decide.Loaded, cmd, env []string, bindTmp, extraRead []string, session, agent string) (int, error) {
	bwrap := sandbox.FindBwrap(r.Getenv("PATH"))
	if bwrap == "" {
		return 0, &sandbox.UnavailableError{What: "bubblewrap (bwrap) is not installed or not in PATH"}
	}
	if probe := r.Getenv(sandbox.ProbeEnv); probe != "" && !sandbox.Probe(r.Getenv("PATH"), probe).UserNS {
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
	opts := sandbox.Options{
		Exe: exe, EmptyFile: filepath.Join(state, "sandbox", "hidden"),
		BindTmp: bindTmp, ExtraRead: extraRead, Command: cmd, CacheDir: filepath.Join(state, "sandbox"),
		NoKeeper: r.Getenv(sandbox.KeeperEnv) == "off",
	}
	plan, err := sandbox.NewPlan(loaded, opts)
	if err != nil {
		return 0, err
	}
	// Once, when trees first go hidden: everything on stderr lands in the
	// agent's tool result.
	if x := plan.Expansion; x.Report {
		r.Warn("the shell sandbox hides %d tree(s) it could not read in time (%s); a later command reads them, and picket show lists those still hidden",
			len(x.Unwalked), strings.Join(x.Unwalked[:min(3, len(x.Unwalked))], ", "))
	}
	sr := sandbox.Runner{
		Bwrap: bwrap, Env: env, Stdin: r.Stdin, Stdout: r.Stdout, Stderr: r.Stderr, StateDir: state,
		Quarantined: func(q sandbox.Quarantined) {
			e := QuarantineEntry(q)
			e.Session, e.Agent, e.Command, e.Cwd = session, agent, CommandLine(cmd), plan.Cwd
			r.Audit(loaded, e)
		},
	}
	// With a network section the command reaches the network through the
	// filtering proxy only, served here; without one it has none.
	nr, err := r.startNetwork(loaded, cmd, session, agent, plan.Cwd)
	if err != nil {
		return 0, err
	}
	if nr != nil {
		defer nr.close()
		sr.Env = nr.pol.ProxyEnv(env)
		sr.Listeners = nr.serve
	}
	return sandbox.RunReplanned(plan, func() (sandbox.Plan, error) { return sandbox.NewPlan(loaded, opts) }, sr, cmd)
}

// Plain runs cmd without a sandbox (--unsandboxed), passing signals on,
// and returns its exit status: 127 when it cannot start, 128 plus the
// signal that ended it.
func (r Runner) Plain(cmd []string, dir string, env []string) int {
	p := exec.Command(cmd[0], cmd[1:]...)
	p.Dir, p.Env, p.Stdin, p.Stdout, p.Stderr = dir, env, r.Stdin, r.Stdout, r.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := p.Start(); err != nil {
		fmt.Fprintf(r.Stderr, "picket: error: %v\n", err)
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

// CommandLine is the command as one audit field.
func CommandLine(cmd []string) string {
	parts := make([]string, len(cmd))
	for i, a := range cmd {
		parts[i] = escape.Field(a)
	}
	return strings.Join(parts, " ")
}

// RecoverQuarantine does the policy-file checks that picket runs which
// died first left pending (see sandbox.RecoverQuarantine), says so on
// stderr and audits each. It runs before any policy is read: one of those
// files could be the policy.
func RecoverQuarantine(stateDir string, stderr io.Writer, audit func(*decide.Loaded, audit.Entry)) {
	sandbox.RecoverQuarantine(stateDir, func(q sandbox.Quarantined) {
		sandbox.ReportQuarantined(stderr, q)
		audit(nil, QuarantineEntry(q))
	})
}

// QuarantineEntry is the audit line for a policy file a command created.
func QuarantineEntry(q sandbox.Quarantined) audit.Entry {
	reason := "the command created a file only the person may create (a policy file, or a git config, hook or gitfile); moved to " + q.MovedTo
	if q.Err != nil {
		reason = fmt.Sprintf("the command created a file only the person may create, and picket could not move it aside: %v", q.Err)
	}
	return audit.Entry{Decision: "block", Tool: "run", Access: "write", Path: q.Path, Resolved: q.Path,
		Layer: string(decide.LayerMandatory), Rule: decide.RuleMandatory, Reason: reason}
}
