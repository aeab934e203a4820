package decide_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps decide embeddable: operators link it into servers
// that have no terminal, so it must not pull in the TUI, the audit log or
// their libraries.
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
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "gopkg.in/natefinch/lumberjack",
		"github.com/picketdev/picket/tui", "github.com/picketdev/picket/audit",
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
