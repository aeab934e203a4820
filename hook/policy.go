package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/sandbox"
)

// LoadPolicy resolves the policy for env, validating every file of the
// chain, and refuses a chain with a file a sandboxed command may have
// written ([SandboxWrittenError]). Every picket command reads its policy
// through here.
func LoadPolicy(env decide.Env) (*decide.Loaded, error) {
	loaded, err := decide.Load(env)
	if err != nil {
		return nil, err
	}
	if f := sandboxWritten(loaded); f != "" {
		return nil, &SandboxWrittenError{File: f}
	}
	return loaded, nil
}

// SandboxWrittenError is a policy chain holding a file a sandboxed command
// may have written.
type SandboxWrittenError struct{ File string }

func (e *SandboxWrittenError) Error() string {
	return fmt.Sprintf("%s changed while a sandboxed command ran, so the command may have written it, and picket takes no policy from it; if you wrote it, run 'touch %s' once no sandboxed command runs", e.File, e.File)
}

// sandboxWritten returns the first file of l's chain that changed while a
// sandboxed command ran (see sandbox.ChangedDuringSandbox), or "". Every
// file is asked, the project's own too: which directory is the project is
// the command's to change (a .git file makes any directory a git top).
// Not asked: the user's fence config (every sandbox mounts its directory
// read-only) and a chain named with --config (the caller chose it). A
// persisted grant or picket init, written while a command runs, is
// recorded as picket's own (sandbox.TrustWrite).
func sandboxWritten(l *decide.Loaded) string {
	if l.Env.ConfigFile != "" {
		return ""
	}
	for _, f := range l.Chain {
		if strings.HasPrefix(f, "builtin:") || sameDir(filepath.Dir(f), l.Env.UserConfigDir()) {
			continue
		}
		if sandbox.ChangedDuringSandbox(l.Env.StateDir(), f) {
			return f
		}
	}
	return ""
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
