package lint_test

import (
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// TestDependencies keeps lint cheap to run from the hook on SessionStart:
// of picket's packages it may import only decide, schema, escape and the
// pure egress policy (not its proxy), and nothing of the terminal UI.
func TestDependencies(t *testing.T) {
	deps := testenv.Deps(t, "github.com/picketdev/picket/lint")
	allowed := map[string]bool{
		"github.com/picketdev/picket/lint": true, "github.com/picketdev/picket/decide": true,
		"github.com/picketdev/picket/schema": true, "github.com/picketdev/picket/escape": true,
		"github.com/picketdev/picket/egress": true,
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/picketdev/picket/") && !allowed[dep] {
			t.Errorf("lint imports %s", dep)
		}
		if strings.HasPrefix(dep, "github.com/charmbracelet/") {
			t.Errorf("lint imports %s", dep)
		}
	}
}
