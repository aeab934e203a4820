// Package netnstest runs a test inside a network namespace of its own, so
// it can give names and addresses to servers it starts without reaching
// any other machine: the test binary is run again under unshare(1) with
// new network and mount namespaces, brings its loopback up, adds the
// addresses it wants to it and bind-mounts its own hosts file over
// /etc/hosts. Only tests import it.
//
// It needs root (CI runs as root), unshare and ip (iproute2). Without them
// a test is skipped, and fails under CI (internal/testenv): there they
// must be there.
package netnstest

import (
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// childEnv marks the re-run: its value is the test the child runs.
const childEnv = "PICKET_NETNS_TEST"

// Config is the namespace a test wants.
type Config struct {
	// Addrs are put on the namespace's loopback (as /32 or /128), besides
	// 127.0.0.1 and ::1. Choose addresses egress treats as public
	// (203.0.113.0/24, 198.51.100.0/24) unless a test is about local
	// ones.
	Addrs []string
	// Hosts maps names to addresses for the namespace's /etc/hosts
	// (localhost is always there).
	Hosts map[string]string
}

// Enter reports whether the test (or benchmark) runs inside its
// namespace. The first time, in the test process itself, it runs the test
// again in a new namespace, reports that run's output and result, and
// returns false: the test then returns. In the re-run it sets the
// namespace up and returns true. Call it first, from a top-level test.
func Enter(t testing.TB, c Config) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		setUp(t, c)
		return true
	}
	b, bench := t.(*testing.B)
	if bench && b.N > 1 {
		return false // the re-run at b.N == 1 measured it; see below
	}
	need(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--net", "--mount", "--propagation", "private", "--", self, "-test.count", "1", "-test.v"}
	if bench {
		// A benchmark is run again once, at the b.N == 1 the testing
		// package starts with, with the -benchtime it was given (pass
		// Nx): the re-run picks its own b.N.
		args = append(args, "-test.run", "^$", "-test.bench", "^"+t.Name()+"$", "-test.benchtime", flagValue("test.benchtime"))
	} else {
		args = append(args, "-test.run", "^"+t.Name()+"$")
	}
	cmd := exec.Command("unshare", args...)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("in a network namespace of its own:\n%s", indent(out))
	if bench {
		os.Stdout.Write(out) // the figures and their metrics
	}
	if err != nil {
		t.Fatalf("the test failed in its network namespace: %v", err)
	}
	switch {
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skip("skipped in its network namespace")
	case !bench && !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("the test did not run in its network namespace")
	}
	if bench {
		b.ReportMetric(0, "ns/op") // the re-run's figures are the benchmark's
	}
	return false
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// need skips (or, under CI, fails) a test that cannot make a namespace.
func need(t testing.TB) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		testenv.Missing(t, fmt.Sprintf("a network namespace test needs %s (.ci/run installs iproute2 and util-linux; CI runs as root)", strings.Join(missing, ", ")))
	}
}

// setUp brings the namespace's loopback up with c's addresses and mounts
// c's hosts file.
func setUp(t testing.TB, c Config) {
	t.Helper()
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("link", "set", "lo", "up")
	for _, a := range c.Addrs {
		addr := netip.MustParseAddr(a)
		// replace, not add: a benchmark sets up once per b.N it runs.
		ip("addr", "replace", netip.PrefixFrom(addr, addr.BitLen()).String(), "dev", "lo")
	}
	lines := []string{"127.0.0.1 localhost", "::1 localhost"}
	names := make([]string, 0, len(c.Hosts))
	for n := range c.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		lines = append(lines, c.Hosts[n]+" "+n)
	}
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bindHosts(t, hosts)
}

func indent(b []byte) string {
	return "\t" + strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\n\t")
}
