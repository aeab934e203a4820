package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/persist"
	"github.com/picketdev/picket/schema"
	"github.com/picketdev/picket/tui"
)

// Prompter asks the person at a terminal about a block (see package
// tui): Context bounds one prompt (its timeout and a margin, and in the
// hook a signal that ends it), Surface is where it is shown under a
// policy's picket.prompt settings.
type Prompter interface {
	Context(req tui.Request) (context.Context, context.CancelFunc)
	Surface(loaded *decide.Loaded) Surface
}

// Surface shows prompts one at a time: Lock takes the prompt lock (one
// prompt on screen per person), AskLocked asks with it held. tui.Asker is
// one.
type Surface interface {
	Lock(ctx context.Context) (unlock func(), err error)
	AskLocked(ctx context.Context, r tui.Request) (tui.Answer, string, error)
}

// Persist is the policy file a persist answer writes, as the person was
// shown it (File) and as it resolved then (Resolved): a persist writes
// there or nowhere.
type Persist struct{ File, Resolved string }

func (p *Pipeline) trustWrite(file string) error {
	if p.TrustWrite == nil {
		return nil
	}
	return p.TrustWrite(file)
}

// Prompt defaults; picket.prompt overrides them.
const (
	defaultPromptTimeout = 60
	defaultBatchAfter    = 3
	coalesceWindow       = 200 * time.Millisecond
	// PromptMargin is the time a prompt's context allows beyond its
	// timeout: for the prompt lock and the answer.
	PromptMargin = 10 * time.Second
)

// Outcome is what a person's answer (or its absence) means for a call.
type Outcome struct {
	Allow    bool
	Decision string // the audit decision
	Prompted bool
	Note     string // appended to the block reason, e.g. why no prompt was shown
}

// NoOne reports whether no person can be asked about a block: CI or
// --headless (Headless), or the policy turned the prompt off. Where the
// person is asked (the hook's own terminal, or picket serve's extension)
// is the caller's.
func (p *Pipeline) NoOne(loaded *decide.Loaded) bool {
	return p.Headless || loaded.Settings.Prompt.Surface == tui.SurfaceOff
}

// mayAsk reports whether block d of a call in session may be put to a
// person at all: it is grantable, the hook is not headless, the call has
// a session.
func (p *Pipeline) MayAsk(loaded *decide.Loaded, session string, d decide.Decision) bool {
	return d.Grantable() && !p.NoOne(loaded) && session != ""
}

// askGrant turns a grantable block into a question for the person, when one
// can be reached, and carries out the answer: a session grant, or a
// persisted allow entry after the person's explicit confirmation.
func (p *Pipeline) AskGrant(loaded *decide.Loaded, call Call, d decide.Decision) Outcome {
	turn, final, ok := p.Promptable(loaded, call, d)
	if !ok {
		return final
	}
	if p.Prompter == nil {
		return Outcome{Decision: "block"}
	}
	req := p.PromptRequest(loaded, call, d, turn)
	arrived := time.Now()
	ans, surface, err := p.ask(loaded, call, d, req, arrived)
	if surface == "" && err != nil {
		return Outcome{Decision: "block"} // no surface: headless
	}
	if err != nil {
		p.warnf("prompt: %v", err)
	}
	if surface == "coalesced" && ans == tui.AnswerAllowAllOnce {
		// The batch the person answered was another request's; its answer
		// already let that batch through. This call passes, and its own
		// snapshot of the turn (which may hold calls the person never saw)
		// is not made to.
		ans = tui.AnswerOnce
	}
	return p.CarryOut(loaded, call, d, ans, turn, Persist{File: req.PersistTarget, Resolved: req.PersistResolved})
}

// promptable reports whether a block may be put to a person: it is
// grantable, someone can be asked, and the person has not denied all of
// this turn. On the way it notes the denial for batch limiting. When it
// returns false, final is the block's outcome. `picket hook` and `picket
// serve` both go through here, so a turn is limited the same way by either.
func (p *Pipeline) Promptable(loaded *decide.Loaded, call Call, d decide.Decision) (turn grants.TurnState, final Outcome, ok bool) {
	if !p.MayAsk(loaded, call.Session, d) {
		return turn, Outcome{Decision: "block"}, false
	}
	batchAfter := cmpOr(loaded.Settings.Prompt.BatchAfter, defaultBatchAfter)
	turn, err := p.Grants.NoteDenial(call.Session, call.Turn, DenialOf(call, d), batchAfter)
	if err != nil {
		p.warnf("grant state: %v", err)
		return turn, Outcome{Decision: "block"}, false
	}
	if turn.AllowedOnce {
		return turn, Outcome{Allow: true, Decision: "grant-once", Prompted: true}, false
	}
	if turn.DenyAll {
		return turn, Outcome{Decision: "block", Note: "the person chose to deny all further requests this turn"}, false
	}
	return turn, Outcome{}, true
}

