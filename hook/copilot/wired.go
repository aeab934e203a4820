package copilot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's preToolUse hooks in the person's
// hooks directory and the repository's .github/hooks (any file of them,
// picket.json being the one install writes), each run as Copilot CLI
// runs a hooks file's bash command: bash -c COMMAND, the event on stdin.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	home, err := copilotHome(o)
	if err != nil {
		return nil, err
	}
	var out []hook.Wiring
	for _, d := range []struct{ scope, dir string }{
		{"user", filepath.Join(home, "hooks")},
		{"project", filepath.Join(projectRoot(o), ".github", "hooks")},
	} {
		for _, f := range filesBefore(d.dir, "") {
			b, err := os.ReadFile(f)
			if err != nil {
				return out, err
			}
			var file struct {
				Hooks map[string][]struct {
					Bash string `json:"bash"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(b, &file); err != nil {
				if strings.Contains(string(b), " "+strings.Join(HookArgs, " ")) {
					return out, fmt.Errorf("%s is not JSON: Copilot CLI runs none of its hooks", f)
				}
				continue
			}
			for _, e := range file.Hooks["preToolUse"] {
				if exe, ok := ParseHookCommand(e.Bash); ok {
					out = append(out, hook.Wiring{Scope: d.scope, File: f, Exe: exe, Run: []string{"bash", "-c", e.Bash}})
				}
			}
		}
	}
	return out, nil
}

// ParseHookCommand reads the picket executable out of a command
// [HookCommand] wrote, with or without timeout(1); false when cmd is not
// one.
func ParseHookCommand(cmd string) (exe string, ok bool) {
	tail := strings.TrimPrefix(hookCommand("x", "", 0), "x")
	head, found := strings.CutSuffix(cmd, tail)
	if !found {
		return "", false
	}
	if i := strings.Index(head, " --foreground -k 10 "); i >= 0 {
		if _, ok := unquote(head[:i]); !ok {
			return "", false
		}
		secs, rest, _ := strings.Cut(head[i+len(" --foreground -k 10 "):], " ")
		if _, err := strconv.Atoi(secs); err != nil {
			return "", false
		}
		head = rest
	}
	return unquote(head)
}

// unquote reads one word as [hook.ShellQuote] writes it: an absolute
// path.
func unquote(word string) (string, bool) {
	s := word
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) > 1 {
		s = strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	return s, hook.ShellQuote(s) == word && filepath.IsAbs(s)
}

// canary is the Agent's Canary: a create of path, in the camelCase
// preToolUse event Copilot CLI hands picket's hooks file.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"sessionId": "picket-doctor", "timestamp": 0, "cwd": dir, "toolName": "create",
		"toolArgs": map[string]string{"path": path, "file_text": "picket doctor's canary\n"},
	})
	return b
}
