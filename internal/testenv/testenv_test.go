package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingFailsUnderCI: a missing tool skips on a developer's machine
// and fails under CI.
func TestMissingFailsUnderCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Tool(t, "no-such-tool-picket", "nowhere")
		return
	}
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"CI=", "PICKET_E2E="}, "--- SKIP"},
		{[]string{"CI=true", "PICKET_E2E="}, "--- FAIL"},
		{[]string{"CI=", "PICKET_E2E=1"}, "--- FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingFailsUnderCI$", "-test.v")
		cmd.Env = append(append(os.Environ(), "TESTENV_CHILD=1"), tt.env...)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("with %v: %s, want %s", tt.env, out, tt.want)
		}
	}
}