// ask shows the prompt, unless an identical request got an answer within
// the coalescing window. The answer is looked up and recorded under the
// prompt lock, so a request queued behind an identical one takes its answer
// instead of prompting again. A batch answered "one by one" switches the
// turn to single prompts and asks about this call at once.
func (p *Pipeline) ask(loaded *decide.Loaded, call Call, d decide.Decision, req tui.Request, arrived time.Time) (tui.Answer, string, error) {
	ctx, cancel := p.Prompter.Context(req)
	defer cancel()
	store := p.Grants
	asker := p.Prompter.Surface(loaded)
	unlock, err := asker.Lock(ctx)
	if err != nil {
		return tui.AnswerDeny, "", err
	}
	defer unlock()
	if prev, ok, _ := store.Coalesce(call.Session, string(d.Access), d.Resolved, arrived, coalesceWindow); ok {
		return tui.Answer(prev), "coalesced", nil
	}
	ans, surface, err := asker.AskLocked(ctx, req)
	if ans == tui.AnswerIndividually && err == nil {
		if err := store.SetIndividually(call.Session, call.Turn); err != nil {
			p.warnf("grant state: %v", err)
		}
		req.Batch = nil
		// A prompt of its own, but within the time left of this one: a
		// fresh timeout would keep the hook waiting past the hook timeout
		// `picket install` writes, and an agent that kills a waiting hook
		// lets the call through.
		left := 0
		if dl, ok := ctx.Deadline(); ok {
			left = int((time.Until(dl) - PromptMargin) / time.Second)
		}
		if req.TimeoutSeconds = min(req.TimeoutSeconds, left); req.TimeoutSeconds <= 0 {
			return tui.AnswerDeny, surface, errors.New("no time left to ask about this call alone")
		}
		ans, surface, err = asker.AskLocked(ctx, req)
	}
	if surface != "" {
		store.RecordAnswer(call.Session, string(d.Access), d.Resolved, string(ans), arrived)
	}
	return ans, surface, err
}

