package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/sandbox"
	"github.com/picketdev/picket/tui"
)

// op is the handler of the operation name, or nil. A handler's error is
// the request's error response; a decision, deny included, is a result.
// A switch, not a map: nothing is built at start-up.
func op(name string) func(s *Server, r *request) (any, error) {
	switch name {
	case "hello":
		return (*Server).hello
	case "decide":
		return (*Server).decide
	case "grant":
		return (*Server).grant
	case "tool_result":
		return (*Server).toolResult
	case "turn_end":
		return (*Server).turnEnd
	case "session_end":
		return (*Server).sessionEnd
	case "mode":
		return (*Server).mode
	case "reload":
		return (*Server).reload
	case "show":
		return (*Server).show
	case "lint":
		return (*Server).lint
	case "log":
		return (*Server).log
	case "status":
		return (*Server).status
	case "announce":
		return (*Server).announce
	}
	return nil
}

// ops are the operations op knows, for the protocol's page.
var ops = [...]string{"hello", "decide", "grant", "tool_result", "turn_end", "session_end", "mode", "reload", "show", "lint", "log", "status", "announce"}

type empty struct{}

func (s *Server) hello(*request) (any, error) {
	return struct {
		Picket   string `json:"picket"`
		Protocol int    `json:"protocol"`
	}{s.cfg.Version, ProtocolVersion}, nil
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
// with the person's answer. Any other block is audited now. With ask, the
// sidecar asks the person itself, as picket hook does, and answers with
// the outcome.
func (s *Server) decide(r *request) (any, error) {
	if r.Prompt && r.Ask {
		return nil, errors.New("decide takes prompt (the extension asks) or ask (picket asks), not both")
	}
	call := hook.Call{Agent: s.pipe.Agent.Name, Session: r.Session, Turn: string(r.Turn), Cwd: r.Cwd, Tool: r.Tool, Input: r.Input}
	targets, terr := s.pipe.Agent.Targets(call)
	if errors.Is(terr, hook.ErrNotJudged) {
		return decideAllow{Allow: true}, nil
	}
	p := &s.pipe
	if !r.Prompt && !r.Ask {
		p = &s.noAsk
	}
	loaded, err := s.policy(r.Cwd)
	v := p.Judge(loaded, err, call, targets, terr)
	res := decideResult{Judged: true}
	switch {
	case v.Err != nil:
		res.Message = hook.ErrorMessage(r.Tool, v.Err)
		return res, nil
	case v.Decision.Allow:
		return decideAllow{Judged: true, Allow: true, Decision: &v.Decision}, nil
	case r.Ask:
		return asked(p, loaded, call, v), nil
	}
	res.Decision, res.Grantable = &v.Decision, v.Decision.Grantable()
	turn, final, ok := p.Promptable(loaded, call, v.Decision)
	if !ok {
		p.Audit.Append(loaded, hook.GrantEntry(v.Entry, final))
		if final.Allow { // the person's "allow all once" covered this path
			res.Allow = true
			return res, nil
		}
		d := v.Decision
		if final.Note != "" {
			d.Reason = hook.JoinReason(d.Reason, final.Note)
		}
		res.Message = hook.BlockMessage(r.Tool, d)
		return res, nil
	}
	req := p.PromptRequest(loaded, call, v.Decision, turn)
	res.Message = hook.BlockMessage(r.Tool, v.Decision)
	res.Promptable, res.Request = true, &req
	res.CanPersist, res.PersistTarget, res.PersistCreates, res.PersistExtends = req.CanPersist, req.PersistTarget, req.PersistCreates, req.PersistExtends
	res.Batch = turn.Batch
	if turn.Batch {
		res.BatchPaths = turn.Paths()
		// The grant op comes later, with other denials noted meanwhile:
		// an "allow all once" must cover what this batch showed.
		if err := p.Grants.Offer(call.Session, call.Turn, hook.DenialOf(call, v.Decision), turn.Denied); err != nil {
			p.Warn("grant state: %v", err)
		}
	}
	return res, nil
}

// asked puts a block to the person on picket's own surfaces (a tmux popup,
// picket console; never the agent's terminal, which the agent reads), as
// picket hook does, audits the outcome and answers with it. A call let
// through carries the decision the person lifted.
func asked(p *hook.Pipeline, loaded *decide.Loaded, call hook.Call, v hook.Verdict) any {
	out := p.AskGrant(loaded, call, v.Decision)
	p.Audit.Append(loaded, hook.GrantEntry(v.Entry, out))
	if out.Allow {
		return decideAllow{Judged: true, Allow: true, Decision: &v.Decision}
	}
	d := v.Decision
	if out.Note != "" {
		d.Reason = hook.JoinReason(d.Reason, out.Note)
	}
	return decideResult{Judged: true, Decision: &v.Decision, Message: hook.BlockMessage(call.Tool, d), Grantable: v.Decision.Grantable()}
}

// grant carries out a person's answer to a promptable block, as the hook
// does after its own prompt. With restore it only re-adds a session grant
// the extension kept in Pi's session (no audit, no persist).
func (s *Server) grant(r *request) (any, error) {
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
		headless := s.pipe.Headless
		if loaded, err := s.policy(r.Cwd); err == nil {
			headless = s.pipe.NoOne(loaded)
		}
		if headless {
			return nil, errors.New("no grant here: picket is headless (CI is set, --headless, or the prompt surface is off), where every block is final")
		}
		g := grants.Grant{Access: string(access), Path: r.Resolved}
		if err := s.pipe.Grants.Add(r.Session, g); err != nil {
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
	if s.pipe.NoOne(loaded) && ans.Grants() {
		return nil, errors.New("no grant here: picket is headless (CI is set, --headless, or the prompt surface is off), where every block is final")
	}
	path := r.Path
	if path == "" {
		path = r.Resolved
	}
	policy := loaded.Policy
	if m := s.modes.get(r.Session); m != "" {
		policy = policy.WithMode(m)
	}
	// Decide again, without the grant: the audit line names the rule the
	// person lifted, and nothing but a grantable block can be lifted.
	d := decide.Decide(policy, decide.Request{Access: access, Path: path, Resolved: r.Resolved, Size: -1})
	if !d.Allow && !d.Grantable() {
		return nil, fmt.Errorf("%s %s is denied by %s (%s), which no grant lifts", access, r.Resolved, d.Layer, d.Rule)
	}
	call := hook.Call{Agent: s.pipe.Agent.Name, Session: r.Session, Turn: string(r.Turn), Cwd: r.Cwd, Tool: r.Tool}
	out := s.pipe.CarryOut(loaded, call, d, ans, grants.TurnState{}, hook.Persist{File: r.Target})
	entry := audit.Entry{Session: r.Session, Agent: s.pipe.Agent.Name, Tool: r.Tool}
	hook.FillEntry(&entry, d)
	s.pipe.Audit.Append(loaded, hook.GrantEntry(entry, out))
	res := result{Allow: out.Allow, Decision: out.Decision}
	if !out.Allow {
		d.Reason = hook.JoinReason(d.Reason, out.Note)
		res.Message = hook.BlockMessage(r.Tool, d)
	}
	return res, nil
}

// toolResult keeps the read-before-edit ledger after a file tool ran, as
// the hook does on PostToolUse.
func (s *Server) toolResult(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	call := hook.Call{Agent: s.pipe.Agent.Name, Session: r.Session, Cwd: r.Cwd, Tool: r.Tool, Input: r.Input}
	s.pipe.Seen(loaded, call)
	return empty{}, nil
}

func (s *Server) turnEnd(r *request) (any, error) {
	if r.Session == "" {
		return nil, errors.New("turn_end needs a session")
	}
	return empty{}, s.pipe.Grants.ResetTurn(r.Session)
}

func (s *Server) sessionEnd(r *request) (any, error) {
	if r.Session == "" {
		return nil, errors.New("session_end needs a session")
	}
	s.modes.set(r.Session, "")
	err := errors.Join(s.pipe.Grants.End(r.Session), s.pipe.Ledger().End(r.Session))
	return empty{}, err
}

// mode switches one session's mode, in memory only.
func (s *Server) mode(r *request) (any, error) {
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

func (s *Server) reload(r *request) (any, error) {
	s.cache.drop(r.Cwd)
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	return struct {
		Chain []string `json:"chain"`
	}{loaded.Chain}, nil
}

func (s *Server) show(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	return s.cfg.Show(loaded, s.sandboxStatus(), s.modes.get(r.Session)), nil
}

func (s *Server) lint(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	return s.cfg.Lint(loaded), nil
}

// log returns the last n audit entries (20 by default) as logged, from the
// audit log of cwd's policy (or the default one).
func (s *Server) log(r *request) (any, error) {
	var loaded *decide.Loaded
	if r.Cwd != "" {
		loaded, _ = s.policy(r.Cwd)
	}
	n := r.N
	if n == 0 {
		n = 20
	}
	recs, err := audit.Tail(s.cfg.Audit.File(loaded), n, audit.Filter{Session: r.Session, Decision: r.Decision})
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

func (s *Server) status(r *request) (any, error) {
	loaded, err := s.policy(r.Cwd)
	if err != nil {
		return nil, err
	}
	mode := loaded.Policy.Mode()
	if m := s.modes.get(r.Session); m != "" {
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

// announce records that an agent's plugin loaded (see
// [hook.Announcement]): what picket doctor reads to tell a plugin the agent
// loaded from one it skipped without a word.
func (s *Server) announce(r *request) (any, error) {
	var p struct {
		File     string `json:"file"`
		Version  string `json:"version"`
		SHA256   string `json:"sha256"`
		Worktree string `json:"worktree"`
	}
	if raw, err := json.Marshal(r.Plugin); err != nil || json.Unmarshal(raw, &p) != nil {
		return nil, errors.New("announce: plugin is not an object of strings")
	}
	if !filepath.IsAbs(r.Cwd) || !filepath.IsAbs(p.File) || p.Version == "" {
		return nil, errors.New("announce needs an absolute cwd, and the plugin's absolute file and version")
	}
	now := time.Now
	if s.cfg.Now != nil {
		now = s.cfg.Now
	}
	a := hook.Announcement{Agent: s.pipe.Agent.Name, Plugin: p.File, Version: p.Version, SHA256: p.SHA256,
		Directory: r.Cwd, Worktree: p.Worktree, Picket: s.cfg.Version, PID: os.Getppid(), Time: now().UTC()}
	return empty{}, hook.WriteAnnouncement(s.pipe.StateDir, a)
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
func (s *Server) shellSandboxWorks() bool { return s.sandboxStatus().Works() }

// sandboxStatus is the sidecar's one probe of the shell sandbox.
func (s *Server) sandboxStatus() sandbox.Status {
	s.sbox.once.Do(func() { s.sbox.status = s.cfg.Sandbox() })
	return s.sbox.status
}

// policy is the cached policy for cwd, reloaded when its files change.
func (s *Server) policy(cwd string) (*decide.Loaded, error) {
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
