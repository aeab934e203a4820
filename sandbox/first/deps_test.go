package first_test

import (
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// TestDependencies keeps the first process light: picket's command runs it
// from an early init (cmd/internal/firststart), which comes before the
// rest of picket is initialised only as long as this package imports no
// picket package and nothing that brings most of the standard library
// with it (net and encoding/json did: a hundred packages initialised
// before it).
func TestDependencies(t *testing.T) {
	deps := testenv.Deps(t, "github.com/picketdev/picket/sandbox/first")
	for _, dep := range deps {
		switch {
		case dep == "github.com/picketdev/picket/sandbox/first":
		case strings.HasPrefix(dep, "github.com/picketdev/"), dep == "net", strings.HasPrefix(dep, "net/"),
			dep == "encoding/json", strings.HasPrefix(dep, "crypto"):
			t.Errorf("sandbox/first imports %s", dep)
		}
	}
}
