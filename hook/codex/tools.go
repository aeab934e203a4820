package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/patch"
)

// fileTools are the tools Targets judges, by the names Codex gives them
// in hooks: every shell tool is Bash (exec_command, shell, …).
var fileTools = []string{"Bash", "apply_patch", "view_image"}

// targets is the Agent's Targets.
func targets(c hook.Call) ([]hook.Target, error) { return Targets(c.Tool, c.Input, c.Cwd) }

// Targets maps a Codex tool call, run in cwd (the call's working
// directory, absolute), to what it touches. Codex has no read, list or
// search tool of its own: it reads through its shell, whose command line
// picket judges by its words (hook.ShellLine; cwd is the directory the
// model chose for it). apply_patch writes every path its patch adds,
// updates, deletes or moves (both ends), relative to cwd as Codex
// applies it; a patch picket cannot read is denied. view_image reads
// one file.
func Targets(tool string, in map[string]json.RawMessage, cwd string) ([]hook.Target, error) {
	switch tool {
	case "Bash":
		line, err := command(in)
		if err != nil {
			return nil, err
		}
		return hook.ShellLine(line, cwd), nil
	case "apply_patch":
		text, err := command(in)
		if err != nil {
			return nil, err
		}
		ps, err := patch.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("apply_patch: %w", err)
		}
		out := make([]hook.Target, 0, len(ps))
		for _, p := range ps {
			out = append(out, hook.Target{Access: decide.Write, Path: p.Abs(cwd), Size: -1})
		}
		return out, nil
	case "view_image":
		t, err := hook.PathTarget(in, "path", decide.Read, false)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(t[0].Path) {
			t[0].Path = cwd + "/" + t[0].Path // ".." kept: decide.Check judges both readings
		}
		return t, nil
	}
	return nil, hook.ErrNotJudged
}

// command reads tool_input.command: a shell command line, or the raw
// text of a patch.
func command(in map[string]json.RawMessage) (string, error) {
	raw, ok := in["command"]
	if !ok {
		return "", fmt.Errorf("tool input has no command")
	}
	s, err := hook.StringOf(raw)
	if err != nil {
		return "", fmt.Errorf("tool input field command: %w", err)
	}
	return s, nil
}
