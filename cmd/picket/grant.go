package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/persist"
	"github.com/picketdev/picket/sandbox"
	"github.com/picketdev/picket/schema"
	"github.com/picketdev/picket/tui"
)

// Prompt defaults; picket.prompt overrides them.
const (
	defaultPromptTimeout = 60
	defaultBatchAfter    = 3
	coalesceWindow       = 200 * time.Millisecond
	// promptMargin is the time a prompt's context allows beyond its
	// timeout: for the prompt lock and the answer.
	promptMargin = 10 * time.Second
)

// grantOutcome is what a person's answer (or its absence) means for a call.
type grantOutcome struct {
	allow    bool
	decision string // the audit decision
	prompted bool
	note     string // appended to the block reason, e.g. why no prompt was shown
}

// grantStore is the session grant store in picket's state dir. A session
// file it does not trust is ignored, with a warning: the call is judged as
// if the session held no grant.
func (c *cli) grantStore() grants.Store {
	return grants.Store{
		Dir:  grants.DefaultDir(c.getenv("HOME"), c.getenv("XDG_STATE_HOME")),
		Warn: func(err error) { c.warnf("ignoring session grants: %v", err) },
	}
}

// headless reports whether no person can be asked: CI, --headless, or the
// surface is off.
func (c *cli) headless(loaded *decide.Loaded) bool {
	return c.noPrompt || c.getenv("CI") != "" || loaded.Settings.Prompt.Surface == tui.SurfaceOff
}

// mayAsk reports whether block d of a call in session may be put to a
// person at all: it is grantable, the hook is not headless, the call has
// a session.
func (c *cli) mayAsk(loaded *decide.Loaded, session string, d decide.Decision) bool {
	return d.Grantable() && !c.headless(loaded) && session != ""
}

// askGrant turns a grantable block into a question for the person, when one
// can be reached, and carries out the answer: a session grant, or a
// persisted allow entry after the person's explicit confirmation.
func (c *cli) askGrant(loaded *decide.Loaded, call grantCall, d decide.Decision) grantOutcome {
	turn, final, ok := c.promptable(loaded, call, d)
	if !ok {
		return final
	}
	req := c.promptRequest(loaded, call, d, turn)
	arrived := time.Now()
	ans, surface, err := c.ask(loaded, call, d, req, arrived)
	if surface == "" && err != nil {
		return grantOutcome{decision: "block"} // no surface: headless
	}
	if err != nil {
		c.warnf("prompt: %v", err)
	}
	if surface == "coalesced" && ans == tui.AnswerAllowAllOnce {
		// The batch the person answered was another request's; its answer
		// already let that batch through. This call passes, and its own
		// snapshot of the turn (which may hold calls the person never saw)
		// is not made to.
		ans = tui.AnswerOnce
	}
	call.persistResolved = req.PersistResolved
	return c.carryOut(loaded, call, d, ans, turn, req.PersistTarget)
}

// promptable reports whether a block may be put to a person: it is
// grantable, someone can be asked, and the person has not denied all of
// this turn. On the way it notes the denial for batch limiting. When it
// returns false, final is the block's outcome. `picket hook` and `picket
// serve` both go through here, so a turn is limited the same way by either.
func (c *cli) promptable(loaded *decide.Loaded, call grantCall, d decide.Decision) (turn grants.TurnState, final grantOutcome, ok bool) {
	if !c.mayAsk(loaded, call.session, d) {
		return turn, grantOutcome{decision: "block"}, false
	}
	batchAfter := cmpOr(loaded.Settings.Prompt.BatchAfter, defaultBatchAfter)
	turn, err := c.grantStore().NoteDenial(call.session, call.turn, denialOf(call, d), batchAfter)
	if err != nil {
		c.warnf("grant state: %v", err)
		return turn, grantOutcome{decision: "block"}, false
	}
	if turn.AllowedOnce {
		return turn, grantOutcome{allow: true, decision: "grant-once", prompted: true}, false
	}
	if turn.DenyAll {
		return turn, grantOutcome{decision: "block", note: "the person chose to deny all further requests this turn"}, false
	}
	return turn, grantOutcome{}, true
}

