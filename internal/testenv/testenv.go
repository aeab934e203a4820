// Package testenv is what picket's tests need from the machine, asked in
// one place. A test that needs a tool (tmux, git, bubblewrap, node, a real
// agent) asks here: on a developer's machine without it the test skips;
// under CI (CI set, or PICKET_E2E=1) it fails, since .ci/run installs
// every one, and a test that silently skipped there would prove nothing.
package testenv

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// Strict reports whether a missing tool fails the test: under CI, or when
// PICKET_E2E=1 says the end-to-end tools must be there.
func Strict() bool { return os.Getenv("CI") != "" || os.Getenv("PICKET_E2E") == "1" }

// Missing skips t with why, or fails it under CI.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Strict() {
		t.Fatalf("%s (CI installs it: bash .ci/run)", why)
	}
	t.Skip(why)
}

// Tool returns the path of the program name, or skips t (fails it under
// CI) naming how to get it.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed: "+install)
	}
	return p
}

// Tmux is tmux, for the prompt tests.
func Tmux(t testing.TB) string { return Tool(t, "tmux", "apt-get install tmux") }

// Git is git.
func Git(t testing.TB) string { return Tool(t, "git", "apt-get install git") }

// Bwrap is bubblewrap, for the shell sandbox's tests; they are Linux
// only, and skip elsewhere whatever CI says.
func Bwrap(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the shell sandbox is Linux only")
	}
	return Tool(t, "bwrap", "apt-get install bubblewrap")
}

// Deps returns every package pkg imports, directly or not, and pkg
// itself, as `go list -deps` names them: for the tests that keep a
// package's imports in bounds.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	gocmd := Tool(t, "go", "https://go.dev/dl/")
	out, err := exec.Command(gocmd, "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps %s gave %d packages: %q", pkg, len(deps), out)
	}
	return deps
}
