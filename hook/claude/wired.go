package claude

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's hook commands in
// ~/.claude/settings.json and the project's .claude/settings.json, each
// run as Claude Code runs a hook command, through /bin/sh -c.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	seen := map[string]bool{}
	for _, user := range []bool{true, false} {
		oo := o
		oo.User, oo.Project = user, !user
		path, err := settingsPath(oo)
		if err != nil {
			return out, err
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		b, err := ReadSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		if len(strings.TrimSpace(string(b))) > 0 && !json.Valid(b) {
			return out, errors.New(path + " is not JSON: Claude Code reads none of its hooks")
		}
		scope := map[bool]string{true: "user", false: "project"}[user]
		for _, c := range HookCommands(b) {
			out = append(out, hook.Wiring{Scope: scope, File: path, Exe: commandExe(c), Run: []string{"/bin/sh", "-c", c}})
		}
	}
	return out, nil
}

// commandExe is the executable of a hook command HookCommand wrote: the
// first word, unquoted; "" when it is not one.
func commandExe(cmd string) string {
	word := strings.TrimSuffix(cmd, " "+strings.Join(HookArgs, " "))
	if strings.HasPrefix(word, "'") && strings.HasSuffix(word, "'") && len(word) > 1 {
		word = strings.ReplaceAll(word[1:len(word)-1], `'\''`, "'")
	}
	if shellQuote(word) != strings.TrimSuffix(cmd, " "+strings.Join(HookArgs, " ")) || !filepath.IsAbs(word) {
		return ""
	}
	return word
}

// canary is the Agent's Canary: a Write of path, as Claude Code hands it
// to a PreToolUse hook.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "picket-doctor", "transcript_path": "", "cwd": dir, "permission_mode": "default",
		"hook_event_name": EventPreToolUse, "tool_name": "Write",
		"tool_input": map[string]string{"file_path": path, "content": "picket doctor's canary\n"},
	})
	return b
}