// ask shows the prompt, unless an identical request got an answer within
// the coalescing window. The answer is looked up and recorded under the
// prompt lock, so a request queued behind an identical one takes its answer
// instead of prompting again. A batch answered "one by one" switches the
// turn to single prompts and asks about this call at once.
func (c *cli) ask(loaded *decide.Loaded, call grantCall, d decide.Decision, req tui.Request, arrived time.Time) (tui.Answer, string, error) {
	ctx, cancel := c.promptContext(req)
	defer cancel()
	store := c.grantStore()
	asker := tui.Asker{
		Surface: loaded.Settings.Prompt.Surface,
		Exe:     loaded.Env.Executable,
		Dir:     c.stateDir(),
		Socket:  tui.ConsoleSocket(c.getenv("XDG_RUNTIME_DIR"), c.stateDir()),
		Getenv:  c.getenv,
		Options: tui.Options{NoColor: c.getenv("NO_COLOR") != ""},
	}
	unlock, err := asker.Lock(ctx)
	if err != nil {
		return tui.AnswerDeny, "", err
	}
	defer unlock()
	if prev, ok, _ := store.Coalesce(call.session, string(d.Access), d.Resolved, arrived, coalesceWindow); ok {
		return tui.Answer(prev), "coalesced", nil
	}
	ans, surface, err := asker.AskLocked(ctx, req)
	if ans == tui.AnswerIndividually && err == nil {
		if err := store.SetIndividually(call.session, call.turn); err != nil {
			c.warnf("grant state: %v", err)
		}
		req.Batch = nil
		// A prompt of its own, but within the time left of this one: a
		// fresh timeout would keep the hook waiting past the hook timeout
		// `picket install` writes, and an agent that kills a waiting hook
		// lets the call through.
		left := 0
		if dl, ok := ctx.Deadline(); ok {
			left = int((time.Until(dl) - promptMargin) / time.Second)
		}
		if req.TimeoutSeconds = min(req.TimeoutSeconds, left); req.TimeoutSeconds <= 0 {
			return tui.AnswerDeny, surface, errors.New("no time left to ask about this call alone")
		}
		ans, surface, err = asker.AskLocked(ctx, req)
	}
	if surface != "" {
		store.RecordAnswer(call.session, string(d.Access), d.Resolved, string(ans), arrived)
	}
	return ans, surface, err
}

