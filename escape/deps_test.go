package escape_test

import (
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// TestDependencies keeps escape a leaf: audit, lint, tui and the hook all
// print through it, and lint and tui may not pull in anything else of
// picket's, nor a terminal library.
func TestDependencies(t *testing.T) {
	deps := testenv.Deps(t, "github.com/picketdev/picket/escape")
	for _, dep := range deps {
		if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") && dep != "github.com/picketdev/picket/escape" {
			t.Errorf("escape imports %s", dep)
		}
	}
}
