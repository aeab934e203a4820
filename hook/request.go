package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/lint"
)

// Pipeline is the one request path every agent's tool call takes, from
// the per-call hook and from picket serve alike: event → targets →
// policy → decision → grant → prompt → audit. What it reads and writes
// outside the call is given to it, never found: the agent, the policy in
// force, the grant store, the ledger and notices, the audit sink, the
// person (or no one) to ask.
type Pipeline struct {
	// Agent is the agent whose calls arrive: its tool mapping and what it
	// loads by itself. Nothing else about it is asked here.
	Agent *Agent
	// Policies gives the policy in force in a directory (loaded afresh
	// per call, or from a cache kept fresh).
	Policies func(dir string) (*decide.Loaded, error)
	// Grants holds session grants and each turn's denials.
	Grants grants.Store
	// StateDir is picket's state dir: the read-before-edit ledger and the
	// session notices are below it.
	StateDir string
	// Audit takes every audit line.
	Audit AuditSink
	// Prompter asks the person at a terminal; nil, or Headless, means no
	// one can be asked and every block is final.
	Prompter Prompter
	Headless bool
	// Modes, when set, gives a session's own mode (picket serve's mode
	// op); "" keeps the policy's.
	Modes func(session string) decide.Mode
	// Warn tells the person of a failure that changes no decision.
	Warn func(format string, args ...any)
	// TrustWrite records a policy file picket itself wrote (a persisted
	// grant), should a sandboxed command be running (sandbox.TrustWrite).
	TrustWrite func(file string) error
	// RipgrepConfig says the agent's ripgrep may read a config file
	// (RIPGREP_CONFIG_PATH is set in its environment), which can make it
	// follow symlinks (see [Call.RipgrepConfig]).
	RipgrepConfig bool
	// Exe is the picket executable a rewritten shell command runs under
	// (see [Agent.Rewrite]); "" leaves none to run, and an agent's
	// Rewrite then denies its shell calls.
	Exe string
	// GOOS is the operating system the agent runs on ("" is
	// runtime.GOOS): where picket run has no sandbox ([ShellSandboxed]),
	// shell commands are left as the model wrote them.
	GOOS string
}

// AuditSink appends audit lines. A failure to write one never changes a
// decision; the sink reports it itself.
type AuditSink interface {
	Append(loaded *decide.Loaded, e audit.Entry)
}

// Verdict is the decision on one tool call before any person is asked.
type Verdict struct {
	Decision decide.Decision
	Err      error       // picket could not judge the call: deny it
	Entry    audit.Entry // the audit line, filled from Decision
}

func (p *Pipeline) warnf(format string, args ...any) {
	if p.Warn != nil {
		p.Warn(format, args...)
	}
}

// Ledger is the read-before-edit ledger under the state dir.
func (p *Pipeline) Ledger() Ledger { return Ledger{Dir: filepath.Join(p.StateDir, "ledger")} }

// Notices remembers the lint warnings each session was shown.
func (p *Pipeline) Notices() Notices { return Notices{Dir: filepath.Join(p.StateDir, "notices")} }

// Event answers one decoded agent event.
func (p *Pipeline) Event(ev Event) Answer {
	switch ev.Kind {
	case BeforeTool:
		return p.BeforeTool(ev.Call)
	case AfterTool:
		if loaded, err := p.Policy(ev.Call); err == nil {
			p.Seen(loaded, ev.Call)
		}
	case SessionStart:
		return p.SessionStart(ev.Call)
	case SessionEnd:
		p.SessionEnd(ev.Call.Session)
	}
	return Answer{}
}

// DecodeError is the answer to an event the agent's codec refused: the
// call is denied, and the failure audited.
func (p *Pipeline) DecodeError(ev Event, err error) Answer {
	p.Audit.Append(nil, audit.Entry{Agent: p.Agent.Name, Decision: "error", Reason: err.Error()})
	return Answer{Deny: true, Reason: ErrorMessage(ev.Call.Tool, err)}
}

