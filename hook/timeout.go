package hook

import (
	"os"
	"os/exec"
	"path/filepath"
)

// TimeoutBin is the timeout(1) a hook command can bound picket with, by
// absolute path: the first "timeout" on the PATH in getenv, when it is an
// executable file that runs with --foreground (which keeps picket's
// prompt on the terminal) and -k (which kills a picket that ignores the
// first signal). An agent that runs a call whose hook outlives its own
// timeout needs the hook command to end a hung picket first and block;
// the path is written into the agent's settings at install, so nothing
// put on PATH later (a "timeout" that exits 0) stands in for it. "" where
// there is none that works (macOS has none by default): then picket's own
// deadline is all there is, and install says so.
func TimeoutBin(getenv func(string) string) string {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, "timeout")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		if exec.Command(p, "--foreground", "-k", "1", "5", "true").Run() != nil {
			return ""
		}
		return p
	}
	return ""
}
