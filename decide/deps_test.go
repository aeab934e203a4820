package decide_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps decide embeddable and free of agents: operators
// link it into servers that have no terminal, so `go list -deps` of it
// names no terminal, prompt or log package (the TUI, the audit log, the
// standard log and slog packages, terminal libraries) and none of
// picket's agent packages: agents reach the mandatory denies as a plain
// value, Env.Agents.
func TestDependencies(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gocmd, "list", "-deps", "github.com/picketdev/picket/decide").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{
		"github.com/charmbracelet", "github.com/muesli/termenv", "github.com/mattn/go-isatty", "golang.org/x/term",
		"gopkg.in/natefinch/lumberjack", "log", "log/slog",
		"github.com/picketdev/picket/tui", "github.com/picketdev/picket/audit", "github.com/picketdev/picket/hook", "net/mail",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") || strings.HasPrefix(dep, b+".") {
				t.Errorf("decide imports %s", dep)
			}
		}
	}
}
