package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/egress/netnstest"
	"github.com/picketdev/picket/internal/testenv"
)

// The names and addresses of the network tests' namespace. 203.0.113.0/24
// and 198.51.100.0/24 (documentation ranges) are public to egress; the
// local ones are refused before anything is dialed.
var netConfig = netnstest.Config{
	Addrs: []string{"203.0.113.10", "203.0.113.11", "198.51.100.5"},
	Hosts: map[string]string{
		"allowed.test": "203.0.113.10", "www.wild.test": "203.0.113.10", "bad.wild.test": "203.0.113.10",
		"port.test": "203.0.113.10", "other.test": "203.0.113.11", "grey.test": "203.0.113.11",
		"lo.test": "127.0.0.1", "meta.test": "169.254.169.254", "lan.test": "10.9.9.9",
	},
}

// netWorld is a project, a home and the picket binary, with web servers on
// the namespace's addresses: each answers "<server> saw <host>".
type netWorld struct {
	bin, home, proj string
}

func newNetWorld(t *testing.T, policy string) *netWorld {
	t.Helper()
	requireBwrap(t)
	base := sandboxScratch(t)
	w := &netWorld{bin: picketBin(t, base), home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj")}
	write(t, filepath.Join(w.proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(w.proj, "fence.jsonc"), policy)
	os.MkdirAll(w.home, 0o755)
	for _, s := range []struct{ name, addr string }{
		{"web10", "203.0.113.10:80"}, {"web11", "203.0.113.11:80"}, {"web5", "198.51.100.5:80"}, {"loopback", "127.0.0.1:18080"},
	} {
		serveHTTP(t, s.addr, s.name)
	}
	serveTLS(t, "203.0.113.10:443", "tls10")
	return w
}

func serveHTTP(t *testing.T, addr, name string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s saw %s\n", name, r.Host)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

func serveTLS(t *testing.T, addr, name string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s saw %s\n", name, r.Host)
	}))
	srv.Listener = l
	srv.TLS = &tls.Config{}
	srv.StartTLS()
	t.Cleanup(srv.Close)
}

// run runs script with sh -c in the sandbox, headless (CI set), and
// returns its status, stdout and stderr.
func (w *netWorld) run(t *testing.T, script string, extra ...string) (int, string, string) {
	t.Helper()
	env := sandboxEnv(w.home, w.proj, append([]string{"CI=true"}, extra...)...)
	return pk(t, w.bin, w.proj, env, "run", "--session", "net-session-1", "--", "sh", "-c", script)
}

