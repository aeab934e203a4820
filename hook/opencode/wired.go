package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's plugin in every directory opencode
// loads plugins from for the project at o.Dir (the person's config dir,
// and each .opencode from o.Dir up to the project's git top level), each
// with the picket serve it starts.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	user := ""
	if home, err := configHome(o); err == nil {
		user = Dir(home, "", true)
	}
	for _, f := range installed(o) {
		b, err := os.ReadFile(f)
		if err != nil {
			return out, err
		}
		exe := hook.ExtensionExe(b)
		scope := "project"
		if filepath.Dir(f) == user {
			scope = "user"
		}
		out = append(out, hook.Wiring{Scope: scope, File: f, Exe: exe, Run: []string{exe, "serve", "--agent", Name}})
	}
	return out, nil
}

// canary is the Agent's Canary: a write of path, as the plugin sees
// opencode's tool.execute.before call in a session at dir.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"input":     map[string]string{"tool": "write", "sessionID": "picket-doctor", "callID": "picket-doctor"},
		"args":      map[string]string{"filePath": path, "content": "picket doctor's canary\n"},
		"directory": dir,
	})
	return b
}
