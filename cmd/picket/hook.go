package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/picketdev/picket/cmd/internal/hooksig"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/claude"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["hook"] = runHook }

// hookDeadline is how long the hook may take to decide before it denies on
// its own: a hung filesystem must not become the agent's fail-open timeout.
// `install` writes a hook timeout well above it.
const hookDeadline = 10 * time.Second

// hookSignals are the signals the hook outlives: a terminal hanging up, an
// interrupt, a termination. Ignored, they stay ignored in any program the
// hook starts outside a prompt (it starts none today; tmux for a popup runs
// while they are caught, so with the default dispositions).
var hookSignals = hooksig.Signals // ignored from the earliest init on (see hooksig)

// runHook answers one agent hook event, in the agent's own schema, and
// exits 0 or 2 as the agent reads it. A file tool call that cannot be
// judged (bad input, broken policy, deadline, panic) is denied.
func runHook(c *cli, args []string) int {
	// A signal must not end the hook unanswered: an agent reads the exit
	// status of a killed hook (129 after a hangup of the terminal a prompt
	// was on, 143 after a TERM) as "go ahead". They are ignored from the
	// start, so the hook goes on to its answer (its deadline bounds it); a
	// prompt on screen catches them instead, to give the terminal back and
	// deny (see hook.TerminalPrompter). Ignoring costs three syscalls;
	// catching would start a thread on every call.
	signal.Ignore(hookSignals...)
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	name := fs.String("agent", claude.Name, "the agent whose event is on stdin")
	deadline := fs.Duration("deadline", hookDeadline, "deny a file tool call not decided within this time")
	headless := fs.Bool("headless", false, "never prompt: every block is final (also when CI is set)")
	fs.SetOutput(io.Discard) // the flag package's own messages lack the prefix
	if err := fs.Parse(args); err != nil {
		// Said on stderr as every command says it, but a usage error
		// must still not let a file tool through.
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(c.stderr, commandUsage("hook"))
		} else {
			c.errorf("%v", err)
			c.hintf("run 'picket hook --help' for its usage")
		}
		return reply(c, agents.Lookup(*name), hook.Answer{Deny: true, Reason: hook.ErrorMessage("", errors.New("bad hook arguments"))})
	}
	agent := agents.Lookup(*name)
	if host := agents.Host(c.getenv); host != nil && agent != nil && agent.Hook != nil {
		agent = host // its events, through another agent's hook command
	}
	if agent == nil || agent.Hook == nil {
		// Denied in the default agent's schema, as a bad flag is.
		c.errorf("unknown agent %q: picket hook answers %v", *name, agents.HookNames())
		return reply(c, agents.Lookup(claude.Name), hook.Answer{Deny: true, Reason: hook.ErrorMessage("", fmt.Errorf("unknown agent %q", *name))})
	}
	interrupted := make(chan os.Signal, 1)
	extend := make(chan time.Duration, 4)
	pipe := c.pipeline(agent, *headless)
	pipe.Prompter = hook.TerminalPrompter{Getenv: c.getenv, StateDir: c.stateDir(), Signals: hookSignals, Interrupted: interrupted,
		Extend: func(d time.Duration) {
			select {
			case extend <- d:
			default:
			}
		}}
	done := make(chan hook.Answer, 1)
	go func() {
		hook.GrowStack()
		defer func() {
			if r := recover(); r != nil {
				done <- hook.Answer{Deny: true, Reason: hook.ErrorMessage("", fmt.Errorf("internal error: %v", r))}
			}
		}()
		in, err := io.ReadAll(io.LimitReader(c.stdin, hook.MaxEvent+1))
		if err != nil {
			done <- hook.Answer{Deny: true, Reason: hook.ErrorMessage("", fmt.Errorf("failed to read the event: %w", err))}
			return
		}
		recoverQuarantine(c)
		ev, err := agent.DecodeHook(in, os.Getwd, c.getenv)
		if err != nil {
			done <- pipe.DecodeError(ev, err)
			return
		}
		if ev.Kind == hook.SessionStart {
			hook.ForgetResident(c.stateDir(), c.getenv("XDG_RUNTIME_DIR"))
		}
		done <- pipe.Event(ev)
	}()
	var ans hook.Answer
	var why string // set when picket answered on its own; said after the answer
	timer := time.NewTimer(*deadline)
	defer timer.Stop()
wait:
	for {
		select {
		case ans = <-done:
			break wait
		case s := <-interrupted:
			select { // the prompt gives the terminal back; its answer is not waited for
			case <-done:
			case <-time.After(time.Second):
			}
			ans = hook.Answer{Deny: true, Reason: hook.ErrorMessage("", fmt.Errorf("interrupted by %v during a prompt", s))}
			why = fmt.Sprintf("hook interrupted by %v during a prompt; the call was denied", s)
			break wait
		case d := <-extend:
			timer.Reset(d)
		case <-timer.C:
			ans = hook.Answer{Deny: true, Reason: hook.ErrorMessage("", fmt.Errorf("no decision within the hook's deadline"))}
			why = "hook deadline passed; the call was denied"
			break wait
		}
	}
	code := reply(c, agent, ans)
	if why != "" {
		c.errorf("%s", why)
	}
	return code
}

// reply writes ans in agent's schema, the answer first (stderr may be a
// closed pipe), and returns the status to exit with. Without an agent to
// answer for, a deny is exit 2 with its reason on stderr.
func reply(c *cli, agent *hook.Agent, ans hook.Answer) int {
	if agent == nil || agent.Hook == nil {
		if ans.Deny {
			io.WriteString(c.stderr, ans.Reason+"\n")
			return 2
		}
		return 0
	}
	r := agent.Reply(ans)
	c.stdout.Write(r.Stdout)
	c.stderr.Write(r.Stderr)
	return r.Exit
}

// pipeline is the request path as picket's own processes wire it, for
// agent's calls: the policy in force loaded afresh per call, the grant
// store, the audit log in picket's state dir. headless (--headless, or CI
// set) makes every block final.
func (c *cli) pipeline(agent *hook.Agent, headless bool) hook.Pipeline {
	exe := ""
	if agent.Rewrite != nil { // its rewritten shell commands run under this picket
		exe, _ = hook.Executable("")
	}
	return hook.Pipeline{
		Exe:           exe,
		Agent:         agent,
		Prompter:      hook.TerminalPrompter{Getenv: c.getenv, StateDir: c.stateDir()}, // picket hook adds its signals
		Policies:      func(dir string) (*decide.Loaded, error) { return c.loadPolicy(dir, "") },
		Grants:        c.grantStore(),
		StateDir:      c.stateDir(),
		Audit:         c.auditLog(),
		Headless:      headless || c.getenv("CI") != "",
		RipgrepConfig: c.getenv("RIPGREP_CONFIG_PATH") != "",
		Warn:          c.warnf,
		TrustWrite: func(file string) error {
			return sandbox.TrustWrite(c.stateDir(), file)
		},
	}
}
