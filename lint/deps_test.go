package lint_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps lint cheap to run from the hook on SessionStart:
// of picket's packages it may import only decide, schema, escape and the
// pure egress policy (not its proxy), and nothing of the terminal UI.
func TestDependencies(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gocmd, "list", "-deps", "github.com/picketdev/picket/lint").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"github.com/picketdev/picket/lint": true, "github.com/picketdev/picket/decide": true,
		"github.com/picketdev/picket/schema": true, "github.com/picketdev/picket/escape": true,
		"github.com/picketdev/picket/egress": true,
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/picketdev/picket/") && !allowed[dep] {
			t.Errorf("lint imports %s", dep)
		}
		if strings.HasPrefix(dep, "github.com/charmbracelet/") {
			t.Errorf("lint imports %s", dep)
		}
	}
}