// audit returns the network lines of the audit log.
func (w *netWorld) audit(t *testing.T) []audit.Entry {
	t.Helper()
	f, err := os.Open(filepath.Join(w.home, ".local", "state", "picket", "audit.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Entry
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e audit.Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Tool == "network" {
			out = append(out, e)
		}
	}
	return out
}

const netPolicy = `{
  "extends": "code",
  "network": {
    // names, a wildcard, a port, an address, and names that resolve to
    // local addresses
    "allowedDomains": ["allowed.test", "*.wild.test", "port.test:443", "198.51.100.5", "lo.test", "meta.test", "lan.test"],
    "deniedDomains": ["bad.wild.test"]
  }
}
`

// TestRunNetwork: with a network section, a sandboxed command reaches
// exactly what the policy allows, through picket's proxy over HTTP,
// CONNECT and SOCKS5, and nothing else; a refused client sees why.
func TestRunNetwork(t *testing.T) {
	if !netnstest.Enter(t, netConfig) {
		return
	}
	w := newNetWorld(t, netPolicy)
	curl := "curl -sS --max-time 10 "
	cases := []struct {
		name, script string
		code         int
		out, errOut  string
	}{
		{"HTTP to an allowed name", curl + "http://allowed.test/", 0, "web10 saw allowed.test", ""},
		{"HTTPS through CONNECT", curl + "-k https://allowed.test/", 0, "tls10 saw allowed.test", ""},
		{"SOCKS5, the name resolved by the proxy", curl + "-x socks5h://127.0.0.1:1080 http://allowed.test/", 0, "web10 saw allowed.test", ""},
		{"a wildcard", curl + "http://www.wild.test/", 0, "web10 saw www.wild.test", ""},
		{"deny wins over the wildcard", curl + "http://bad.wild.test/", 0, `rule: network.deniedDomains (entry "bad.wild.test")`, ""},
		{"a :port entry at its port", curl + "-k https://port.test/", 0, "tls10 saw port.test", ""},
		{"a :port entry at another port", curl + "http://port.test/", 0, "picket blocked this request to port.test:80", ""},
		{"a listed address", curl + "http://198.51.100.5/", 0, "web5 saw 198.51.100.5", ""},
		{"an address no entry lists, though an allowed name has it", curl + "http://203.0.113.10/", 0, `to allow it: add "203.0.113.10" to network.allowedDomains`, ""},
		{"an unlisted name over HTTP: the 403 names the key to add", curl + "http://other.test/", 0, `to allow it: add "other.test" to network.allowedDomains in ` + filepath.Join(w.proj, "fence.jsonc"), ""},
		{"an unlisted name over CONNECT", curl + "-k https://other.test/", 56, "", "picket: blocked a connection to other.test:443: no network.allowedDomains entry names other.test"},
		{"an unlisted name over SOCKS5", curl + "-x socks5h://127.0.0.1:1080 http://other.test/", 97, "", "picket: blocked a connection to other.test:80"},
		{"a program that ignores the proxy", curl + "--noproxy '*' http://203.0.113.10/", 7, "", ""},
		{"a raw socket", "exec 3<>/dev/tcp/203.0.113.10/80", 1, "", ""},
		{"an allowed name that resolves to loopback", curl + "http://lo.test:18080/", 0, "why: lo.test resolves to 127.0.0.1 is a loopback address", ""},
		{"an allowed name that resolves to the metadata address", curl + "http://meta.test/", 0, "why: meta.test resolves to 169.254.169.254 is a link-local address", ""},
		{"an allowed name that resolves to a private address", curl + "http://lan.test/", 0, "why: lan.test resolves to 10.9.9.9 is a private address", ""},
	}
	for _, c := range cases {
		script := c.script
		if strings.HasPrefix(script, "exec 3") {
			script = "bash -c '" + script + "'"
		}
		code, out, errOut := w.run(t, script)
		if c.code >= 0 && code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.errOut) {
			t.Errorf("%s: %s\n= %d\nstdout: %s\nstderr: %s\nwant %d, stdout with %q, stderr with %q", c.name, c.script, code, out, errOut, c.code, c.out, c.errOut)
		}
	}

	// A client that retries is told once on stderr.
	_, _, errOut := w.run(t, curl+"-k https://other.test/; "+curl+"-k https://other.test/; "+curl+"-k https://other.test/")
	if n := strings.Count(errOut, "picket: blocked a connection to other.test:443"); n != 1 {
		t.Errorf("three refused CONNECTs in one command: %d stderr lines, want 1:\n%s", n, errOut)
	}

	// Every attempt is one audit line, with the address connected to.
	lines := w.audit(t)
	find := func(path, decision string) *audit.Entry {
		for i := range lines {
			if lines[i].Path == path && lines[i].Decision == decision {
				return &lines[i]
			}
		}
		return nil
	}
	if e := find("allowed.test:80", "allow"); e == nil || e.Resolved != "203.0.113.10:80" || e.Rule != "network.allowedDomains" || e.Pattern != "allowed.test" ||
		e.Session != "net-session-1" || e.Run == "" || !strings.Contains(e.Command, "curl") || e.Source != filepath.Join(w.proj, "fence.jsonc") {
		t.Errorf("allowed.test:80 audit line = %+v", e)
	}
	if e := find("bad.wild.test:80", "block"); e == nil || e.Rule != "network.deniedDomains" || e.Pattern != "bad.wild.test" {
		t.Errorf("bad.wild.test audit line = %+v", e)
	}
	if e := find("meta.test:80", "block"); e == nil || e.Resolved != "169.254.169.254:80" || e.Rule != "network.allowLocalOutbound" {
		t.Errorf("meta.test audit line = %+v", e)
	}
	if e := find("allowed.test:443", "allow"); e == nil || e.Access != "connect" {
		t.Errorf("CONNECT audit line = %+v", e)
	}
	for _, e := range lines {
		if strings.Contains(e.Reason, "web10 saw") || strings.Contains(e.Command, "web10 saw") {
			t.Errorf("an audit line holds content: %+v", e)
		}
	}

	// picket log filters the network lines.
	code, out, _ := pk(t, w.bin, w.proj, sandboxEnv(w.home, w.proj), "log", "--tool", "network", "--decision", "block", "100")
	if code != 0 || !strings.Contains(out, "bad.wild.test:80") || strings.Contains(out, "allowed.test:80 ") {
		t.Errorf("picket log --tool network --decision block = %d:\n%s", code, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(l, "network") {
			t.Errorf("picket log --tool network printed a line of another tool: %s", l)
		}
	}
}

// TestRunNetworkLocalAndUpstream: allowLocalOutbound lets an allowed name
// reach loopback (never the metadata address); upstreamProxy with
// defaultAction "proxy" takes what no entry names, never a denied host;
// allowLocalOutboundPorts bridges a host loopback port in.
func TestRunNetworkLocalAndUpstream(t *testing.T) {
	if !netnstest.Enter(t, netConfig) {
		return
	}
	w := newNetWorld(t, `{
  "extends": "code",
  "network": {
    "allowedDomains": ["lo.test", "meta.test"],
    "deniedDomains": ["allowed.test"],
    "allowLocalOutbound": true,
    "allowLocalOutboundPorts": [18080],
    "defaultAction": "proxy",
    "upstreamProxy": "http://127.0.0.1:18888"
  }
}
`)
	var seen []string
	up, err := net.Listen("tcp", "127.0.0.1:18888")
	if err != nil {
		t.Fatal(err)
	}
	upSrv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.String())
		fmt.Fprintf(rw, "upstream saw %s\n", r.URL)
	})}
	go upSrv.Serve(up)
	t.Cleanup(func() { upSrv.Close() })

	curl := "curl -sS --max-time 10 "
	for _, c := range []struct{ script, want string }{
		{curl + "http://lo.test:18080/", "loopback saw lo.test:18080"},
		{curl + "http://meta.test/", "169.254.169.254 is a link-local address"},
		{curl + "http://grey.test/page", "upstream saw http://grey.test/page"},
		{curl + "http://allowed.test/", `rule: network.deniedDomains (entry "allowed.test")`},
		{curl + "http://127.0.0.1:18080/", "loopback saw 127.0.0.1:18080"}, // NO_PROXY: the bridge
	} {
		if code, out, errOut := w.run(t, c.script); code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s = %d\nstdout: %s\nstderr: %s\nwant stdout with %q", c.script, code, out, errOut, c.want)
		}
	}
	for _, s := range seen {
		if strings.Contains(s, "allowed.test") || strings.Contains(s, "lo.test") {
			t.Errorf("the upstream proxy saw %q: only hosts no entry names go there", s)
		}
	}
	if len(seen) != 1 {
		t.Errorf("the upstream proxy saw %v, want the one grey request", seen)
	}
}

