package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's BeforeTool hook in Gemini CLI's
// user settings and in the workspace settings of the directory it starts
// in, each run as Gemini CLI runs a command hook, through bash -c. A
// BeforeTool hook of picket's that is not as install writes it (its
// matcher, its timeout, its sequential switch or its command changed),
// or picket's other hooks without it, is an error: Gemini CLI would then
// let through calls the canary cannot show.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	err := hook.EachSettingsFile(o, userOrWorkspace, readSettingsFile, func(scope, path string, b []byte) error {
		ws, err := wiringsIn(b, path)
		for _, w := range ws {
			w.Scope = scope
			out = append(out, w)
		}
		return err
	})
	return out, err
}

// userOrWorkspace is the settings file of o's scope (the workspace's:
// an error in the home directory, where Gemini CLI reads none).
func userOrWorkspace(o hook.InstallOptions) (string, error) {
	path, _, err := settingsPath(o)
	return path, err
}

// wiringsIn finds picket's BeforeTool hooks in the settings b (the file
// at path), and checks each and picket's other hooks against what
// install writes.
func wiringsIn(b []byte, path string) ([]hook.Wiring, error) {
	std, err := hujson.Standardize(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (Gemini CLI reads none of its settings)", path, err)
	}
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(std, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []hook.Wiring
	others := 0
	has := map[string]bool{}
	for event, raw := range s.Hooks {
		var groups []hookGroup
		if json.Unmarshal(raw, &groups) != nil {
			continue // not a list of groups: Gemini CLI skips it, and picket has none there
		}
		for _, g := range groups {
			for _, h := range g.Hooks {
				if !isPicketHook(h.Name, h.Command) {
					continue
				}
				has[event] = true
				if event != EventBeforeTool {
					others++
					continue
				}
				exe := hookExe(h.Command)
				switch {
				case exe == "" || h.Command != HookCommand(exe):
					return nil, fmt.Errorf("%s: picket's BeforeTool hook command is not the one install writes (%q)", path, h.Command)
				case g.Matcher != BeforeMatcher:
					return nil, fmt.Errorf("%s: picket's BeforeTool hook matches %q, not the tools install names (%q): Gemini CLI runs the others without it", path, g.Matcher, BeforeMatcher)
				case h.Timeout != HookTimeout.Milliseconds():
					return nil, fmt.Errorf("%s: picket's BeforeTool hook has a timeout of %d ms, not %d: past its timeout, Gemini CLI runs the call", path, h.Timeout, HookTimeout.Milliseconds())
				case !g.Sequential:
					return nil, fmt.Errorf("%s: picket's BeforeTool hooks are not sequential: a hook after picket's that rewrites a shell command would run it outside picket run", path)
				}
				out = append(out, hook.Wiring{File: path, Exe: exe, Run: []string{"bash", "-c", h.Command}})
			}
		}
	}
	if len(out) == 0 && others > 0 {
		return nil, fmt.Errorf("%s holds picket's hooks without the BeforeTool one, which judges every call", path)
	}
	for _, e := range events {
		if len(out) > 0 && !has[e.name] {
			return nil, fmt.Errorf("%s holds no %s hook of picket's, which install writes (an older install?)", path, e.name)
		}
	}
	return out, nil
}

// hookExe is the picket executable a command HookCommand wrote runs: its
// first word, or the first after the timeout and its seconds, unquoted;
// "" when it is not one.
func hookExe(cmd string) string {
	word, rest, ok := shellWord(cmd)
	if !ok {
		return ""
	}
	if after, found := strings.CutPrefix(rest, timeoutArgs); found {
		_, after, _ = strings.Cut(after, " ") // the seconds
		word, _, ok = shellWord(after)
		if !ok {
			return ""
		}
	}
	return word
}

// shellWord splits off the first word of s as hook.ShellQuote writes one
// (bare, or in single quotes with '\” for a quote).
func shellWord(s string) (word, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		word, rest, _ = strings.Cut(s, " ")
		return word, " " + rest, word != ""
	}
	var b strings.Builder
	for s = s[1:]; ; {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			return "", "", false
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		if !strings.HasPrefix(s, `\''`) {
			return b.String(), s, true
		}
		b.WriteByte('\'')
		s = s[3:]
	}
}

// canary is the Agent's Canary: a write_file of path, as Gemini CLI 0.61
// hands it to a BeforeTool hook.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "picket-doctor", "transcript_path": "", "cwd": dir, "hook_event_name": EventBeforeTool,
		"timestamp": "1970-01-01T00:00:00.000Z", "tool_name": toolWrite,
		"tool_input": map[string]string{"file_path": path, "content": "picket doctor's canary\n"},
	})
	return b
}