// promptContext bounds one prompt: its own timeout and a margin. It moves
// the hook's deadline past it. In the hook a signal (the terminal hanging
// up, a TERM) ends the prompt too, which then gives the terminal back as
// it found it and denies; once the prompt is over the hook ignores them
// again (see runHook).
func (c *cli) promptContext(req tui.Request) (context.Context, context.CancelFunc) {
	timeout := time.Duration(req.TimeoutSeconds) * time.Second
	c.extendDeadline(timeout + 2*promptMargin)
	ctx, cancel := context.WithTimeout(context.Background(), timeout+promptMargin)
	if c.interrupted == nil {
		return ctx, cancel
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, hookSignals...)
	go func() {
		select {
		case s := <-sigs:
			cancel()
			select {
			case c.interrupted <- s:
			default:
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Ignore(hookSignals...) // first: it takes sigs off the handlers, so none is reset to the default
		cancel()
	}
}

// grantCall is the part of a tool call the grant flow needs.
type grantCall struct {
	agent, session, turn, cwd, tool string
	// persistResolved is the policy file the person was shown as the one
	// a persist writes; a persist writes there or nowhere.
	persistResolved string
}

func (c *cli) promptRequest(loaded *decide.Loaded, call grantCall, d decide.Decision, turn grants.TurnState) tui.Request {
	req := tui.Request{
		Agent: call.agent, Session: call.session, Cwd: call.cwd, Tool: call.tool, Access: string(d.Access),
		Path: d.Path, Resolved: d.Resolved, Layer: string(d.Layer), Rule: d.Rule, Pattern: d.Pattern, Source: d.Source,
		TimeoutSeconds: promptTimeout(loaded.Settings.Prompt.TimeoutSeconds),
	}
	c.offerPersist(&req, loaded, call, d)
	if turn.Batch {
		// One item a path: a read and a write of one file are one file to
		// the person, shown with both accesses.
		for _, x := range turn.ByPath() {
			req.Batch = append(req.Batch, tui.BatchItem{
				Tool: strings.Join(x.Tools, ", "), Access: strings.Join(x.Accesses, ", "), Path: x.Path, Resolved: x.Path,
			})
		}
	}
	return req
}

// offerPersist sets req's persist fields: [p] is offered only when an
// allow entry would lift this block, in the file the policy in force reads,
// for a path that is not a directory, and when persist.Check finds the
// write would go through. The person is shown the file that will really be
// written (a symlinked fence.jsonc resolved), and, when persist is not
// offered for a reason they could not guess, why.
func (c *cli) offerPersist(req *tui.Request, loaded *decide.Loaded, call grantCall, d decide.Decision) {
	if ok, err := decide.WouldAllow(loaded.Policy, decide.Request{Access: d.Access, Path: d.Path, Resolved: d.Resolved, Size: -1}); err != nil || !ok {
		return
	}
	file, exists := persist.Target(persist.ProjectRoot(call.cwd))
	if !c.takesEffect(loaded, file, exists) {
		return
	}
	if isDir(d) {
		// Under fence semantics an allow entry for a directory opens its
		// whole subtree, in every later session; a grant is one exact path.
		req.PersistNote = "persist is not offered for a directory: an allow entry for it would open everything below it in every later session"
		return
	}
	res, err := persist.Check(c.persistOptions(loaded, call, d, file))
	if err != nil {
		req.PersistNote = "persist is not offered: " + err.Error()
		return
	}
	req.CanPersist, req.PersistTarget, req.PersistCreates = true, file, !exists
	req.PersistResolved = res.Resolved
	req.PersistExtends = "code"
	if c.userConfigExists(loaded) {
		req.PersistExtends = "@base"
	}
}

// isDir reports whether the block is on a directory: a listing, or a path
// that is a directory now.
func isDir(d decide.Decision) bool {
	if d.Access == decide.List {
		return true
	}
	fi, err := os.Stat(d.Resolved)
	return err == nil && fi.IsDir()
}

// persistOptions is the persist of d into file, the project's policy file
// the person confirms.
func (c *cli) persistOptions(loaded *decide.Loaded, call grantCall, d decide.Decision, file string) persist.Options {
	access := string(d.Access)
	if d.Access == decide.List {
		access = string(decide.Read)
	}
	// Never into system config, the user's global fence config or
	// picket's own state, nor through a symlink into picket's install
	// directory (a project there by its own name is edited: the
	// executable's directory is often /tmp or ~/bin, which hold projects).
	o := persist.Options{
		Root: persist.ProjectRoot(call.cwd), File: file, Access: access, Path: d.Resolved,
		UserConfigExists: c.userConfigExists(loaded),
		Validate:         validateSource,
		Refuse:           []string{"/etc", loaded.Env.UserConfigDir(), loaded.Env.StateDir()},
	}
	if exe := loaded.Env.Executable; exe != "" {
		o.InstallDir = filepath.Dir(exe)
	}
	return o
}

// takesEffect reports whether an entry persisted into file would be read
// by the policy the call was judged under: file is one of its chain, or,
// when it does not exist yet, the chain starts at the user's fence config
// or a built-in template, which a new project file (extending the one or
// the other) would take the place of. A persist into a project root whose
// subdirectory has its own fence.jsonc, or below a directory whose policy
// the new file would replace, is not offered.
func (c *cli) takesEffect(loaded *decide.Loaded, file string, exists bool) bool {
	start := loaded.Chain[len(loaded.Chain)-1]
	if !exists {
		if strings.HasPrefix(start, "builtin:") {
			return true
		}
		u := userConfigFile(loaded.Env)
		return u != "" && sameFile(u, start)
	}
	for _, f := range loaded.Chain {
		if !strings.HasPrefix(f, "builtin:") && sameFile(f, file) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func (c *cli) userConfigExists(loaded *decide.Loaded) bool { return userConfigFile(loaded.Env) != "" }

// userConfigFile is the user's fence config file, "" when there is none.
func userConfigFile(env decide.Env) string {
	for _, n := range []string{"fence.jsonc", "fence.json"} {
		f := filepath.Join(env.UserConfigDir(), n)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			return f
		}
	}
	return ""
}

// carryOut applies an answer. Anything but an explicit grant is a deny. A
// persist edits target, the policy file the person confirmed, or nothing.
// A call let through is no longer one of the turn's denials.
func (c *cli) carryOut(loaded *decide.Loaded, call grantCall, d decide.Decision, ans tui.Answer, turn grants.TurnState, target string) grantOutcome {
	store := c.grantStore()
	if ans.Grants() {
		if err := store.Granted(call.session, call.turn, denialOf(call, d)); err != nil {
			c.warnf("grant state: %v", err)
		}
	}
	switch ans {
	case tui.AnswerAllowAllOnce:
		// This call passes now; the other calls the batch listed (each an
		// access to a path, as shown) pass once more if the agent retries
		// them in this turn.
		if len(turn.Denied) == 0 { // picket serve's grant op: the batch its decide showed
			turn.Denied, _ = store.Offered(call.session, call.turn, denialOf(call, d))
		}
		if err := store.SetAllowAllOnce(call.session, call.turn, otherDenials(turn.Denied, denialOf(call, d))); err != nil {
			c.warnf("grant state: %v", err)
		}
		return grantOutcome{allow: true, decision: "grant-once", prompted: true}
	case tui.AnswerOnce:
		return grantOutcome{allow: true, decision: "grant-once", prompted: true}
	case tui.AnswerSession:
		if err := store.Add(call.session, grants.Grant{Access: string(d.Access), Path: d.Resolved, At: time.Now()}); err != nil {
			c.warnf("failed to record the session grant: %v", err)
		}
		return grantOutcome{allow: true, decision: "grant-session", prompted: true}
	case tui.AnswerPersist:
		store.Add(call.session, grants.Grant{Access: string(d.Access), Path: d.Resolved, At: time.Now()})
		if err := c.persistGrant(loaded, call, d, target); err != nil {
			c.warnf("persist failed, granted for this session only: %v", err)
			return grantOutcome{allow: true, decision: "grant-session", prompted: true}
		}
		return grantOutcome{allow: true, decision: "grant-persist", prompted: true}
	case tui.AnswerIndividually:
		// picket serve's grant op (the hook asks again itself): later
		// calls of this turn are asked about one by one.
		if err := store.SetIndividually(call.session, call.turn); err != nil {
			c.warnf("grant state: %v", err)
		}
		return grantOutcome{decision: "block", prompted: true, note: "the person chose to answer one by one; retry to be asked about this call alone"}
	case tui.AnswerDenyAll:
		store.SetDenyAll(call.session, call.turn)
		return grantOutcome{decision: "block", prompted: true, note: "the person denied this and every further request this turn"}
	}
	// The person's no outranks an "allow all once" that listed this call.
	if err := store.Refused(call.session, call.turn, denialOf(call, d)); err != nil {
		c.warnf("grant state: %v", err)
	}
	return grantOutcome{decision: "block", prompted: true, note: "the person denied it"}
}

// persistGrant writes the allow entry into target, the project's policy
// file the person confirmed. Only this path, after the person's explicit
// "y", ever edits a policy file.
func (c *cli) persistGrant(loaded *decide.Loaded, call grantCall, d decide.Decision, target string) error {
	// Offered only where an allow entry lifts the block; a persist answer
	// that arrives anyway (picket serve's grant op) must not edit the file.
	if ok, err := decide.WouldAllow(loaded.Policy, decide.Request{Access: d.Access, Path: d.Path, Resolved: d.Resolved, Size: -1}); err != nil || !ok {
		return fmt.Errorf("an allow entry would not lift this block (%s, %s)", d.Layer, d.Rule)
	}
	if file, exists := persist.Target(persist.ProjectRoot(call.cwd)); !c.takesEffect(loaded, file, exists) {
		return fmt.Errorf("an entry in %s would not change the policy in force in %s", file, call.cwd)
	}
	if isDir(d) {
		return fmt.Errorf("%s is a directory: an allow entry would open everything below it", d.Resolved)
	}
	o := c.persistOptions(loaded, call, d, target)
	o.Resolved = call.persistResolved
	res, err := persist.Grant(o)
	if err == nil && !res.AlreadyPresent {
		// Picket's own write, should a sandboxed command be running.
		if terr := sandbox.TrustWrite(loaded.Env.StateDir(), res.Resolved); terr != nil {
			c.warnf("could not record the persist as picket's own: %v", terr)
		}
	}
	return err
}

// validateSource adapts the schema check to persist's callback.
func validateSource(file string, src []byte) error {
	if probs := schema.Validate(file, src); len(probs) > 0 {
		return &decide.ProblemsError{Problems: probs}
	}
	return nil
}

// promptTimeout is the configured prompt timeout, capped at
// [decide.PromptTimeoutCap] so that waiting for the prompt lock, the prompt
// and the answer stays well inside the hook timeout `install` writes: an
// agent that kills a waiting hook fails open.
func promptTimeout(configured int) int {
	return min(cmpOr(configured, defaultPromptTimeout), decide.PromptTimeoutCap)
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// grantEntry is the audit line for an answered or unanswered block.
func grantEntry(e audit.Entry, o grantOutcome) audit.Entry {
	e.Decision, e.Prompted = o.decision, o.prompted
	return e
}

// denialOf is the call's denial as a turn records it: a grant is exactly
// {access, resolved path}, so that is what a batch lists and lets through.
func denialOf(call grantCall, d decide.Decision) grants.Denial {
	return grants.Denial{Access: string(d.Access), Path: d.Resolved, Tool: call.tool}
}

// otherDenials is denials without the one for the same access and path as x.
func otherDenials(denials []grants.Denial, x grants.Denial) []grants.Denial {
	var out []grants.Denial
	for _, d := range denials {
		if d.Access != x.Access || d.Path != x.Path {
			out = append(out, d)
		}
	}
	return out
}
