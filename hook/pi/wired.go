package pi

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

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
		exe := extensionExe(b)
		scope := map[bool]string{true: "user", false: "project"}[user]
		out = append(out, hook.Wiring{Scope: scope, File: file, Exe: exe, Run: []string{exe, "serve"}})
	}
	return out, nil
}

// exeLine is the line of the extension [Render] bakes the executable into,
// compiled on first use (every picket hook process starts with this
// package; only install and doctor read the extension).
var exeLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^const PICKET = ("(?:[^"\\\n]|\\.)*");`)
})

// extensionExe is the picket executable an installed extension runs, ""
// when it names none.
func extensionExe(src []byte) string {
	m := exeLine().FindSubmatch(src)
	var exe string
	if m == nil || json.Unmarshal(m[1], &exe) != nil {
		return ""
	}
	return exe
}

// canary is the Agent's Canary: a write of path, as the extension sees
// Pi's tool_call event.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{"ev": "tool_call", "cwd": dir,
		"e": map[string]any{"toolName": "write", "input": map[string]string{"path": path, "content": "picket doctor's canary\n"}}})
	return b
}