// BeforeTool judges one tool call, asks the person where a block may be
// lifted, audits, and answers.
func (p *Pipeline) BeforeTool(call Call) Answer {
	targets, terr := p.Agent.Targets(call)
	if errors.Is(terr, ErrNotJudged) {
		return p.Rewrite(nil, call)
	}
	loaded, err := p.Policy(call)
	v := p.Judge(loaded, err, call, targets, terr)
	switch {
	case v.Err != nil:
		return Answer{Deny: true, Reason: ErrorMessage(call.Tool, v.Err)}
	case v.Decision.Allow:
		return p.Rewrite(loaded, call)
	}
	outcome := p.AskGrant(loaded, call, v.Decision)
	p.Audit.Append(loaded, GrantEntry(v.Entry, outcome))
	if outcome.Allow {
		return p.Rewrite(loaded, call) // granted: no decision, so the agent's own rules still apply
	}
	d := v.Decision
	if outcome.Note != "" {
		d.Reason = JoinReason(d.Reason, outcome.Note)
	}
	return Answer{Deny: true, Reason: BlockMessage(call.Tool, d)}
}

// Rewrite is the answer to a call picket lets through: nothing, or for an
// agent with a Rewrite the input it is to run the call with instead (a
// shell command under picket run, except on a platform without the
// sandbox, where it runs unfenced). A call the agent cannot rewrite is
// denied, and the failure audited (loaded may be nil: the call was not
// judged).
func (p *Pipeline) Rewrite(loaded *decide.Loaded, call Call) Answer {
	if p.Agent.Rewrite == nil {
		return Answer{}
	}
	in, err := p.Agent.Rewrite(call, ShellRun{Exe: p.Exe, Session: call.Session, Agent: p.Agent.Name, GOOS: p.GOOS})
	if errors.Is(err, ErrShellUnsandboxed) {
		return Answer{} // no sandbox on this platform: unfenced, as install said
	}
	if err != nil {
		p.Audit.Append(loaded, audit.Entry{Session: call.Session, Agent: call.Agent, Tool: call.Tool, Decision: "error", Reason: err.Error()})
		return Answer{Deny: true, Reason: ErrorMessage(call.Tool, err)}
	}
	return Answer{Input: in, Dialect: call.Dialect}
}

// Policy is the policy in force for the call's directory.
func (p *Pipeline) Policy(call Call) (*decide.Loaded, error) {
	dir := call.Dir()
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("event cwd %q is not an absolute path", dir)
	}
	return p.Policies(filepath.Clean(dir))
}

// Judge decides a file tool call with session grants applied, and audits
// errors and (with logAllows) allows. targets and targetsErr are what the
// agent's Targets read from the call, which the caller has already found
// to be a file tool. A denied verdict is not yet audited: the caller may
// ask a person first.
func (p *Pipeline) Judge(loaded *decide.Loaded, loadErr error, call Call, targets []Target, targetsErr error) Verdict {
	entry := audit.Entry{Session: call.Session, Agent: call.Agent, Tool: call.Tool}
	if loadErr != nil {
		entry.Decision, entry.Reason = "error", loadErr.Error()
		p.Audit.Append(nil, entry)
		return Verdict{Err: fmt.Errorf("policy: %w", loadErr), Entry: entry}
	}
	if targetsErr != nil {
		entry.Decision, entry.Reason = "error", targetsErr.Error()
		p.Audit.Append(loaded, entry)
		return Verdict{Err: targetsErr, Entry: entry}
	}
	for _, t := range targets {
		if t.Shell { // the audit line names the command line and where it runs
			entry.Command, entry.Cwd = t.Line, t.Path
		}
	}
	targets, blocked, err := ShellTargets(loaded, targets)
	switch {
	case err != nil:
		entry.Decision, entry.Reason = "error", err.Error()
		p.Audit.Append(loaded, entry)
		return Verdict{Err: err, Entry: entry}
	case blocked != nil:
		FillEntry(&entry, *blocked)
		entry.Reason = blocked.Reason
		return Verdict{Decision: *blocked, Entry: entry}
	}
	// A ripgrep config file can make the agent's ripgrep follow links.
	call.RipgrepConfig = call.RipgrepConfig || p.RipgrepConfig
	if call.Session != "" && call.Granted == nil {
		// Only a grantable block looks the grant up.
		call.Granted = func(a decide.Access, resolved string) bool {
			ok, err := p.Grants.Has(call.Session, string(a), resolved)
			return err == nil && ok
		}
	}
	policy := loaded.Policy
	if m := p.mode(call.Session); m != "" {
		policy = policy.WithMode(m)
	}
	// The ledger is under the state dir of the env the policy was loaded
	// with.
	var ledger Ledger
	if policy.Spec().WriteGuards.ReadBeforeEdit {
		ledger.Dir = filepath.Join(loaded.Env.StateDir(), "ledger")
	}
	d, err := p.Agent.Judge(policy, call, targets, ledger)
	if err != nil {
		entry.Decision, entry.Reason = "error", err.Error()
		p.Audit.Append(loaded, entry)
		return Verdict{Err: err, Entry: entry}
	}
	FillEntry(&entry, d)
	if d.Allow && loaded.Settings.Audit.LogAllows {
		entry.Decision = "allow"
		p.Audit.Append(loaded, entry)
	}
	return Verdict{Decision: d, Entry: entry}
}

