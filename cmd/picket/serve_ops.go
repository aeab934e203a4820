package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/lint"
	"github.com/picketdev/picket/sandbox"
	"github.com/picketdev/picket/tui"
)

// serveOps maps each operation to its handler. A handler's error is the
// request's error response; a decision, deny included, is a result.
var serveOps = map[string]func(s *server, r *request) (any, error){
	"hello":       (*server).hello,
	"decide":      (*server).decide,
	"grant":       (*server).grant,
	"tool_result": (*server).toolResult,
	"turn_end":    (*server).turnEnd,
	"session_end": (*server).sessionEnd,
	"mode":        (*server).mode,
	"reload":      (*server).reload,
	"show":        (*server).show,
	"lint":        (*server).lint,
	"log":         (*server).log,
	"status":      (*server).status,
}

type empty struct{}

func (s *server) hello(*request) (any, error) {
	return struct {
		Picket   string `json:"picket"`
		Protocol int    `json:"protocol"`
	}{picketVersion(), protocolVersion}, nil
}

// decideResult answers decide. Judged false means the tool is not a file
// tool: let it through.
type decideResult struct {
	Judged         bool             `json:"judged"`
	Allow          bool             `json:"allow"`
	Decision       *decide.Decision `json:"decision,omitempty"`
	Message        string           `json:"message,omitempty"`
	Grantable      bool             `json:"grantable"`
	Promptable     bool             `json:"promptable"`
	CanPersist     bool             `json:"canPersist"`
	PersistTarget  string           `json:"persistTarget,omitempty"`
	PersistCreates bool             `json:"persistCreates"`
	PersistExtends string           `json:"persistExtends,omitempty"`
	Batch          bool             `json:"batch"`
	BatchPaths     []string         `json:"batchPaths,omitempty"`
	Request        *tui.Request     `json:"request,omitempty"`
}

// decideAllow answers a decide that lets the call through: judged false
// for a tool picket does not judge, else the decision. The fields about
// lifting a block are left out; a client reads them as false.
type decideAllow struct {
	Judged   bool             `json:"judged"`
	Allow    bool             `json:"allow"`
	Decision *decide.Decision `json:"decision,omitempty"`
}

// decide judges one tool call the way `picket hook` does. A block that a
// person may lift (promptable) is not audited here: the grant op audits it
// with the person's answer. Any other block is audited now.
func (s *server) decide(r *request) (any, error) {
	call := hook.Call{Agent: s.agent, Session: r.Session, Turn: string(r.Turn), Cwd: r.Cwd, Tool: r.Tool, Input: r.Input}
	targets, terr := hook.Targets(call)
	if errors.Is(terr, hook.ErrNotJudged) {
		return decideAllow{Allow: true}, nil
	}
	c := s.c
	if !r.Prompt {
		c = s.noAsk
	}
	loaded, err := s.policy(r.Cwd)
	v := c.judgeCall(loaded, err, call, targets, terr)
	res := decideResult{Judged: true}
	switch {
	case v.err != nil:
		res.Message = hook.ErrorMessage(r.Tool, v.err)
		return res, nil
	case v.d.Allow:
		return decideAllow{Judged: true, Allow: true, Decision: &v.d}, nil
	}
	res.Decision, res.Grantable = &v.d, v.d.Grantable()
	gc := grantCallOf(call)
	turn, final, ok := c.promptable(loaded, gc, v.d)
	if !ok {
		c.audit(loaded, grantEntry(v.entry, final))
		if final.allow { // the person's "allow all once" covered this path
			res.Allow = true
			return res, nil
		}
		d := v.d
		if final.note != "" {
			d.Reason = joinReason(d.Reason, final.note)
		}
		res.Message = hook.BlockMessage(r.Tool, d)
		return res, nil
	}
	req := c.promptRequest(loaded, gc, v.d, turn)
	res.Message = hook.BlockMessage(r.Tool, v.d)
	res.Promptable, res.Request = true, &req
	res.CanPersist, res.PersistTarget, res.PersistCreates, res.PersistExtends = req.CanPersist, req.PersistTarget, req.PersistCreates, req.PersistExtends
	res.Batch = turn.Batch
	if turn.Batch {
		res.BatchPaths = turn.Paths()
		// The grant op comes later, with other denials noted meanwhile:
		// an "allow all once" must cover what this batch showed.
		if err := c.grantStore().Offer(gc.session, gc.turn, denialOf(gc, v.d), turn.Denied); err != nil {
			c.warnf("grant state: %v", err)
		}
	}
	return res, nil
}

