package pi

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's extension in
// ~/.pi/agent/extensions/picket and the project's .pi/extensions/picket,
// each talking to the picket serve it starts.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	for _, user := range []bool{true, false} {
		oo := o
		oo.User, oo.Project = user, !user
		dir, err := extensionDir(oo)
		if err != nil {
			return out, err
		}
		file := filepath.Join(dir, File)
		b, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		exe := hook.ExtensionExe(b)
		scope := map[bool]string{true: "user", false: "project"}[user]
		out = append(out, hook.Wiring{Scope: scope, File: file, Exe: exe, Run: []string{exe, "serve"}})
	}
	return out, nil
}

// canary is the Agent's Canary: a write of path, as the extension sees
// Pi's tool_call event.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{"ev": "tool_call", "cwd": dir,
		"e": map[string]any{"toolName": "write", "input": map[string]string{"path": path, "content": "picket doctor's canary\n"}}})
	return b
}
