package hook

import (
	"os/exec"
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
