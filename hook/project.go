package hook

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GitTop is the git top level of dir (git rev-parse --show-toplevel, run
// with env), or dir itself outside git: where an agent's project settings
// live.
func GitTop(dir string, env []string) string {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.Output(); err == nil {
		if top := strings.TrimSpace(string(out)); top != "" {
			return top
		}
	}
	return dir
}

// Executable is the absolute, resolved path of the picket executable exe
// ("" for the running one): what install writes into an agent's wiring
// and doctor compares the wiring with.
func Executable(exe string) (string, error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("failed to find the picket executable: %w", err)
		}
		exe = self
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}
