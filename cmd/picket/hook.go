package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/cmd/picket/internal/hooksig"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/lint"
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

// runHook answers one agent hook event. It only ever exits 0 (Claude Code
// reads any other status but 2 as "go ahead"); a file tool call that cannot
// be judged (bad input, broken policy, deadline, panic) is denied.
func runHook(c *cli, args []string) int {
	// A signal must not end the hook unanswered: Claude Code reads the
	// exit status of a killed hook (129 after a hangup of the terminal a
	// prompt was on, 143 after a TERM) as "go ahead". They are ignored from
	// the start, so the hook goes on to its answer (its deadline bounds
	// it); a prompt on screen catches them instead, to give the terminal
	// back and deny (see promptContext). Ignoring costs three syscalls;
	// catching would start a thread on every call.
	signal.Ignore(hookSignals...)
	interrupted := make(chan os.Signal, 1)
	c.interrupted = interrupted
	fs, agent, deadline := c.hookFlags()
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
		c.stdout.Write(hook.ClaudeDeny(hook.ErrorMessage("", errors.New("bad hook arguments"))))
		return 0
	}
	if *agent != "claude" {
		c.stdout.Write(hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("unknown agent %q", *agent))))
		return 0
	}
	done := make(chan []byte, 1)
	extend := make(chan time.Duration, 4)
	c.extend = func(d time.Duration) {
		select {
		case extend <- d:
		default:
		}
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("internal error: %v", r)))
			}
		}()
		in, err := io.ReadAll(io.LimitReader(c.stdin, hook.MaxEvent+1))
		if err != nil {
			done <- hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("failed to read the event: %w", err)))
			return
		}
		c.recoverQuarantine()
		done <- c.claudeEvent(in)
	}()
	var out []byte
	var why string // set when picket answered on its own; said after the answer
	timer := time.NewTimer(*deadline)
	defer timer.Stop()
wait:
	for {
		select {
		case out = <-done:
			break wait
		case s := <-interrupted:
			select { // the prompt gives the terminal back; its answer is not waited for
			case <-done:
			case <-time.After(time.Second):
			}
			out = hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("interrupted by %v during a prompt", s)))
			why = fmt.Sprintf("hook interrupted by %v during a prompt; the call was denied", s)
			break wait
		case d := <-extend:
			timer.Reset(d)
		case <-timer.C:
			out = hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("no decision within the hook's deadline")))
			why = "hook deadline passed; the call was denied"
			break wait
		}
	}
	// The answer first: stderr may be a closed pipe.
	c.stdout.Write(out)
	if why != "" {
		c.errorf("%s", why)
	}
	return 0
}

// hookFlags are the hook's flags; --headless sets c.noPrompt.
func (c *cli) hookFlags() (fs *flag.FlagSet, agent *string, deadline *time.Duration) {
	fs = flag.NewFlagSet("hook", flag.ContinueOnError)
	agent = fs.String("agent", "claude", "the agent whose event is on stdin (claude)")
	deadline = fs.Duration("deadline", hookDeadline, "deny a file tool call not decided within this time")
	fs.BoolVar(&c.noPrompt, "headless", false, "never prompt: every block is final (also when CI is set)")
	return fs, agent, deadline
}

