package escape_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps escape a leaf: audit, lint, tui and the hook all
// print through it, and lint and tui may not pull in anything else of
// picket's, nor a terminal library.
func TestDependencies(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gocmd, "list", "-deps", "github.com/picketdev/picket/escape").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") && dep != "github.com/picketdev/picket/escape" {
			t.Errorf("escape imports %s", dep)
		}
	}
}
