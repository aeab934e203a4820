package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/picketdev/picket/decide"
)

// Target is one path a tool call touches, and how.
type Target struct {
	Access decide.Access
	Path   string // as the agent wrote it (relative paths resolve against the call's cwd)
	Size   int64  // bytes a write leaves behind; -1 when unknown
	// Recursive tools (grep, glob) scan below Path: Filter is their glob
	// filter ("" for none), matched against paths relative to Path.
	Recursive bool
	Filter    string
	// FilterBase reads Filter as Grep's glob parameter, which the agent
	// hands to ripgrep's --glob: split on spaces and commas (a glob with
	// braces stays whole), "!" negates, and a glob without a slash matches
	// base names. Otherwise Filter is one glob over the relative path.
	FilterBase bool
	// Split says the agent is known to split Filter as Claude Code does
	// (see [grepGlobs]) before ripgrep reads it; without it, Filter is
	// also read as one glob, as Pi passes it.
	Split bool
	// Plain says Filter is one glob as fd reads it (Pi's find runs
	// fd --glob): not a gitignore line, so a leading "!" or "#" and
	// trailing spaces are part of the name it matches.
	Plain bool
	// Listing marks a tool that shows a directory's names (LS, Pi's ls):
	// a path the policy hides must not show among them.
	Listing bool
	// Root marks the directory a recursive tool was told to search (its
	// path field), as opposed to one picket derived from a pattern. It must
	// exist: a search root picket cannot find is one it cannot scan.
	Root bool
	// Links is what the recursive tool does with a symlink below Path
	// (see [LinkMode]); the zero value, followed, is the cautious one.
	Links LinkMode
}

// Call is one tool call as any agent makes it.
type Call struct {
	Agent   string
	Session string
	Turn    string
	Cwd     string
	Tool    string
	Input   map[string]json.RawMessage
	// Granted, when set, reports whether the person granted this access to
	// this resolved path for the session; a grant lifts boundary and
	// blocklist denials only.
	Granted func(access decide.Access, resolved string) bool
	// RipgrepConfig says the agent's ripgrep may read a config file
	// (RIPGREP_CONFIG_PATH is set), which can make it follow symlinks: a
	// search that would skip them is then scanned as if it followed them.
	RipgrepConfig bool
}

// ErrNotJudged marks tools picket does not judge (Bash, MCP tools, web
// fetches): they pass untouched.
var ErrNotJudged = errors.New("tool is not a file tool")

// ErrUnfenced denies a shell tool picket cannot sandbox: Claude Code runs
// PowerShell commands itself, not through CLAUDE_CODE_SHELL_PREFIX.
var ErrUnfenced = errors.New("PowerShell commands run outside picket's shell sandbox (Claude Code does not pass them through its shell prefix); use the Bash tool, whose commands picket fences")

// Targets returns the paths a call touches. A file tool with a missing or
// mistyped path field is an error: the caller denies it.
func Targets(c Call) ([]Target, error) {
	switch c.Agent {
	case "pi":
		return piTargets(c)
	}
	return ClaudeTargets(c.Tool, c.Input)
}

// ClaudeTargets maps a Claude Code tool call to the paths it touches.
func ClaudeTargets(tool string, in map[string]json.RawMessage) ([]Target, error) {
	switch tool {
	case "Read":
		return one(in, "file_path", decide.Read, false)
	case "Write":
		t, err := one(in, "file_path", decide.Write, false)
		if err == nil {
			t[0].Size = stringLen(in["content"])
		}
		return t, err
	case "Edit", "MultiEdit":
		return one(in, "file_path", decide.Write, false)
	case "NotebookEdit":
		return one(in, "notebook_path", decide.Write, false)
	case "LS":
		return listing(one(in, "path", decide.List, false))
	case "LSP":
		// A language server answers about the file named (hover shows a
		// constant's value): judged as a read of it. A request without
		// one (a workspace-wide symbol search) is denied.
		return one(in, "filePath", decide.Read, false)
	case "PowerShell":
		return nil, ErrUnfenced
	case "Grep":
		t, err := one(in, "path", decide.Read, true)
		if err != nil {
			return nil, err
		}
		t[0].Recursive, t[0].Root = true, true
		if t[0].Filter, err = optString(in, "glob"); err != nil {
			return nil, err
		}
		t[0].FilterBase, t[0].Split, t[0].Links = true, true, LinksSkipped
		if alt := claudeSearchPath(t[0].Path); alt != t[0].Path {
			a := t[0]
			a.Path = alt
			t = append([]Target{a}, t...) // the spelling searched first: its block names what it reaches
		}
		return t, nil
	case "Glob":
		t, err := globTargets(in, "path", "pattern")
		if err != nil {
			return nil, err
		}
		if alt := claudeSearchPath(t[0].Path); alt != t[0].Path {
			a, _ := globTargetsAt(alt, stringField(in, "pattern"))
			t = append(a, t...)
		}
		return t, nil
	}
	return nil, ErrNotJudged
}