// claudeEvent handles one Claude Code event and returns what to print.
func (c *cli) claudeEvent(in []byte) []byte {
	ev, err := hook.ParseClaude(in)
	if err != nil {
		c.audit(nil, audit.Entry{Agent: "claude", Decision: "error", Reason: err.Error()})
		return hook.ClaudeDeny(hook.ErrorMessage(ev.Tool, err))
	}
	switch ev.Event {
	case hook.EventPreToolUse:
		return c.claudePreToolUse(ev)
	case hook.EventPostToolUse:
		c.claudePostToolUse(ev)
	case hook.EventSessionStart:
		// Session grant files outlive crashed sessions: drop week-old ones.
		if err := c.grantStore().Prune(grants.DefaultMaxAge); err != nil {
			c.warnf("pruning old session grants: %v", err)
		}
		if err := c.notices().Prune(grants.DefaultMaxAge); err != nil {
			c.warnf("pruning old session notices: %v", err)
		}
		c.forgetResident()
		loaded, err := c.eventPolicy(ev)
		if err != nil {
			return hook.ClaudeSystemMessage("picket: error: the fence policy is broken; every file tool call will be denied until it is fixed:\n" + err.Error())
		}
		// Lint at a session's start: warnings never block. Claude Code
		// starts a session again on resume, /clear and compaction, with
		// the same id; the same warnings are shown to it once. A broken
		// policy (above) is an error and shows every time.
		if ws := lint.Run(loaded); len(ws) > 0 {
			lines := []string{"picket: warning: the fence policy has footguns (picket lint):"}
			for _, w := range ws {
				lines = append(lines, w.String())
			}
			msg := strings.Join(lines, "\n")
			first, err := c.notices().First(ev.Session, msg)
			if err != nil {
				c.warnf("remembering the lint warnings shown: %v", err)
			}
			if first {
				return hook.ClaudeSystemMessage(msg)
			}
		}
	case hook.EventSessionEnd:
		if ev.Session != "" {
			c.ledger().End(ev.Session)
			c.grantStore().End(ev.Session)
			c.notices().End(ev.Session)
		}
	}
	return nil
}

func (c *cli) claudePreToolUse(ev hook.ClaudeEvent) []byte {
	call := hook.Call{Agent: "claude", Session: ev.Session, Turn: ev.PromptID, Cwd: ev.Cwd, Tool: ev.Tool, Input: ev.Input}
	targets, terr := hook.Targets(call)
	if errors.Is(terr, hook.ErrNotJudged) {
		return nil
	}
	loaded, err := c.eventPolicy(ev)
	v := c.judgeCall(loaded, err, call, targets, terr)
	switch {
	case v.err != nil:
		return hook.ClaudeDeny(hook.ErrorMessage(ev.Tool, v.err))
	case v.d.Allow:
		return nil
	}
	outcome := c.askGrant(loaded, grantCallOf(call), v.d)
	c.audit(loaded, grantEntry(v.entry, outcome))
	if outcome.allow {
		return nil // granted: no decision, so Claude Code's own rules still apply
	}
	d := v.d
	if outcome.note != "" {
		d.Reason = joinReason(d.Reason, outcome.note)
	}
	return hook.ClaudeDeny(hook.BlockMessage(ev.Tool, d))
}

// claudePostToolUse keeps the read-before-edit ledger: what the agent read
// or wrote is what it has seen.
func (c *cli) claudePostToolUse(ev hook.ClaudeEvent) {
	switch ev.Tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit":
	default:
		return
	}
	loaded, err := c.eventPolicy(ev)
	if err != nil || !loaded.Policy.Spec().WriteGuards.ReadBeforeEdit || ev.Session == "" {
		return
	}
	targets, err := hook.ClaudeTargets(ev.Tool, ev.Input)
	if err != nil || len(targets) == 0 {
		return
	}
	_, resolved, err := decide.Canonicalize(targets[0].Path, ev.Cwd, loaded.Env.Home)
	if err != nil {
		return
	}
	if err := c.ledger().Record(ev.Session, resolved); err != nil {
		c.warnf("read-before-edit ledger: %v", err)
	}
}

// forgetResident removes what the resident hook server of earlier builds
// left in picket's state (its sockets, locks and start markers):
// that server is gone, and a server still running from an old executable
// exits once its socket is removed. Its socket could also be in
// $XDG_RUNTIME_DIR/picket (beside the console's, which stays).
func (c *cli) forgetResident() {
	os.RemoveAll(filepath.Join(c.stateDir(), "resident"))
	if rt := c.getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		old, _ := filepath.Glob(filepath.Join(rt, "picket", "hook-*.sock*"))
		for _, f := range old {
			os.Remove(f)
		}
	}
}

// eventPolicy resolves the policy for the event's working directory.
func (c *cli) eventPolicy(ev hook.ClaudeEvent) (*decide.Loaded, error) {
	if !filepath.IsAbs(ev.Cwd) {
		return nil, fmt.Errorf("event cwd %q is not an absolute path", ev.Cwd)
	}
	return c.loadPolicy(ev.Cwd, "")
}

