package hook

import (
	"os"
	"path/filepath"
)

// ForgetResident removes what the resident hook server of earlier builds
// left in picket's state (its sockets, locks and start markers): that
// server is gone, and a server still running from an old executable
// exits once its socket is removed. Its socket could also be in
// runtimeDir/picket ($XDG_RUNTIME_DIR, beside the console's, which stays).
func ForgetResident(stateDir, runtimeDir string) {
	os.RemoveAll(filepath.Join(stateDir, "resident"))
	if filepath.IsAbs(runtimeDir) {
		old, _ := filepath.Glob(filepath.Join(runtimeDir, "picket", "hook-*.sock*"))
		for _, f := range old {
			os.Remove(f)
		}
	}
}