// grant carries out a person's answer to a promptable block, as the hook
// does after its own prompt. With restore it only re-adds a session grant
// the extension kept in Pi's session (no audit, no persist).
func (s *server) grant(r *request) (any, error) {
	type result struct {
		Allow    bool   `json:"allow"`
		Decision string `json:"decision"`
		Message  string `json:"message,omitempty"`
	}
	access, err := decide.ParseAccess(r.Access)
	if err != nil {
		return nil, err
	}
	if r.Session == "" {
		return nil, errors.New("grant needs a session")
	}
	if !filepath.IsAbs(r.Resolved) || filepath.Clean(r.Resolved) != r.Resolved {
		return nil, fmt.Errorf("resolved %q is not an absolute clean path", r.Resolved)
	}
	if r.Restore {
		headless := s.c.noPrompt || s.c.getenv("CI") != ""
		if loaded, err := s.policy(r.Cwd); err == nil {
			headless = s.c.headless(loaded)
		}
		if headless {
			return nil, errors.New("no grant here: picket is headless (CI is set, --headless, or the prompt surface is off), where every block is final")
		}
		g := grants.Grant{Access: string(access), Path: r.Resolved}
		if err := s.c.grantStore().Add(r.Session, g); err != nil {
			return nil, err
		}
		return result{Allow: true, Decision: "grant-session"}, nil
	}
	ans := tui.Answer(r.Answer)
	switch ans {
	case tui.AnswerDeny, tui.AnswerOnce, tui.AnswerSession, tui.AnswerPersist,
		tui.AnswerDenyAll, tui.AnswerAllowAllOnce, tui.AnswerIndividually:
	default:
		return nil, fmt.Errorf("unknown answer %q", r.Answer)
	}
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	if s.c.headless(loaded) && ans.Grants() {
		return nil, errors.New("no grant here: picket is headless (CI is set, --headless, or the prompt surface is off), where every block is final")
	}
	path := r.Path
	if path == "" {
		path = r.Resolved
	}
	policy := loaded.Policy
	if m := s.c.sessionMode(r.Session); m != "" {
		policy = policy.WithMode(m)
	}
	// Decide again, without the grant: the audit line names the rule the
	// person lifted, and nothing but a grantable block can be lifted.
	d := decide.Decide(policy, decide.Request{Access: access, Path: path, Resolved: r.Resolved, Size: -1})
	if !d.Allow && !d.Grantable() {
		return nil, fmt.Errorf("%s %s is denied by %s (%s), which no grant lifts", access, r.Resolved, d.Layer, d.Rule)
	}
	call := grantCall{agent: s.agent, session: r.Session, turn: string(r.Turn), cwd: r.Cwd, tool: r.Tool}
	out := s.c.carryOut(loaded, call, d, ans, grants.TurnState{}, r.Target)
	entry := audit.Entry{Session: r.Session, Agent: s.agent, Tool: r.Tool}
	fillEntry(&entry, d)
	s.c.audit(loaded, grantEntry(entry, out))
	res := result{Allow: out.allow, Decision: out.decision}
	if !out.allow {
		d.Reason = joinReason(d.Reason, out.note)
		res.Message = hook.BlockMessage(r.Tool, d)
	}
	return res, nil
}

// toolResult keeps the read-before-edit ledger after a file tool ran, as
// the hook does on PostToolUse.
func (s *server) toolResult(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	call := hook.Call{Agent: s.agent, Session: r.Session, Cwd: r.Cwd, Tool: r.Tool, Input: r.Input}
	s.c.noteSeen(loaded, call)
	return empty{}, nil
}

func (s *server) turnEnd(r *request) (any, error) {
	if r.Session == "" {
		return nil, errors.New("turn_end needs a session")
	}
	return empty{}, s.c.grantStore().ResetTurn(r.Session)
}

func (s *server) sessionEnd(r *request) (any, error) {
	if r.Session == "" {
		return nil, errors.New("session_end needs a session")
	}
	s.modes.set(r.Session, "")
	err := errors.Join(s.c.grantStore().End(r.Session), s.c.ledger().End(r.Session))
	return empty{}, err
}