// claudeSearchPath is the path Claude Code's Grep and Glob search when
// handed p. Claude Code trims white space (JavaScript's set) from a file
// path and brings it to Unicode NFC, but for these two tools only after
// the hook has run, so the hook sees p as the model wrote it ("sub " or an
// NBSP-prefixed path) while the search runs on the other spelling. picket
// judges both. (".." read by text is decide.Lexical's.)
func claudeSearchPath(p string) string {
	t := strings.TrimFunc(p, isJSSpace)
	if t == "" {
		return "." // Claude Code searches its cwd, as for ""
	}
	return norm.NFC.String(t)
}

// isJSSpace is JavaScript's WhiteSpace and LineTerminator, what
// String.prototype.trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// stringField is a string field already read once without error.
func stringField(in map[string]json.RawMessage, field string) string {
	s, _ := stringOf(in[field])
	return s
}

// one reads a single path field. With optional, a missing field means the
// call's cwd (Grep and Glob default to it).
func one(in map[string]json.RawMessage, field string, a decide.Access, optional bool) ([]Target, error) {
	raw, ok := in[field]
	if !ok || string(raw) == "null" && optional {
		if optional {
			return []Target{{Access: a, Path: ".", Size: -1}}, nil
		}
		return nil, fmt.Errorf("tool input has no %s", field)
	}
	p, err := stringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field %s: %w", field, err)
	}
	if p == "" {
		if optional {
			p = "."
		} else {
			return nil, fmt.Errorf("tool input field %s is empty", field)
		}
	}
	return []Target{{Access: a, Path: p, Size: -1}}, nil
}

// listing marks targets as a directory listing's (see [Target.Listing]).
func listing(t []Target, err error) ([]Target, error) {
	for i := range t {
		t[i].Listing = true
	}
	return t, err
}

func optString(in map[string]json.RawMessage, field string) (string, error) {
	raw, ok := in[field]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	s, err := stringOf(raw)
	if err != nil {
		return "", fmt.Errorf("tool input field %s: %w", field, err)
	}
	return s, nil
}

func stringLen(raw json.RawMessage) int64 {
	s, err := stringOf(raw)
	if err != nil {
		return -1
	}
	return int64(len(s))
}

// globTargets lists the glob's root, scanned with the whole pattern as its
// filter (ripgrep, Claude Code's Glob, matches it from its working
// directory, not joined to the root), and for a pattern climbing out of
// it ("../../etc/**") the literal directory prefix of the pattern joined
// to the root, scanned with the rest: ripgrep lists nothing for it, but a
// tool that reads the pattern against its path reaches there. An absolute
// pattern is searched where Claude Code cuts it. ripgrep walks each root
// without following the symlinks below it.
func globTargets(in map[string]json.RawMessage, pathField, patField string) ([]Target, error) {
	t, err := one(in, pathField, decide.List, true)
	if err != nil {
		return nil, err
	}
	raw, ok := in[patField]
	if !ok || string(raw) == "null" {
		return nil, fmt.Errorf("tool input has no %s", patField)
	}
	pat, err := stringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field %s: %w", patField, err)
	}
	return globTargetsAt(t[0].Path, pat)
}

// globTargetsAt is globTargets for a root and pattern already read.
func globTargetsAt(root, pat string) ([]Target, error) {
	if filepath.IsAbs(pat) {
		t := []Target{{Access: decide.List, Path: root, Size: -1}}
		// Claude Code cuts an absolute pattern at its first glob character
		// and searches the directory before the cut, trimmed, for the
		// rest; a pattern without one is its directory searched for its
		// base name, which ripgrep matches at any depth.
		dir, glob := claudeGlobSplit(pat)
		for _, d := range []string{dir, claudeSearchPath(dir)} {
			c := Target{Access: decide.List, Path: d, Size: -1, Recursive: true, Filter: glob, Links: LinksSkipped}
			if !slices.Contains(t, c) {
				t = append(t, c)
			}
		}
		return t, nil
	}
	t := []Target{{Access: decide.List, Path: root, Size: -1, Recursive: true, Root: true, Filter: pat, Links: LinksSkipped}}
	if prefix, rest := literalPrefix(pat); slices.Contains(strings.Split(prefix, "/"), "..") {
		t = append(t, Target{Access: decide.List, Path: root + "/" + prefix, Size: -1, Recursive: true, Filter: rest})
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

// literalPrefix splits a glob into its leading directories without glob
// characters and the rest.
func literalPrefix(pat string) (prefix, rest string) {
	parts := strings.Split(pat, "/")
	for i, p := range parts {
		if strings.ContainsAny(p, "*?[{") {
			prefix = strings.Join(parts[:i], "/")
			if i == 1 && parts[0] == "" {
				prefix = "/"
			}
			return prefix, strings.Join(parts[i:], "/")
		}
	}
	// No glob character: the whole pattern names one path.
	return pat, ""
}
