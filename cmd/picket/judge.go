package main

import (
	"fmt"
	"path/filepath"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// verdict is the decision on one tool call before any person is asked.
type verdict struct {
	d     decide.Decision
	err   error       // picket could not judge the call: deny it
	entry audit.Entry // the audit line, filled from d
}

// judgeCall decides a file tool call with session grants applied, and
// audits errors and (with logAllows) allows. targets and targetsErr are
// what hook.Targets read from the call, which the caller has already found
// to be a file tool. A denied verdict is not yet audited: the caller may
// ask a person first. Both `picket hook` and `picket serve` go through
// here, so an agent's call is judged the same way by either.
func (c *cli) judgeCall(loaded *decide.Loaded, loadErr error, call hook.Call, targets []hook.Target, targetsErr error) verdict {
	entry := audit.Entry{Session: call.Session, Agent: call.Agent, Tool: call.Tool}
	if loadErr != nil {
		entry.Decision, entry.Reason = "error", loadErr.Error()
		c.audit(nil, entry)
		return verdict{err: fmt.Errorf("policy: %w", loadErr), entry: entry}
	}
	if targetsErr != nil {
		entry.Decision, entry.Reason = "error", targetsErr.Error()
		c.audit(loaded, entry)
		return verdict{err: targetsErr, entry: entry}
	}
	if call.Session != "" && call.Granted == nil {
		// Only a grantable block looks the grant up.
		call.Granted = func(a decide.Access, resolved string) bool {
			ok, err := c.grantStore().Has(call.Session, string(a), resolved)
			return err == nil && ok
		}
	}
	// A ripgrep config file can make the agent's ripgrep follow links.
	call.RipgrepConfig = call.RipgrepConfig || c.getenv("RIPGREP_CONFIG_PATH") != ""
	policy := loaded.Policy
	if m := c.sessionMode(call.Session); m != "" {
		policy = policy.WithMode(m)
	}
	// The ledger is under the state dir of the env the policy was loaded
	// with (c.ledger() would build that env again, executable lookup
	// included, on every call).
	var ledger hook.Ledger
	if policy.Spec().WriteGuards.ReadBeforeEdit {
		ledger.Dir = filepath.Join(loaded.Env.StateDir(), "ledger")
	}
	d, err := hook.Judge(policy, call, targets, ledger)
	if err != nil {
		entry.Decision, entry.Reason = "error", err.Error()
		c.audit(loaded, entry)
		return verdict{err: err, entry: entry}
	}
	fillEntry(&entry, d)
	if d.Allow && loaded.Settings.Audit.LogAllows {
		entry.Decision = "allow"
		c.audit(loaded, entry)
	}
	return verdict{d: d, entry: entry}
}

// sessionMode is the mode a session switched to (picket serve's mode op);
// "" keeps the policy's.
func (c *cli) sessionMode(session string) decide.Mode {
	if c.modes == nil || session == "" {
		return ""
	}
	return c.modes(session)
}

func grantCallOf(call hook.Call) grantCall {
	return grantCall{agent: call.Agent, session: call.Session, turn: call.Turn, cwd: call.Cwd, tool: call.Tool}
}

// noteSeen keeps the read-before-edit ledger after a file tool ran: what
// the agent read or wrote is what it has seen. (`picket serve`'s
// tool_result; the hook's PostToolUse does the same for Claude Code.)
func (c *cli) noteSeen(loaded *decide.Loaded, call hook.Call) {
	switch call.Tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "read", "write", "edit":
	default:
		return
	}
	if loaded == nil || !loaded.Policy.Spec().WriteGuards.ReadBeforeEdit || call.Session == "" {
		return
	}
	targets, err := hook.Targets(call)
	if err != nil || len(targets) == 0 {
		return
	}
	_, resolved, err := decide.Canonicalize(targets[0].Path, call.Cwd, loaded.Env.Home)
	if err != nil {
		return
	}
	if err := c.ledger().Record(call.Session, resolved); err != nil {
		c.warnf("read-before-edit ledger: %v", err)
	}
}
