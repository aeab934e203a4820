package decide_test

import (
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// TestDependencies keeps decide embeddable and free of agents: operators
// link it into servers that have no terminal, so `go list -deps` of it
// names no terminal, prompt or log package (the TUI, the audit log, the
// standard log and slog packages, terminal libraries) and none of
// picket's agent packages: agents reach the mandatory denies as a plain
// value, Env.Agents.
func TestDependencies(t *testing.T) {
	deps := testenv.Deps(t, "github.com/picketdev/picket/decide")
	banned := []string{
		"github.com/charmbracelet", "github.com/muesli/termenv", "github.com/mattn/go-isatty", "golang.org/x/term",
		"gopkg.in/natefinch/lumberjack", "log", "log/slog",
		"github.com/picketdev/picket/tui", "github.com/picketdev/picket/audit", "github.com/picketdev/picket/hook", "net/mail",
	}
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") || strings.HasPrefix(dep, b+".") {
				t.Errorf("decide imports %s", dep)
			}
		}
	}
}