// TestRunNoNetworkSection: without a network section a command has no
// network at all, and no proxy variables.
func TestRunNoNetworkSection(t *testing.T) {
	if !netnstest.Enter(t, netConfig) {
		return
	}
	w := newNetWorld(t, `{"extends": "code"}`)
	code, out, _ := w.run(t, "env | grep -ci _proxy; curl -sS --max-time 5 http://allowed.test/ || echo refused:$?")
	if code != 0 || !strings.HasPrefix(out, "0\n") || !strings.Contains(out, "refused:") {
		t.Errorf("without a network section = %d %q, want no proxy variables and no connection", code, out)
	}
}

// TestRunNetworkTools: git, npm, Go and pip, as installed, send their
// requests through picket's proxy with nothing but the variables picket
// sets: each one's HTTPS request to a host no entry names reaches the
// proxy as a CONNECT, which refuses it (headless) and audits it.
func TestRunNetworkTools(t *testing.T) {
	cfg := netnstest.Config{Addrs: netConfig.Addrs, Hosts: map[string]string{"tools.test": "203.0.113.11"}}
	if !netnstest.Enter(t, cfg) {
		return
	}
	w := newNetWorld(t, netPolicy)
	tools := []struct {
		name, bin, script string
	}{
		{"git", "git", "git -c http.lowSpeedTime=5 ls-remote https://tools.test/git/repo.git"},
		{"npm", "npm", "npm view left-pad --registry=https://tools.test/npm/ --fetch-retries=0 --cache=/tmp/npm-cache"},
		{"go", "go", "GOMODCACHE=/tmp/gomod GOPATH=/tmp/gopath GOCACHE=/tmp/gocache GOPROXY=https://tools.test/go GOSUMDB=off GOTOOLCHAIN=local go mod download -json example.com/m@v1.0.0"},
		{"pip", "pip3", "pip3 download --no-deps --retries 0 --timeout 5 -d /tmp/pip --index-url https://tools.test/pip/simple left-pad"},
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool.bin); err != nil {
			if testenv.Strict() {
				t.Errorf("%s is missing under CI: .ci/run installs it", tool.bin)
			}
			t.Logf("%s is not installed: not checked", tool.bin)
			continue
		}
		before := len(w.audit(t))
		code, out, errOut := w.run(t, tool.script)
		var hit bool
		for _, e := range w.audit(t)[before:] {
			hit = hit || e.Path == "tools.test:443" && e.Access == "connect" && e.Decision == "block"
		}
		if !hit {
			t.Errorf("%s did not reach picket's proxy (exit %d):\nstdout: %s\nstderr: %s", tool.name, code, out, errOut)
		} else {
			t.Logf("%s: its request reached the proxy as a CONNECT to tools.test:443 (refused, exit %d)", tool.name, code)
		}
	}
}

// TestRunNetworkPorts: httpProxyPort and socksProxyPort move the proxy's
// ports inside the sandbox, and the variables follow.
func TestRunNetworkPorts(t *testing.T) {
	if !netnstest.Enter(t, netConfig) {
		return
	}
	w := newNetWorld(t, `{"extends": "code", "network": {"allowedDomains": ["allowed.test"], "httpProxyPort": 8118, "socksProxyPort": 9050}}`)
	code, out, errOut := w.run(t, `echo "$HTTPS_PROXY $ALL_PROXY"; curl -sS --max-time 10 http://allowed.test/; curl -sS --max-time 10 --proxy "" -x socks5h://127.0.0.1:9050 http://allowed.test/`)
	want := "http://127.0.0.1:8118 socks5h://127.0.0.1:9050\nweb10 saw allowed.test\nweb10 saw allowed.test\n"
	if code != 0 || out != want {
		t.Errorf("with httpProxyPort 8118 and socksProxyPort 9050 = %d\nstdout: %q\nstderr: %s\nwant %q", code, out, errOut, want)
	}
}
