package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired, for picket doctor: picket's BeforeTool hook
// in the user's settings.json and the workspace's .gemini/settings.json,
// each run as Gemini CLI runs a hook command, through bash -c.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	seen := map[string]bool{}
	for _, project := range []bool{false, true} {
		oo := o
		oo.User, oo.Project = !project, project
		path, _, err := settingsPath(oo)
		if err != nil {
			if project {
				continue // no workspace settings here (the home directory)
			}
			return out, err
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		b, err := readSettingsFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		cmds, err := beforeToolCommands(b)
		if err != nil {
			return out, fmt.Errorf("%s: %w (Gemini CLI reads none of its hooks)", path, err)
		}
		scope := map[bool]string{false: "user", true: "project"}[project]
		for _, c := range cmds {
			out = append(out, hook.Wiring{Scope: scope, File: path, Exe: commandExe(c), Run: []string{"bash", "-c", c}})
		}
	}
	return out, nil
}

// beforeToolCommands are the commands of picket's BeforeTool hooks in a
// settings file (JSON with comments).
func beforeToolCommands(b []byte) ([]string, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Name, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(std, &s); err != nil {
		return nil, err
	}
	var out []string
	for _, g := range s.Hooks[EventBeforeTool] {
		for _, h := range g.Hooks {
			if isPicketHook(h.Name, h.Command) {
				out = append(out, h.Command)
			}
		}
	}
	return out, nil
}

// commandExe is the executable of a hook command [HookCommand] wrote,
// unquoted; "" for any other command.
func commandExe(cmd string) string {
	_, rest, ok := strings.Cut(cmd, "; else ")
	word, _, ok2 := strings.Cut(rest, " "+strings.Join(HookArgs, " ")+"; fi")
	if !ok || !ok2 {
		return ""
	}
	exe := word
	if len(word) > 1 && word[0] == '\'' && word[len(word)-1] == '\'' {
		exe = strings.ReplaceAll(word[1:len(word)-1], `'\''`, "'")
	}
	if hook.ShellQuote(exe) != word || HookCommand(exe) != cmd {
		return ""
	}
	return exe
}