// mode is the mode a session switched to; "" keeps the policy's.
func (p *Pipeline) mode(session string) decide.Mode {
	if p.Modes == nil || session == "" {
		return ""
	}
	return p.Modes(session)
}

// Seen keeps the read-before-edit ledger after a file tool ran: what the
// agent read or wrote is what it has seen.
func (p *Pipeline) Seen(loaded *decide.Loaded, call Call) {
	if loaded == nil || !loaded.Policy.Spec().WriteGuards.ReadBeforeEdit || call.Session == "" {
		return
	}
	targets, err := p.Agent.Targets(call)
	if err != nil || len(targets) == 0 || !targets[0].Seen {
		return
	}
	_, resolved, err := decide.Canonicalize(targets[0].Path, call.Dir(), loaded.Env.Home)
	if err != nil {
		return
	}
	if err := p.Ledger().Record(call.Session, resolved); err != nil {
		p.warnf("read-before-edit ledger: %v", err)
	}
}

// SessionStart prunes what crashed sessions left, checks the policy at
// once (a broken one is shown now, not at the first tool call), and shows
// its lint warnings to a session once.
func (p *Pipeline) SessionStart(call Call) Answer {
	// Session grant files outlive crashed sessions: drop week-old ones.
	if err := p.Grants.Prune(grants.DefaultMaxAge); err != nil {
		p.warnf("pruning old session grants: %v", err)
	}
	if err := p.Notices().Prune(grants.DefaultMaxAge); err != nil {
		p.warnf("pruning old session notices: %v", err)
	}
	loaded, err := p.Policy(call)
	if err != nil {
		return Answer{Notice: "picket: error: the fence policy is broken; every file tool call will be denied until it is fixed:\n" + err.Error()}
	}
	// Lint at a session's start: warnings never block. An agent may start
	// a session again (resume, /clear, compaction) with the same id; the
	// same warnings are shown to it once. A broken policy (above) is an
	// error and shows every time.
	ws := lint.Run(loaded)
	if len(ws) == 0 {
		return Answer{}
	}
	lines := []string{"picket: warning: the fence policy has footguns (picket lint):"}
	for _, w := range ws {
		lines = append(lines, w.String())
	}
	msg := strings.Join(lines, "\n")
	first, err := p.Notices().First(call.Session, msg)
	if err != nil {
		p.warnf("remembering the lint warnings shown: %v", err)
	}
	if first {
		return Answer{Notice: msg}
	}
	return Answer{}
}

// SessionEnd forgets the session's ledger, grants and the lint warnings
// it was shown.
func (p *Pipeline) SessionEnd(session string) error {
	if session == "" {
		return nil
	}
	return errors.Join(p.Ledger().End(session), p.Grants.End(session), p.Notices().End(session))
}

// FillEntry fills an audit line from a decision.
func FillEntry(e *audit.Entry, d decide.Decision) {
	e.Access, e.Path, e.Resolved = string(d.Access), d.Path, d.Resolved
	e.Layer, e.Rule, e.Pattern, e.Source = string(d.Layer), d.Rule, d.Pattern, d.Source
	if !d.Allow && d.Reason != "" && strings.HasPrefix(d.Rule, "picket.") {
		e.Reason = d.Reason
	}
}

// JoinReason appends note to a block's reason.
func JoinReason(reason, note string) string {
	if reason == "" {
		return note
	}
	return reason + "; " + note
}