func (p *Pipeline) PromptRequest(loaded *decide.Loaded, call Call, d decide.Decision, turn grants.TurnState) tui.Request {
	req := tui.Request{
		Agent: call.Agent, Session: call.Session, Cwd: call.Cwd, Tool: call.Tool, Access: string(d.Access),
		Path: d.Path, Resolved: d.Resolved, Layer: string(d.Layer), Rule: d.Rule, Pattern: d.Pattern, Source: d.Source,
		TimeoutSeconds: promptTimeout(loaded.Settings.Prompt.TimeoutSeconds),
	}
	p.offerPersist(&req, loaded, call, d)
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
func (p *Pipeline) offerPersist(req *tui.Request, loaded *decide.Loaded, call Call, d decide.Decision) {
	if ok, err := decide.WouldAllow(loaded.Policy, decide.Request{Access: d.Access, Path: d.Path, Resolved: d.Resolved, Size: -1}); err != nil || !ok {
		return
	}
	file, exists := persist.Target(persist.ProjectRoot(call.Cwd))
	if !p.takesEffect(loaded, file, exists) {
		return
	}
	if isDir(d) {
		// Under fence semantics an allow entry for a directory opens its
		// whole subtree, in every later session; a grant is one exact path.
		req.PersistNote = "persist is not offered for a directory: an allow entry for it would open everything below it in every later session"
		return
	}
	res, err := persist.Check(p.persistOptions(loaded, call, d, file))
	if err != nil {
		req.PersistNote = "persist is not offered: " + err.Error()
		return
	}
	req.CanPersist, req.PersistTarget, req.PersistCreates = true, file, !exists
	req.PersistResolved = res.Resolved
	req.PersistExtends = "code"
	if p.userConfigExists(loaded) {
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
func (p *Pipeline) persistOptions(loaded *decide.Loaded, call Call, d decide.Decision, file string) persist.Options {
	access := string(d.Access)
	if d.Access == decide.List {
		access = string(decide.Read)
	}
	// Never into system config, the user's global fence config or
	// picket's own state, nor through a symlink into picket's install
	// directory (a project there by its own name is edited: the
	// executable's directory is often /tmp or ~/bin, which hold projects).
	o := persist.Options{
		Root: persist.ProjectRoot(call.Cwd), File: file, Access: access, Path: d.Resolved,
		UserConfigExists: p.userConfigExists(loaded),
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
func (p *Pipeline) takesEffect(loaded *decide.Loaded, file string, exists bool) bool {
	start := loaded.Chain[len(loaded.Chain)-1]
	if !exists {
		if strings.HasPrefix(start, "builtin:") {
			return true
		}
		u := UserConfigFile(loaded.Env)
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

func (p *Pipeline) userConfigExists(loaded *decide.Loaded) bool {
	return UserConfigFile(loaded.Env) != ""
}

// UserConfigFile is the user's fence config file, "" when there is none.
func UserConfigFile(env decide.Env) string {
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
func (p *Pipeline) CarryOut(loaded *decide.Loaded, call Call, d decide.Decision, ans tui.Answer, turn grants.TurnState, target Persist) Outcome {
	store := p.Grants
	if ans.Grants() {
		if err := store.Granted(call.Session, call.Turn, DenialOf(call, d)); err != nil {
			p.warnf("grant state: %v", err)
		}
	}
	switch ans {
	case tui.AnswerAllowAllOnce:
		// This call passes now; the other calls the batch listed (each an
		// access to a path, as shown) pass once more if the agent retries
		// them in this turn.
		if len(turn.Denied) == 0 { // picket serve's grant op: the batch its decide showed
			turn.Denied, _ = store.Offered(call.Session, call.Turn, DenialOf(call, d))
		}
		if err := store.SetAllowAllOnce(call.Session, call.Turn, otherDenials(turn.Denied, DenialOf(call, d))); err != nil {
			p.warnf("grant state: %v", err)
		}
		return Outcome{Allow: true, Decision: "grant-once", Prompted: true}
	case tui.AnswerOnce:
		return Outcome{Allow: true, Decision: "grant-once", Prompted: true}
	case tui.AnswerSession:
		if err := store.Add(call.Session, grants.Grant{Access: string(d.Access), Path: d.Resolved, At: time.Now()}); err != nil {
			p.warnf("failed to record the session grant: %v", err)
		}
		return Outcome{Allow: true, Decision: "grant-session", Prompted: true}
	case tui.AnswerPersist:
		store.Add(call.Session, grants.Grant{Access: string(d.Access), Path: d.Resolved, At: time.Now()})
		if err := p.persistGrant(loaded, call, d, target); err != nil {
			p.warnf("persist failed, granted for this session only: %v", err)
			return Outcome{Allow: true, Decision: "grant-session", Prompted: true}
		}
		return Outcome{Allow: true, Decision: "grant-persist", Prompted: true}
	case tui.AnswerIndividually:
		// picket serve's grant op (the hook asks again itself): later
		// calls of this turn are asked about one by one.
		if err := store.SetIndividually(call.Session, call.Turn); err != nil {
			p.warnf("grant state: %v", err)
		}
		return Outcome{Decision: "block", Prompted: true, Note: "the person chose to answer one by one; retry to be asked about this call alone"}
	case tui.AnswerDenyAll:
		store.SetDenyAll(call.Session, call.Turn)
		return Outcome{Decision: "block", Prompted: true, Note: "the person denied this and every further request this turn"}
	}
	// The person's no outranks an "allow all once" that listed this call.
	if err := store.Refused(call.Session, call.Turn, DenialOf(call, d)); err != nil {
		p.warnf("grant state: %v", err)
	}
	return Outcome{Decision: "block", Prompted: true, Note: "the person denied it"}
}

// persistGrant writes the allow entry into target, the project's policy
// file the person confirmed. Only this path, after the person's explicit
// "y", ever edits a policy file.
func (p *Pipeline) persistGrant(loaded *decide.Loaded, call Call, d decide.Decision, target Persist) error {
	// Offered only where an allow entry lifts the block; a persist answer
	// that arrives anyway (picket serve's grant op) must not edit the file.
	if ok, err := decide.WouldAllow(loaded.Policy, decide.Request{Access: d.Access, Path: d.Path, Resolved: d.Resolved, Size: -1}); err != nil || !ok {
		return fmt.Errorf("an allow entry would not lift this block (%s, %s)", d.Layer, d.Rule)
	}
	if file, exists := persist.Target(persist.ProjectRoot(call.Cwd)); !p.takesEffect(loaded, file, exists) {
		return fmt.Errorf("an entry in %s would not change the policy in force in %s", file, call.Cwd)
	}
	if isDir(d) {
		return fmt.Errorf("%s is a directory: an allow entry would open everything below it", d.Resolved)
	}
	o := p.persistOptions(loaded, call, d, target.File)
	o.Resolved = target.Resolved
	res, err := persist.Grant(o)
	if err == nil && !res.AlreadyPresent {
		// Picket's own write, should a sandboxed command be running.
		if terr := p.trustWrite(res.Resolved); terr != nil {
			p.warnf("could not record the persist as picket's own: %v", terr)
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

// GrantEntry is the audit line for an answered or unanswered block.
func GrantEntry(e audit.Entry, o Outcome) audit.Entry {
	e.Decision, e.Prompted = o.Decision, o.Prompted
	return e
}

// denialOf is the call's denial as a turn records it: a grant is exactly
// {access, resolved path}, so that is what a batch lists and lets through.
func DenialOf(call Call, d decide.Decision) grants.Denial {
	return grants.Denial{Access: string(d.Access), Path: d.Resolved, Tool: call.Tool}
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
