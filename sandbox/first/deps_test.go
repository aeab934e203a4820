package first_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the first process light: picket's command runs it
// from an early init (cmd/internal/firststart), which comes before the
// rest of picket is initialised only as long as this package imports no
// picket package and nothing that brings most of the standard library
// with it (net and encoding/json did: a hundred packages initialised
// before it).
func TestDependencies(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gocmd, "list", "-deps", "github.com/picketdev/picket/sandbox/first").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	for _, dep := range deps {
		switch {
		case dep == "github.com/picketdev/picket/sandbox/first":
		case strings.HasPrefix(dep, "github.com/picketdev/"), dep == "net", strings.HasPrefix(dep, "net/"),
			dep == "encoding/json", strings.HasPrefix(dep, "crypto"):
			t.Errorf("sandbox/first imports %s", dep)
		}
	}
}