func (c *cli) stateDir() string {
	return decide.Env{Home: c.home(), StateHome: c.getenv("XDG_STATE_HOME")}.StateDir()
}

// home is $HOME, or the user's home when it is unset.
func (c *cli) home() string {
	if h := c.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// notices remembers the lint warnings each session was shown.
func (c *cli) notices() hook.Notices {
	return hook.Notices{Dir: filepath.Join(c.stateDir(), "notices")}
}

func (c *cli) ledger() hook.Ledger {
	return hook.Ledger{Dir: filepath.Join(c.stateDir(), "ledger")}
}

func fillEntry(e *audit.Entry, d decide.Decision) {
	e.Access, e.Path, e.Resolved = string(d.Access), d.Path, d.Resolved
	e.Layer, e.Rule, e.Pattern, e.Source = string(d.Layer), d.Rule, d.Pattern, d.Source
	if !d.Allow && d.Reason != "" && strings.HasPrefix(d.Rule, "picket.") {
		e.Reason = d.Reason
	}
}

// audit appends one entry. A failure to write the log never changes a
// decision; it is reported on stderr.
func (c *cli) audit(loaded *decide.Loaded, e audit.Entry) {
	path := c.auditFile(loaded)
	opts := audit.Options{Path: path, Warn: func(m string) { c.warnf("audit log: %s", m) },
		SharedDir: path != audit.DefaultPath(c.home(), c.getenv("XDG_STATE_HOME"))}
	if loaded != nil {
		opts.MaxAgeDays, opts.MaxSizeMB = loaded.Settings.Audit.MaxAgeDays, loaded.Settings.Audit.MaxSizeMB
	}
	l, err := audit.Open(opts)
	if err == nil {
		err = l.Append(e)
		if cerr := l.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		c.warnf("failed to write the audit log: %v", err)
	}
}

// auditFile is picket.audit.path when the policy sets a usable one (see
// usableAuditPath), else the default under the state dir.
func (c *cli) auditFile(loaded *decide.Loaded) string {
	def := audit.DefaultPath(c.home(), c.getenv("XDG_STATE_HOME"))
	if loaded == nil || loaded.Settings.Audit.Path == "" {
		return def
	}
	p := loaded.Settings.Audit.Path
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(loaded.Env.Home, p[2:])
	}
	if err := usableAuditPath(p); err != nil {
		c.warnf("picket.audit.path %s %v; using %s", strconv.Quote(p), err, def)
		return def
	}
	return p
}

// usableAuditPath refuses an audit path picket must not write: a policy
// from a cloned repository could name ~/.bashrc, and the log's first
// rotation would move the file away and start a new one holding text the
// agent chose (a path with "$(...)" in it) where the shell runs it. So the
// path is absolute (a relative one would follow the hook's working
// directory), is named *.log or *.ndjson (no shell or tool sources those),
// and, if it exists, is a regular file (not a symlink) that is empty or
// starts with an audit line.
func usableAuditPath(p string) error {
	if !filepath.IsAbs(p) {
		return errors.New("is not absolute (start it with / or ~/)")
	}
	if ext := filepath.Ext(p); ext != ".log" && ext != ".ndjson" {
		return errors.New("does not end in .log or .ndjson")
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return nil // missing, or unwritable: the write says which
	case fi.Mode()&os.ModeSymlink != 0:
		// A link would have picket create or append to whatever it names
		// (a ~/.zshenv that runs the line's "$(...)").
		return errors.New("is a symlink")
	case !fi.Mode().IsRegular():
		return errors.New("is not a regular file")
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	first, _, _ := bytes.Cut(readPrefix(f, 64<<10), []byte("\n"))
	var e struct {
		TS *string `json:"ts"`
	}
	if json.Unmarshal(first, &e) != nil || e.TS == nil {
		return errors.New("holds something other than picket's audit lines")
	}
	return nil
}

// readPrefix reads up to n bytes of r.
func readPrefix(r io.Reader, n int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, n))
	return b
}

func joinReason(reason, note string) string {
	if reason == "" {
		return note
	}
	return reason + "; " + note
}
