package qwen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's hooks in the user's settings and
// in the project's .qwen/settings.json (of o.Dir, where Qwen Code reads
// it), each run as Qwen Code runs a hook command, with bash -c.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	err := hook.EachSettingsFile(o, settingsFile, readSmall, func(scope, path string, b []byte) error {
		if _, err := parseSettings(b); err != nil {
			return fmt.Errorf("%s: %w (Qwen Code renames it and runs none of its hooks)", path, err)
		}
		cmds := HookCommands(b)
		for i, c := range cmds {
			if slices.Contains(cmds[:i], c) {
				continue // PreToolUse's and PostToolUse's: one wiring
			}
			out = append(out, hook.Wiring{Scope: scope, File: path, Exe: ParseHookCommand(c), Run: []string{"bash", "-c", c}})
		}
		return nil
	})
	return out, err
}

// settingsFile is the settings file of o's scope (the project's: an
// error in the home directory, where Qwen Code reads none).
func settingsFile(o hook.InstallOptions) (string, error) {
	path, _, err := where(o)
	return path, err
}

// ParseHookCommand returns the picket executable a hook command
// HookCommand wrote runs, "" for a command it cannot read.
func ParseHookCommand(cmd string) string {
	head, _, ok := strings.Cut(cmd, hookArgs+" ")
	if !ok {
		return ""
	}
	words, ok := unquote(head)
	if !ok || len(words) == 0 {
		return ""
	}
	return words[len(words)-1]
}

// unquote splits s into the words hook.ShellQuote wrote: plain words
// and single-quoted ones, a quote spelled '\”.
func unquote(s string) ([]string, bool) {
	var words []string
	var w strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			w.WriteByte(c)
		case c == '\'':
			in, any = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			any = true
		case c == ' ':
			if any {
				words = append(words, w.String())
			}
			w.Reset()
			any = false
		default:
			w.WriteByte(c)
			any = true
		}
	}
	if in {
		return nil, false
	}
	if any {
		words = append(words, w.String())
	}
	return words, true
}

// canary is the Agent's Canary: write_file of path, as Qwen Code 0.15.10
// hands it to a PreToolUse hook.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "picket-doctor", "transcript_path": "", "cwd": dir,
		"hook_event_name": EventPreToolUse, "timestamp": "", "permission_mode": "default",
		"tool_name": toolWrite, "tool_use_id": "picket-doctor",
		"tool_input": map[string]string{"file_path": path, "content": "picket doctor's canary\n"},
	})
	return b
}
