package hook

import (
	"context"
	"sync"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
	"github.com/picketdev/picket/egress/proxy"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/persist"
	"github.com/picketdev/picket/tui"
)

// NetworkPerson is who a sandboxed command's proxy asks about a host no
// network entry names (see package egress/proxy): the person at hand, on
// the same surfaces, under the same lock and with the same guard and
// timeout as every other prompt, nil when no one can be asked. call names
// the command's session, agent and working directory; command is its line,
// shown in the prompt.
func (p *Pipeline) NetworkPerson(loaded *decide.Loaded, call Call, command string) proxy.Person {
	if p.NoOne(loaded) || p.Prompter == nil {
		return nil
	}
	return &networkPerson{p: p, loaded: loaded, call: call, command: command, confirmed: map[egress.Host]Persist{}}
}

// networkPerson asks about hosts and keeps the answers: a session grant
// ("connect" to a host), and a persisted network.allowedDomains entry.
type networkPerson struct {
	p       *Pipeline
	loaded  *decide.Loaded
	call    Call
	command string

	mu        sync.Mutex
	confirmed map[egress.Host]Persist // the file each host's persist confirm named
}

// Granted reports a session grant for h. A command run without a session
// has none: its answers hold for the command only.
func (n *networkPerson) Granted(h egress.Host) bool {
	if n.call.Session == "" {
		return false
	}
	ok, err := n.p.Grants.Has(n.call.Session, "connect", egress.EntryFor(h))
	return err == nil && ok
}

// Ask shows q on the first prompt surface that reaches the person; an
// error means none did.
func (n *networkPerson) Ask(ctx context.Context, q proxy.Question) (proxy.Answer, error) {
	req := n.request(q)
	pctx, cancel := n.p.Prompter.Context(req)
	defer cancel()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-pctx.Done():
			stop()
		case <-ctx.Done():
		}
	}()
	surface := n.p.Prompter.Surface(n.loaded)
	unlock, err := surface.Lock(ctx)
	if err != nil {
		return proxy.AnswerDeny, err
	}
	defer unlock()
	ans, shown, err := surface.AskLocked(ctx, req)
	if shown == "" && err != nil {
		return proxy.AnswerDeny, err
	}
	if err != nil {
		n.p.warnf("prompt: %v", err)
	}
	if ans == tui.AnswerPersist {
		n.mu.Lock()
		n.confirmed[q.Host] = Persist{File: req.PersistTarget, Resolved: req.PersistResolved}
		n.mu.Unlock()
	}
	return proxy.Answer(ans), nil
}

// request is the prompt for q.
func (n *networkPerson) request(q proxy.Question) tui.Request {
	hp := q.Host.HostPort(q.Port)
	req := tui.Request{
		Kind: tui.KindNetwork, Agent: n.call.Agent, Session: n.call.Session, Cwd: n.call.Cwd,
		Tool: "network", Access: "connect", Path: hp, Resolved: hp,
		Host: q.Host.String(), Port: q.Port, Via: via(q.Via), Command: n.command,
		Layer: "network", Rule: "network.allowedDomains (no entry names this host)",
		Source:         n.loaded.Policy.Spec().Sources["network"],
		TimeoutSeconds: promptTimeout(n.loaded.Settings.Prompt.TimeoutSeconds),
	}
	for _, a := range q.Addrs {
		req.Addrs = append(req.Addrs, a.String())
	}
	for _, h := range q.Batch {
		req.Batch = append(req.Batch, tui.BatchItem{Tool: "network", Access: "connect", Path: h.String(), Resolved: h.String()})
	}
	n.offerPersist(&req, q.Host)
	return req
}

// offerPersist offers [p] when an entry for the host can go into the
// project's policy file in force, as for a file grant.
func (n *networkPerson) offerPersist(req *tui.Request, h egress.Host) {
	file, exists := persist.Target(persist.ProjectRoot(n.call.Cwd))
	if !n.p.takesEffect(n.loaded, file, exists) {
		return
	}
	res, err := persist.Check(n.persistOptions(h, file))
	if err != nil {
		req.PersistNote = "persist is not offered: " + err.Error()
		return
	}
	req.CanPersist, req.PersistTarget, req.PersistCreates, req.PersistResolved = true, file, !exists, res.Resolved
	req.PersistExtends = "code"
	if n.p.userConfigExists(n.loaded) {
		req.PersistExtends = "@base"
	}
}

// persistOptions is a "connect" persist of h into file, with the file
// tools' refusals (never system config, the user's fence config or
// picket's state).
func (n *networkPerson) persistOptions(h egress.Host, file string) persist.Options {
	o := n.p.persistOptions(n.loaded, n.call, decide.Decision{Access: decide.Read}, file)
	o.Access, o.Path = "connect", egress.EntryFor(h)
	return o
}

// Keep records a session grant for h and, for persist, writes the entry
// into the file the person confirmed; it returns the audit decision.
func (n *networkPerson) Keep(h egress.Host, a proxy.Answer) string {
	if n.call.Session != "" {
		if err := n.p.Grants.Add(n.call.Session, grants.Grant{Access: "connect", Path: egress.EntryFor(h)}); err != nil {
			n.p.warnf("failed to record the session grant: %v", err)
		}
	}
	if a != proxy.AnswerPersist {
		return "grant-session"
	}
	n.mu.Lock()
	target, ok := n.confirmed[h]
	n.mu.Unlock()
	if !ok || target.File == "" {
		n.p.warnf("persist failed, granted for this session only: no policy file was confirmed for %s", h)
		return "grant-session"
	}
	o := n.persistOptions(h, target.File)
	o.Resolved = target.Resolved
	res, err := persist.Grant(o)
	if err != nil {
		n.p.warnf("persist failed, granted for this session only: %v", err)
		return "grant-session"
	}
	if !res.AlreadyPresent {
		// Picket's own write, should a sandboxed command be running.
		if terr := n.p.trustWrite(res.Resolved); terr != nil {
			n.p.warnf("could not record the persist as picket's own: %v", terr)
		}
	}
	return "grant-persist"
}

// via names how a command asked, for the prompt.
func via(v string) string {
	switch v {
	case "http":
		return "HTTP request (proxy)"
	case "connect":
		return "CONNECT (HTTPS or another TCP protocol)"
	case "socks":
		return "SOCKS5"
	}
	return v
}
