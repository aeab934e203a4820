package copilot

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/patch"
)

// fileTools are the tools Targets judges, by Copilot CLI's own names
// (the Pascal dialect's Claude Code names are read into them): view reads
// a file or lists a directory; create, edit and str_replace_editor write
// one; apply_patch writes every file of its patch; grep and rg (the same
// tool, offered to GPT-5 models) search, glob lists.
var fileTools = []string{"view", "create", "edit", "str_replace_editor", "apply_patch", "grep", "rg", "glob"}

// ErrPowerShell denies a PowerShell command: picket runs shell commands
// in its sandbox through bash only.
var ErrPowerShell = errors.New("picket cannot run PowerShell commands in its shell sandbox; use the bash tool")

// targets is the Agent's Targets. Relative paths are joined to the
// session's directory (the event's cwd, where Copilot CLI resolves them),
// a leading "~" included: Copilot CLI's tools do not expand it.
func targets(c hook.Call) ([]hook.Target, error) {
	in := c.Input
	switch c.Tool {
	case "view":
		return view(c, in)
	case "create":
		t, err := writeTarget(c, in)
		if err == nil {
			t[0].Size = hook.StringLen(in["file_text"])
		}
		return t, err
	case "edit":
		return writeTarget(c, in)
	case "str_replace_editor":
		cmd, err := hook.OptString(in, "command")
		if err != nil {
			return nil, err
		}
		switch cmd {
		case "view":
			return view(c, in)
		case "create", "str_replace", "insert", "undo_edit":
			t, err := writeTarget(c, in)
			if err == nil && cmd == "create" {
				t[0].Size = hook.StringLen(in["file_text"])
			}
			return t, err
		}
		return nil, fmt.Errorf("str_replace_editor command %q is not one picket knows", cmd)
	case "apply_patch":
		return patchTargets(c, in)
	case "grep", "rg":
		return searchTargets(c, in)
	case "glob":
		return globTargets(c, in)
	}
	return nil, hook.ErrNotJudged
}

// abs joins a path the model wrote to the session's directory, as
// Copilot CLI does ("~" is a name there, and ".." stays for decide.Check
// to judge both readings).
func abs(c hook.Call, p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return strings.TrimSuffix(c.Dir(), "/") + "/" + p
}

// path reads the required path field.
func path(c hook.Call, in map[string]json.RawMessage) (string, error) {
	t, err := hook.PathTarget(in, "path", decide.Read, false)
	if err != nil {
		return "", err
	}
	return abs(c, t[0].Path), nil
}

// view reads a file, or lists a directory: its names, one level down.
// Which one is what the path is now.
func view(c hook.Call, in map[string]json.RawMessage) ([]hook.Target, error) {
	p, err := path(c, in)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return []hook.Target{{Access: decide.List, Path: p, Size: -1, Listing: true}}, nil
	}
	return []hook.Target{{Access: decide.Read, Path: p, Size: -1, Seen: true}}, nil
}

// writeTarget is a write of the path field that changes the file in
// place (read-before-edit) and whose result the agent has seen.
func writeTarget(c hook.Call, in map[string]json.RawMessage) ([]hook.Target, error) {
	p, err := path(c, in)
	if err != nil {
		return nil, err
	}
	return []hook.Target{{Access: decide.Write, Path: p, Size: -1, Edit: true, Seen: true}}, nil
}

// patchTargets are the files an apply_patch writes, both ends of a move;
// a patch picket cannot read is denied.
func patchTargets(c hook.Call, in map[string]json.RawMessage) ([]hook.Target, error) {
	raw, ok := in[rawKey]
	if !ok || len(in) != 1 {
		return nil, errors.New("apply_patch input is not the patch text")
	}
	text, err := hook.StringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("apply_patch input: %w", err)
	}
	ps, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("apply_patch: %w", err)
	}
	out := make([]hook.Target, 0, len(ps))
	for _, p := range ps {
		t := hook.Target{Access: decide.Write, Path: p.Abs(c.Dir()), Size: -1}
		switch p.Op {
		case patch.Update:
			t.Edit, t.Seen = true, true
		case patch.Add, patch.MoveTo:
			t.Seen = true
		}
		out = append(out, t)
	}
	return out, nil
}

