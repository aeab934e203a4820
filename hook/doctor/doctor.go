// Package doctor checks that the coding agents picket is installed into
// run it: for each agent it is given (picket passes its registry,
// hook/agents), where picket's wiring is ([hook.Agent.Wired]), that the
// executable it names is this picket (the same file, or a copy of the
// same build), that a canary call handed to the installed wiring exactly
// as the agent would hand it is blocked, and whether the agent runs the
// wiring at all ([hook.Agent.Trust]: folder trust, a hook no one
// trusted, a plugin that never loaded). Every agent has a way to skip
// picket without a word; doctor is how a person finds out.
//
// The canary is a write of the project's .git/hooks/pre-commit, a
// mandatory write deny no policy lifts, so it is blocked under every
// policy and never prompts. Only picket judges it: doctor runs the hook
// command or sidecar, never the agent or its tool, and nothing is
// written. The block is audited like any other, under the session
// "picket-doctor".
//
// # What it does not check
//
// Doctor reads the agent's files and runs picket's wiring as the agent
// would; it does not start the agent. An agent that changed how it loads
// hooks since the version picket was tested with, a hook set in a file
// doctor does not read (a managed policy, a command-line flag), or a
// session started before the install are out of its sight. Agents whose
// package has no [hook.Agent.Wired] are listed as not checked.
package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/picketdev/picket/hook"
)

// Level is how a finding counts.
type Level uint8

const (
	OK      Level = iota // as it should be
	Note                 // worth knowing, nothing to fix
	Problem              // the agent is not fenced as installed: doctor fails
)

// Finding is one line of doctor's report.
type Finding struct {
	Agent *hook.Agent // nil for picket as a whole
	Level Level
	Text  string
	// Fix says what to do about a Problem.
	Fix string
}

// Options are what [Check] needs: the agents, and the install options
// their Wired and Trust read (Exe is this picket, Dir the project, Env
// the environment the canary runs in).
type Options struct {
	hook.InstallOptions
	Agents []*hook.Agent
}

// SessionID is the session the canary calls name in the audit log.
const SessionID = "picket-doctor"

// defaultTimeout bounds a canary call of an agent that names no hook
// timeout (an extension's sidecar answers within seconds).
const defaultTimeout = 30 * time.Second

// Check runs every check for every agent in o.Agents, in their order.
func Check(ctx context.Context, o Options) []Finding {
	var out []Finding
	installed := 0
	for _, a := range o.Agents {
		fs, n := checkAgent(ctx, o, a)
		out = append(out, fs...)
		installed += n
	}
	if installed == 0 {
		out = append(out, Finding{Level: Problem, Text: "picket is installed in no agent, so no agent is fenced",
			Fix: "run 'picket install AGENT' (" + names(o.Agents) + ")"})
	}
	return out
}

// checkAgent checks one agent, and returns its findings and how many
// wirings it found.
func checkAgent(ctx context.Context, o Options, a *hook.Agent) ([]Finding, int) {
	say := func(l Level, fix, format string, args ...any) Finding {
		return Finding{Agent: a, Level: l, Text: fmt.Sprintf(format, args...), Fix: fix}
	}
	if a.Wired == nil {
		return []Finding{say(Note, "", "not checked: picket doctor cannot read %s's wiring yet", a.Title)}, 0
	}
	ws, err := a.Wired(o.InstallOptions)
	if err != nil {
		return []Finding{say(Problem, "fix the file, then run 'picket install "+a.Name+"' again", "cannot read picket's wiring: %v", err)}, 0
	}
	if len(ws) == 0 {
		return []Finding{say(Note, "", "not installed (run 'picket install %s' to fence it)", a.Name)}, 0
	}
	var out []Finding
	for _, w := range ws {
		out = append(out, say(OK, "", "%s wiring in %s", w.Scope, w.File))
		out = append(out, checkExe(a, w, o.Exe))
		out = append(out, checkCanary(ctx, o, a, w))
	}
	if a.Trust != nil {
		if st := a.Trust(o.InstallOptions); st.Trusted {
			out = append(out, say(OK, "", "%s runs it: %s", a.Title, st.Detail))
		} else {
			out = append(out, say(Problem, st.Fix, "%s does not run it: %s", a.Title, st.Detail))
		}
	}
	if a.ShellSandbox != "" {
		out = append(out, say(Note, "", "%s's shell commands are judged by their words before they run, which is best effort (a program can build a path at run time): use %s's own sandbox alongside: %s",
			a.Title, a.Title, a.ShellSandbox))
	}
	return out, len(ws)
}

// reinstall is the command that writes w again with this picket.
func reinstall(a *hook.Agent, w hook.Wiring) string {
	if w.Scope == "project" {
		return "picket install " + a.Name + " --project"
	}
	return "picket install " + a.Name + " --user"
}

func names(agents []*hook.Agent) string {
	var n []string
	for _, a := range agents {
		n = append(n, a.Name)
	}
	return strings.Join(n, ", ")
}

// Write prints the findings for people, grouped by agent, and returns
// how many problems there are.
//
// Output: one "Title (name):" heading per agent, then its findings
// indented as "ok: …", "note: …" or "problem: …" with "fix: …" under a
// problem; findings about picket as a whole last, then a summary line.
func Write(w io.Writer, findings []Finding) (problems int) {
	var last *hook.Agent
	for _, f := range findings {
		indent := "  "
		if f.Agent == nil {
			indent = ""
		} else if f.Agent != last {
			fmt.Fprintf(w, "%s (%s):\n", f.Agent.Title, f.Agent.Name)
		}
		last = f.Agent
		fmt.Fprintf(w, "%s%s: %s\n", indent, [...]string{"ok", "note", "problem"}[f.Level], f.Text)
		if f.Level == Problem {
			problems++
			if f.Fix != "" {
				fmt.Fprintf(w, "%s  fix: %s\n", indent, f.Fix)
			}
		}
	}
	switch problems {
	case 0:
		fmt.Fprintln(w, "picket doctor: no problems")
	case 1:
		fmt.Fprintln(w, "picket doctor: 1 problem")
	default:
		fmt.Fprintf(w, "picket doctor: %d problems\n", problems)
	}
	return problems
}

// Usage is picket doctor --help.
const Usage = `Usage:
  picket doctor

Checks, for every agent picket knows, in the current project: where
picket's wiring is (your settings and the project's), that it runs this
picket (the same file or the same build), that a canary call handed to
the installed hook as the agent would hand it (a write of the project's
.git/hooks/pre-commit, which no policy allows) comes back blocked, and
whether the agent runs the wiring at all (its trust, a plugin that never
loaded). It runs no agent and writes nothing but the canary's audit line.

Exit status: 0 with no problem, 1 with any (each says what to do), 2 for
a usage error. See docs/doctor.md.
`
