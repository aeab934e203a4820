package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// ErrUnfenced denies a shell tool picket cannot sandbox: Claude Code runs
// PowerShell commands itself, not through CLAUDE_CODE_SHELL_PREFIX.
var ErrUnfenced = errors.New("PowerShell commands run outside picket's shell sandbox (Claude Code does not pass them through its shell prefix); use the Bash tool, whose commands picket fences")

// fileTools are the tools Targets judges.
var fileTools = []string{"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "LS", "LSP", "PowerShell", "Grep", "Glob"}

// targets is the Agent's Targets.
func targets(c hook.Call) ([]hook.Target, error) { return Targets(c.Tool, c.Input) }

// Targets maps a Claude Code tool call to the paths it touches.
func Targets(tool string, in map[string]json.RawMessage) ([]hook.Target, error) {
	switch tool {
	case "Read":
		return seen(hook.PathTarget(in, "file_path", decide.Read, false))
	case "Write":
		t, err := edit(hook.PathTarget(in, "file_path", decide.Write, false))
		if err == nil {
			t[0].Size = hook.StringLen(in["content"])
		}
		return t, err
	case "Edit", "MultiEdit":
		return edit(hook.PathTarget(in, "file_path", decide.Write, false))
	case "NotebookEdit":
		return edit(hook.PathTarget(in, "notebook_path", decide.Write, false))
	case "LS":
		return hook.Listing(hook.PathTarget(in, "path", decide.List, false))
	case "LSP":
		// A language server answers about the file named (hover shows a
		// constant's value): judged as a read of it. A request without
		// one (a workspace-wide symbol search) is denied.
		return hook.PathTarget(in, "filePath", decide.Read, false)
	case "PowerShell":
		return nil, ErrUnfenced
	case "Grep":
		if err := onePath(in); err != nil {
			return nil, err
		}
		t, err := hook.PathTarget(in, "path", decide.Read, true)
		if err != nil {
			return nil, err
		}
		t[0].Recursive, t[0].Root = true, true
		if t[0].Filter, err = hook.OptString(in, "glob"); err != nil {
			return nil, err
		}
		t[0].FilterBase, t[0].Split, t[0].Links = true, true, hook.LinksSkipped
		if alt := claudeSearchPath(t[0].Path); alt != t[0].Path {
			a := t[0]
			a.Path = alt
			t = append([]hook.Target{a}, t...) // the spelling searched first: its block names what it reaches
		}
		return t, nil
	case "Glob":
		if err := onePath(in); err != nil {
			return nil, err
		}
		t, err := globTargets(in, "path", "pattern")
		if err != nil {
			return nil, err
		}
		if alt := claudeSearchPath(t[0].Path); alt != t[0].Path {
			a, _ := globTargetsAt(alt, hook.StringField(in, "pattern"))
			t = append(a, t...)
		}
		return t, nil
	}
	return nil, hook.ErrNotJudged
}

// ErrPaths denies a Grep or Glob that names its roots in "paths": Claude
// Code's take one "path", and picket would judge the call by that
// (missing: the cwd) while the tool that runs it searches the paths
// listed. Copilot CLI sends such calls to the hooks of a repository's
// .claude/settings.json; picket hook judges them as Copilot CLI's where
// Copilot CLI says it runs the hook, and this stops any it does not.
var ErrPaths = errors.New(`the search names its roots in "paths", which Claude Code's Grep and Glob do not take: it is another agent's call (GitHub Copilot CLI's), and picket cannot judge it as Claude Code's`)

// onePath refuses a search input with a "paths" member.
func onePath(in map[string]json.RawMessage) error {
	if _, ok := in["paths"]; ok {
		return ErrPaths
	}
	return nil
}

// seen marks a read whose content the agent has seen once it ran.
func seen(t []hook.Target, err error) ([]hook.Target, error) {
	for i := range t {
		t[i].Seen = true
	}
	return t, err
}

// edit marks a write that changes a file in place (read-before-edit), and
// whose result the agent has seen.
func edit(t []hook.Target, err error) ([]hook.Target, error) {
	for i := range t {
		t[i].Edit, t[i].Seen = true, true
	}
	return t, err
}

// claudeSearchPath is the path Claude Code's Grep and Glob search when
// handed p. Claude Code trims white space (JavaScript's set) from a file
// path and brings it to Unicode NFC, but for these two tools only after
// the hook has run, so the hook sees p as the model wrote it ("sub " or an
// NBSP-prefixed path) while the search runs on the other spelling. picket
// judges both. (".." read by text is decide.Lexical's.)
func claudeSearchPath(p string) string {
	t := strings.TrimFunc(p, hook.IsJSSpace)
	if t == "" {
		return "." // Claude Code searches its cwd, as for ""
	}
	return norm.NFC.String(t)
}

// globTargets lists the glob's root, scanned with the whole pattern as its
// filter (ripgrep, Claude Code's Glob, matches it from its working
// directory, not joined to the root), and for a pattern climbing out of
// it ("../../etc/**") the literal directory prefix of the pattern joined
// to the root, scanned with the rest: ripgrep lists nothing for it, but a
// tool that reads the pattern against its path reaches there. An absolute
// pattern is searched where Claude Code cuts it. ripgrep walks each root
// without following the symlinks below it.
func globTargets(in map[string]json.RawMessage, pathField, patField string) ([]hook.Target, error) {
	t, err := hook.PathTarget(in, pathField, decide.List, true)
	if err != nil {
		return nil, err
	}
	raw, ok := in[patField]
	if !ok || string(raw) == "null" {
		return nil, fmt.Errorf("tool input has no %s", patField)
	}
	pat, err := hook.StringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field %s: %w", patField, err)
	}
	return globTargetsAt(t[0].Path, pat)
}

// globTargetsAt is globTargets for a root and pattern already read.
func globTargetsAt(root, pat string) ([]hook.Target, error) {
	if filepath.IsAbs(pat) {
		t := []hook.Target{{Access: decide.List, Path: root, Size: -1}}
		// Claude Code cuts an absolute pattern at its first glob character
		// and searches the directory before the cut, trimmed, for the
		// rest; a pattern without one is its directory searched for its
		// base name, which ripgrep matches at any depth.
		dir, glob := claudeGlobSplit(pat)
		for _, d := range []string{dir, claudeSearchPath(dir)} {
			c := hook.Target{Access: decide.List, Path: d, Size: -1, Recursive: true, Filter: glob, Links: hook.LinksSkipped}
			if !slices.Contains(t, c) {
				t = append(t, c)
			}
		}
		return t, nil
	}
	t := []hook.Target{{Access: decide.List, Path: root, Size: -1, Recursive: true, Root: true, Filter: pat, Links: hook.LinksSkipped}}
	if prefix, rest := hook.LiteralPrefix(pat); slices.Contains(strings.Split(prefix, "/"), "..") {
		t = append(t, hook.Target{Access: decide.List, Path: root + "/" + prefix, Size: -1, Recursive: true, Filter: rest})
	}
	return t, nil
}

// claudeGlobSplit splits an absolute Glob pattern as Claude Code does: at
// the last slash before the first glob character (or the last slash of a
// pattern without one) into the directory searched and the glob.
func claudeGlobSplit(pat string) (dir, glob string) {
	head := pat
	if i := strings.IndexAny(pat, "*?[{"); i >= 0 {
		head = pat[:i]
	}
	j := strings.LastIndexByte(head, '/')
	dir, glob = pat[:j], pat[j+1:]
	if dir == "" {
		dir = "/"
	}
	return dir, glob
}
