package shell

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"sync"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
	"github.com/picketdev/picket/egress/proxy"
	"github.com/picketdev/picket/persist"
)

// defaultBatchAfter is picket.prompt.batchAfter's default, as for the
// file tools' prompt.
const defaultBatchAfter = 3

// netRun is the network side of one sandboxed command: the filtering
// proxy it reaches the network through, served by this process outside
// the sandbox on the listeners the sandbox opened (sandbox.Plan.Listen).
type netRun struct {
	pol egress.Policy
	srv *proxy.Server
	wg  sync.WaitGroup
}

// startNetwork prepares the proxy for cmd when the policy has a network
// section; nil when it has none (the command then has no network at all).
func (r Runner) startNetwork(loaded *decide.Loaded, cmd []string, session, agent, cwd string) (*netRun, error) {
	if !egress.InForce(loaded.Raw) {
		return nil, nil
	}
	pol, err := egress.FromRaw(loaded.Raw, loaded.Policy.Spec().Sources["network"])
	if err != nil {
		return nil, err
	}
	base := audit.Entry{Session: session, Agent: agent, Tool: "network", Layer: "network",
		Command: CommandLine(cmd), Cwd: cwd, Run: runID()}
	var person proxy.Person
	if r.Person != nil {
		person = r.Person(loaded, session, agent, cwd, base.Command)
	}
	file, _ := persist.Target(persist.ProjectRoot(cwd))
	batch := loaded.Settings.Prompt.BatchAfter
	if batch <= 0 {
		batch = defaultBatchAfter
	}
	n := &netRun{pol: pol}
	n.srv = proxy.New(proxy.Options{
		Policy: pol, Person: person, Notice: r.Stderr, PolicyFile: file, BatchAfter: batch,
		Audit: func(d proxy.Decision) { r.Audit(loaded, netEntry(base, pol, d)) },
	})
	return n, nil
}

// serve is sandbox.Runner.Listeners: it serves each listener the sandbox
// handed over, by the kind its address has in the policy.
func (n *netRun) serve(addrs []string, files []*os.File) {
	kinds := map[string]egress.Listener{}
	for _, l := range n.pol.Listeners() {
		kinds[l.Addr] = l
	}
	for i, a := range addrs {
		l, err := net.FileListener(files[i])
		files[i].Close()
		if err != nil {
			continue
		}
		spec := kinds[a]
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			switch spec.Kind {
			case "http":
				n.srv.ServeHTTP(l)
			case "socks":
				n.srv.ServeSOCKS(l)
			case "bridge":
				n.srv.ServeBridge(l, spec.Port)
			default:
				l.Close()
			}
		}()
	}
}

// close stops the proxy once the command is over.
func (n *netRun) close() {
	n.srv.Close()
	n.wg.Wait()
}

// netEntry is the audit line of one connection attempt: the host and
// port asked for as path, the address connected to (or refused) as
// resolved, how the command asked as access.
func netEntry(base audit.Entry, pol egress.Policy, d proxy.Decision) audit.Entry {
	e := base
	e.Decision, e.Access, e.Path = d.Outcome, d.Via, d.Host.HostPort(d.Port)
	if d.Addr.IsValid() {
		e.Resolved = d.Addr.String()
	}
	e.Rule, e.Pattern, e.Prompted, e.Reason = d.Rule, d.Entry, d.Prompted, d.Reason
	if d.Entry != "" {
		e.Source = pol.Source
	}
	return e
}

// runID names one command in its audit lines.
func runID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
