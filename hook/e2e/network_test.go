package e2e

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/egress/netnstest"
)

// The agents' network tests run in a network namespace of their own: the
// scripted model on its loopback, and two web servers on addresses only
// that namespace has, named in its own hosts file.
var agentNet = netnstest.Config{
	Addrs: []string{"203.0.113.10", "203.0.113.11"},
	Hosts: map[string]string{"allowed.test": "203.0.113.10", "other.test": "203.0.113.11"},
}

// networkFence is projectFence with a network section naming one host.
const networkFence = `{
  "extends": "code",
  "picket": {"blocklist": [".env"]},
  "network": {"allowedDomains": ["allowed.test"]}
}
`

// serveWeb starts a server on addr that answers "web saw <host>".
func serveWeb(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "web saw %s\n", r.Host)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

// networkTurns are the model's steps: curl an allowed name, then an
// unlisted one.
func networkTurns(tool string) []Turn {
	return []Turn{
		0: ToolUse(tool, map[string]any{"command": "curl -sS --max-time 10 http://allowed.test/"}),
		1: ToolUse(tool, map[string]any{"command": "curl -sS --max-time 10 http://other.test/"}),
		2: Text("done"),
	}
}

// checkNetworkResults: the allowed name answered; the unlisted one got
// picket's 403 naming the entry to add; the audit log has both.
func checkNetworkResults(t *testing.T, results map[string]toolResult, w *world, agent string) {
	t.Helper()
	allowed, unlisted := results[ToolUseID(0)].text(), results[ToolUseID(1)].text()
	if !strings.Contains(allowed, "web saw allowed.test") {
		t.Errorf("%s: curl http://allowed.test/ = %q, want the server's answer", agent, allowed)
	}
	if !strings.Contains(unlisted, "picket blocked this request to other.test:80") || !strings.Contains(unlisted, `add "other.test" to network.allowedDomains`) || strings.Contains(unlisted, "web saw") {
		t.Errorf("%s: curl http://other.test/ = %q, want picket's 403", agent, unlisted)
	}
	var allow, block bool
	for _, l := range readAudit(t, filepath.Join(w.state, "picket", "audit.log")) {
		if l.Tool != "network" || l.Agent != agent {
			continue
		}
		if l.Session == "" {
			t.Errorf("%s: a network audit line has no session (the agent's session grants would not apply): %+v", agent, l)
		}
		allow = allow || l.Decision == "allow" && l.Path == "allowed.test:80"
		block = block || l.Decision == "block" && l.Path == "other.test:80"
	}
	if !allow || !block {
		t.Errorf("%s: the audit log has allow %v for allowed.test and block %v for other.test, want both", agent, allow, block)
	}
}

// TestClaudeCodeBashNetwork: Claude Code's Bash tool, through picket's
// shell prefix, reaches the allowed name and gets picket's refusal for the
// unlisted one.
func TestClaudeCodeBashNetwork(t *testing.T) {
	if !netnstest.Enter(t, agentNet) {
		return
	}
	claude := claudeBinary(t)
	requireBwrap(t)
	w := newWorld(t)
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), networkFence)
	serveWeb(t, "203.0.113.10:80")
	serveWeb(t, "203.0.113.11:80")
	w.installClaude(t)
	model, err := StartModel(networkTurns("Bash"))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	runClaudeWith(t, claude, w.project, w.env, model, "Bash")
	checkNetworkResults(t, toolResults(t, model.Requests()), w, "claude")
}

// TestPiBashNetwork: the same through Pi's bash, which the extension runs
// under picket run.
func TestPiBashNetwork(t *testing.T) {
	if !netnstest.Enter(t, agentNet) {
		return
	}
	pi := piBinary(t)
	requireSandbox(t)
	w := newPiWorld(t)
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), networkFence)
	serveWeb(t, "203.0.113.10:80")
	serveWeb(t, "203.0.113.11:80")
	model, err := StartModel(networkTurns("bash"))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model)
	w.runPiPrint(t, pi)
	checkNetworkResults(t, toolResults(t, model.Requests()), w.world, "pi")
}