// roots reads a search's paths (a list; none, or an empty one, is the
// session's directory, as Copilot CLI searches it).
func roots(c hook.Call, in map[string]json.RawMessage) ([]string, error) {
	raw, ok := in["paths"]
	if !ok || string(raw) == "null" {
		return []string{abs(c, ".")}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(raw) == 0 || raw[0] != '[' {
		return nil, errors.New("tool input field paths: not a list of paths")
	}
	var out []string
	for i, r := range list {
		p, err := hook.StringOf(r)
		if err != nil {
			return nil, fmt.Errorf("tool input field paths[%d]: %w", i, err)
		}
		if p == "" {
			p = "."
		}
		if p := abs(c, p); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = []string{abs(c, ".")}
	}
	return out, nil
}

// searchTargets is grep's (and rg's) judgement, as Claude Code's Grep
// gets: every root scanned for what the search could read, its glob
// parameter as ripgrep's --glob, passed whole (measured: "*.py,*.txt" is
// one glob, not split). Copilot CLI's search reads hidden files and
// follows no symlink below a root with ripgrep, but in a repository of
// 50,000 files or more it searches an index (tgrep) instead, which picket
// cannot vouch for: a link below a root is judged as if followed.
func searchTargets(c hook.Call, in map[string]json.RawMessage) ([]hook.Target, error) {
	glob, err := hook.OptString(in, "glob")
	if err != nil {
		return nil, err
	}
	rs, err := roots(c, in)
	if err != nil {
		return nil, err
	}
	out := make([]hook.Target, 0, len(rs))
	for _, r := range rs {
		out = append(out, hook.Target{Access: decide.Read, Path: r, Size: -1, Recursive: true, Root: true,
			Filter: glob, FilterBase: true, Links: hook.LinksFollowed})
	}
	return out, nil
}

// globTargets is glob's judgement, as Claude Code's Glob gets: every root
// listed below with the pattern as its filter (a gitignore glob, as
// ripgrep's --glob reads it, which matches no less than Copilot CLI's
// glob), and for a pattern that is absolute or climbs out of a root
// ("../*"), its literal directory scanned with the rest: Copilot CLI
// lists nothing there (measured), a tool that read the pattern against
// its path would.
func globTargets(c hook.Call, in map[string]json.RawMessage) ([]hook.Target, error) {
	raw, ok := in["pattern"]
	if !ok || string(raw) == "null" {
		return nil, errors.New("tool input has no pattern")
	}
	pat, err := hook.StringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field pattern: %w", err)
	}
	rs, err := roots(c, in)
	if err != nil {
		return nil, err
	}
	var out []hook.Target
	for _, r := range rs {
		out = append(out, hook.Target{Access: decide.List, Path: r, Size: -1, Recursive: true, Root: true,
			Filter: pat, Links: hook.LinksFollowed})
		prefix, rest := hook.LiteralPrefix(pat)
		switch {
		case filepath.IsAbs(pat):
			if rest == "" { // no glob character: the path itself
				prefix, rest = filepath.Dir(pat), filepath.Base(pat)
			}
			out = append(out, hook.Target{Access: decide.List, Path: prefix, Size: -1, Recursive: true, Filter: rest, Links: hook.LinksFollowed})
		case slices.Contains(strings.Split(prefix, "/"), ".."):
			if rest == "" {
				prefix, rest = filepath.Dir(prefix), filepath.Base(prefix)
			}
			out = append(out, hook.Target{Access: decide.List, Path: r + "/" + prefix, Size: -1, Recursive: true, Filter: rest, Links: hook.LinksFollowed})
		}
	}
	return out, nil
}

// rewrite is the Agent's Rewrite: a bash call's command, run in the
// session's directory under picket run as bash -c COMMAND, every other
// member of its input kept as the model wrote it (Copilot CLI replaces
// the whole input with the rewrite: a mode or shellId left out would
// change the call). A PowerShell call, or a bash call whose command
// picket cannot read, is denied. Every other call is left as it is:
// read_bash, write_bash and stop_bash talk to a shell a bash call
// started, under picket run, since Copilot CLI reads its hooks once, when
// a session starts (measured), so every shell of a session picket is
// hooked into was started wrapped.
func rewrite(c hook.Call, run hook.ShellRun) (map[string]json.RawMessage, error) {
	switch c.Tool {
	case "powershell":
		return nil, ErrPowerShell
	case "bash":
	default:
		return nil, nil
	}
	raw, ok := c.Input["command"]
	if !ok {
		return nil, errors.New("bash input has no command")
	}
	cmd, err := hook.StringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("bash input field command: %w", err)
	}
	if strings.TrimSpace(cmd) == "" {
		return nil, errors.New("bash input field command is empty")
	}
	if !filepath.IsAbs(c.Dir()) {
		return nil, fmt.Errorf("event cwd %q is not an absolute path", c.Dir())
	}
	line, err := run.Line(c.Dir(), "bash", "-c", cmd)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(c.Input))
	for k, v := range c.Input {
		out[k] = v
	}
	out["command"] = b
	return out, nil
}
