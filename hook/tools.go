package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	// Fnmatch says the tool may also hand Filter to git grep as a
	// pathspec or to GNU grep as --include (Gemini CLI's grep_search
	// without ripgrep): fnmatch with no brace expansion, over the whole
	// path below Path with "*" and "?" spanning "/" and a match of a
	// directory reaching all below it, or over the base name. A path is
	// reached if either reading, or the ripgrep one, reaches it.
	Fnmatch bool
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
	// Edit marks a write that leaves a file's content changed in place
	// (a Write, an Edit): the read-before-edit guard applies to it.
	Edit bool
	// Seen marks a path whose current content the agent has seen once
	// the call ran (a read, or its own write): the ledger records it.
	Seen bool
	// Shell marks a shell command line that the agent runs as it is, with
	// no way for a hook to wrap it in picket run: Line is the line, Path
	// the directory it runs in. The pipeline reads it with package
	// shellcmd once the policy is known, into the paths it touches and the
	// commands it runs (see [ShellTargets]); a line it cannot read is
	// denied. Build one with [ShellLine].
	Shell bool
	Line  string
}

// Call is one tool call as any agent makes it.
type Call struct {
	Agent   string
	Session string
	Turn    string
	Cwd     string
	// Root, when the agent names it apart from Cwd, is the session's
	// project directory: the policy is the one in force there, and
	// relative paths resolve against it (an agent that moves its hook's
	// cwd to a command's working directory). "" means Cwd.
	Root  string
	Tool  string
	Input map[string]json.RawMessage
	// Dialect names the form of the agent's event, for an agent that
	// speaks more than one hook dialect (Copilot CLI's own and its
	// Claude-compatible one) and must answer in the one it was asked in;
	// "" for one that speaks one.
	Dialect string
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

// Dir is where the call's policy is looked for and its relative paths
// resolve: Root when the agent named one, else Cwd.
func (c Call) Dir() string {
	if c.Root != "" {
		return c.Root
	}
	return c.Cwd
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

// PathTarget reads the path field of a tool input as one target with
// access a. With optional, a missing or null field means the call's
// directory (searches default to it).
func PathTarget(in map[string]json.RawMessage, field string, a decide.Access, optional bool) ([]Target, error) {
	return one(in, field, a, optional)
}

// OptString reads an optional string field; a missing or null one is "".
func OptString(in map[string]json.RawMessage, field string) (string, error) {
	return optString(in, field)
}

// StringField is a string field already read once without error.
func StringField(in map[string]json.RawMessage, field string) string {
	s, _ := stringOf(in[field])
	return s
}

// StringLen is the length in bytes of a JSON string, -1 when raw is not one.
func StringLen(raw json.RawMessage) int64 { return stringLen(raw) }

// StringOf decodes a JSON string.
func StringOf(raw json.RawMessage) (string, error) { return stringOf(raw) }

// Listing marks targets as a directory listing's (see [Target.Listing]).
func Listing(t []Target, err error) ([]Target, error) { return listing(t, err) }

// IsJSSpace is JavaScript's WhiteSpace and LineTerminator, what
// String.prototype.trim removes.
func IsJSSpace(r rune) bool { return isJSSpace(r) }

// LiteralPrefix splits a glob into its leading directories without glob
// characters and the rest.
func LiteralPrefix(pat string) (prefix, rest string) { return literalPrefix(pat) }