// mode switches one session's mode, in memory only.
func (s *server) mode(r *request) (any, error) {
	if r.Session == "" {
		return nil, errors.New("mode needs a session")
	}
	m, err := decide.ParseMode(r.Mode)
	if err != nil || r.Mode == "" {
		return nil, fmt.Errorf("unknown mode %q (want read-only, workspace-write or full)", r.Mode)
	}
	s.modes.set(r.Session, m)
	return struct {
		Mode decide.Mode `json:"mode"`
	}{m}, nil
}

func (s *server) reload(r *request) (any, error) {
	s.cache.drop(r.Cwd)
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	return struct {
		Chain []string `json:"chain"`
	}{loaded.Chain}, nil
}

func (s *server) show(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	out := showOf(loaded, s.sandboxStatus(), s.c.tempDir(loaded))
	if m := s.c.sessionMode(r.Session); m != "" {
		out.Mode = m
	}
	return out, nil
}

func (s *server) lint(r *request) (any, error) {
	type warning struct {
		lint.Warning
		Text string `json:"text"`
	}
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	ws := []warning{}
	for _, w := range lint.Run(loaded) {
		ws = append(ws, warning{w, w.String()})
	}
	// What the shell sandbox cannot enforce, as picket lint prints it.
	type note struct {
		Kind string `json:"kind"`
		sandbox.Note
		Text string `json:"text"`
	}
	notes := []note{}
	for _, n := range sandbox.FileToolsOnly(loaded) {
		notes = append(notes, note{noteKind(n), n, noteLine(n)})
	}
	return struct {
		Warnings []warning `json:"warnings"`
		Notes    []note    `json:"notes"`
	}{ws, notes}, nil
}

// log returns the last n audit entries (20 by default) as logged, from the
// audit log of cwd's policy (or the default one).
func (s *server) log(r *request) (any, error) {
	var loaded *decide.Loaded
	if r.Cwd != "" {
		loaded, _ = s.policy(r.Cwd)
	}
	n := r.N
	if n == 0 {
		n = 20
	}
	recs, err := audit.Tail(s.c.auditFile(loaded), n, audit.Filter{Session: r.Session, Decision: r.Decision})
	if err != nil {
		return nil, err
	}
	entries := make([]rawJSON, len(recs))
	for i, rec := range recs {
		entries[i] = rec.Raw
	}
	return struct {
		Entries []rawJSON `json:"entries"`
	}{entries}, nil
}

// rawJSON is an audit line passed through as it was written.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

func (s *server) status(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	mode := loaded.Policy.Mode()
	if m := s.c.sessionMode(r.Session); m != "" {
		mode = m
	}
	st := s.sandboxStatus()
	return struct {
		Chain    []string    `json:"chain"`
		Root     string      `json:"root"`
		Mode     decide.Mode `json:"mode"`
		Sandbox  bool        `json:"sandbox"`
		Landlock int         `json:"landlock"` // the ABI the shell sandbox's second layer uses, 0 when none
		Shell    string      `json:"shell"`    // the sandbox's status line, as picket show says it
	}{loaded.Chain, loaded.Policy.Spec().Root, mode, st.Works(), st.Landlock, st.String()}, nil
}

// sandboxProbe holds one sidecar's answer to whether the sandbox works.
type sandboxProbe struct {
	once   sync.Once
	status sandbox.Status
}

// shellSandboxWorks reports whether `picket run` can fence a shell command
// here: bubblewrap in the sidecar's PATH, and a user namespace it could
// create (the probe picket run honours, too). Pi wraps its bash tool only
// when it does. Probed once per sidecar: it runs bubblewrap.
func (s *server) shellSandboxWorks() bool { return s.sandboxStatus().Works() }

// sandboxStatus is the sidecar's one probe of the shell sandbox.
func (s *server) sandboxStatus() sandbox.Status {
	s.sandbox.once.Do(func() { s.sandbox.status = s.c.sandboxStatus() })
	return s.sandbox.status
}

// policy is the cached policy for cwd, reloaded when its files change.
func (s *server) policy(cwd string) (*decide.Loaded, error) {
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	return s.cache.get(filepath.Clean(cwd))
}

// sessionModes holds the modes sessions switched to.
type sessionModes struct {
	mu sync.RWMutex
	m  map[string]decide.Mode
}

func (sm *sessionModes) get(session string) decide.Mode {
	sm.mu.RLock()
	defer sm.mu.RUnlock()
	return sm.m[session]
}

func (sm *sessionModes) set(session string, m decide.Mode) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if m == "" {
		delete(sm.m, session)
		return
	}
	if sm.m == nil {
		sm.m = map[string]decide.Mode{}
	}
	sm.m[session] = m
}
