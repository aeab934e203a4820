package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// Gemini CLI's file tools, as the model names them. search_file_content
// is grep_search's old name, which Gemini CLI still runs (and hands the
// hook under that name).
const (
	toolRead     = "read_file"
	toolWrite    = "write_file"
	toolEdit     = "replace"
	toolList     = "list_directory"
	toolGlob     = "glob"
	toolGrep     = "grep_search"
	toolGrepOld  = "search_file_content"
	toolReadMany = "read_many_files"
	toolShell    = "run_shell_command"
	maxReadGlobs = 64
	// toolStartContext is the call picket makes of a BeforeAgent event:
	// the context files Gemini CLI loaded at the session's start, read.
	toolStartContext = EventBeforeAgent
)

// fileTools are the tools Targets judges.
var fileTools = []string{toolRead, toolWrite, toolEdit, toolList, toolGlob, toolGrep, toolGrepOld, toolReadMany}

// targets is the Agent's Targets: relative paths are the workspace's,
// the hook's cwd (the directory Gemini CLI runs in, which is also
// GEMINI_PROJECT_DIR).
func targets(c hook.Call) ([]hook.Target, error) {
	if !slices.Contains(fileTools, c.Tool) && c.Tool != toolStartContext {
		return nil, hook.ErrNotJudged
	}
	root := c.Dir()
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("event cwd %q is not an absolute path", root)
	}
	if c.Tool == toolStartContext {
		return startContextTargets(root)
	}
	switch c.Tool {
	case toolRead:
		return fileTargets(c.Input, root, decide.Read, false)
	case toolWrite:
		t, err := fileTargets(c.Input, root, decide.Write, true)
		for i := range t {
			t[i].Size = hook.StringLen(c.Input["content"])
		}
		return t, err
	case toolEdit:
		return editTargets(c.Input, root)
	case toolList:
		p, err := stringField(c.Input, "dir_path", true)
		if err != nil {
			return nil, err
		}
		if strings.ContainsRune(p, 0) {
			return nil, errNUL
		}
		return []hook.Target{{Access: decide.List, Path: jsResolve(root, p), Size: -1, Listing: true}}, nil
	case toolGlob:
		return globTargets(c.Input, root)
	case toolGrep, toolGrepOld:
		return grepTargets(c.Input, root)
	}
	return readManyTargets(c.Input, root)
}

// stringField reads a string field; with required, a missing, null or
// empty one is an error.
func stringField(in map[string]json.RawMessage, field string, required bool) (string, error) {
	raw, ok := in[field]
	if !ok || string(raw) == "null" {
		if required {
			return "", fmt.Errorf("tool input has no %s", field)
		}
		return "", nil
	}
	s, err := hook.StringOf(raw)
	if err != nil {
		return "", fmt.Errorf("tool input field %s: %w", field, err)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("tool input field %s is empty", field)
	}
	return s, nil
}

// fileTargets are the paths read_file or write_file touch for file_path:
// each spelling Gemini CLI may take (see filePaths), the one it takes
// first marked as what the agent has seen once the call ran.
func fileTargets(in map[string]json.RawMessage, root string, a decide.Access, edit bool) ([]hook.Target, error) {
	p, err := stringField(in, "file_path", true)
	if err != nil {
		return nil, err
	}
	paths, err := filePaths(root, p)
	if err != nil {
		return nil, err
	}
	t := make([]hook.Target, len(paths))
	for i, q := range paths {
		t[i] = hook.Target{Access: a, Path: q, Size: -1, Edit: edit && i == 0, Seen: i == 0}
	}
	return t, nil
}

// editTargets are replace's paths: read_file's. A relative file_path
// that names no file Gemini CLI would look for in every workspace
// directory, under any directory whose path ends with it, which picket
// cannot judge in advance: Rewrite pins it to the path judged here.
func editTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	return fileTargets(in, root, decide.Write, true)
}

// globTargets lists each directory glob searches, with its pattern as the
// filter (node-glob: case folded unless asked, dot files, links in the
// path followed), and for a pattern that climbs out of it or is absolute,
// where its literal head leads.
func globTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	pat, err := stringField(in, "pattern", true)
	if err != nil {
		return nil, err
	}
	dir, err := stringField(in, "dir_path", false)
	if err != nil {
		return nil, err
	}
	dirs, err := searchPaths(root, dir)
	if err != nil {
		return nil, err
	}
	var out []hook.Target
	for _, d := range dirs {
		out = append(out, patternTargets(decide.List, d, pat)...)
	}
	return out, nil
}

// patternTargets are the targets of one node-glob pattern searched from
// dir: the directory scanned with the pattern as filter, the literal path
// when a file of that very name exists (Gemini CLI then escapes the
// pattern), and the literal head of a pattern that is absolute or climbs
// out of dir, scanned with the rest.
func patternTargets(a decide.Access, dir, pat string) []hook.Target {
	filter := pat
	if unreadGlob(pat) {
		filter = ""
	}
	out := []hook.Target{{Access: a, Path: dir, Size: -1, Recursive: true, Root: true, Filter: filter, Links: hook.LinksFollowed}}
	if literal := jsResolve(dir, pat); !strings.ContainsAny(pat, "\x00") && exists(literal) {
		out = append(out, hook.Target{Access: a, Path: literal, Size: -1, Recursive: true, Links: hook.LinksFollowed})
	}
	prefix, rest := hook.LiteralPrefix(pat)
	if strings.HasPrefix(pat, "/") || slices.Contains(strings.Split(prefix, "/"), "..") {
		if unreadGlob(rest) {
			rest = ""
		}
		out = append(out, hook.Target{Access: a, Path: jsResolve(dir, prefix), Size: -1, Recursive: true, Filter: rest, Links: hook.LinksFollowed})
	}
	return out
}

// unreadGlob reports whether a node-glob pattern uses syntax picket's
// filter does not read (an extglob such as "+(a|b)", a brace range such
// as "{1..9}"): then the filter is dropped and everything below is
// judged.
func unreadGlob(pat string) bool {
	for _, x := range []string{"?(", "*(", "+(", "@(", "!("} {
		if strings.Contains(pat, x) {
			return true
		}
	}
	if i := strings.Index(pat, "{"); i >= 0 && strings.Contains(pat[i:], "..") {
		return true
	}
	return false
}

// grepTargets judges grep_search as a read of everything below each
// directory it searches that its include_pattern may reach. Gemini CLI
// runs ripgrep where it finds one, else git grep in a git repository,
// else GNU grep, else a JavaScript walk with node-glob: the filter is read
// all those ways, and links are judged by their targets (the walk reads
// a linked file).
func grepTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	if _, err := stringField(in, "pattern", true); err != nil {
		return nil, err
	}
	dir, err := stringField(in, "dir_path", false)
	if err != nil {
		return nil, err
	}
	include, err := stringField(in, "include_pattern", false)
	if err != nil {
		return nil, err
	}
	if unreadGlob(include) {
		include = ""
	}
	dirs, err := searchPaths(root, dir)
	if err != nil {
		return nil, err
	}
	var out []hook.Target
	for _, d := range dirs {
		out = append(out, hook.Target{Access: decide.Read, Path: d, Size: -1, Recursive: true, Root: true,
			Filter: include, FilterBase: true, Fnmatch: true, Links: hook.LinksFollowed})
	}
	return out, nil
}

// readManyTargets judges read_many_files (not offered by Gemini CLI 0.61,
// but a name it knows): each include pattern as a read of what it
// reaches from the workspace root.
func readManyTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	raw, ok := in["include"]
	if !ok {
		return nil, fmt.Errorf("tool input has no include")
	}
	var include []string
	if err := json.Unmarshal(raw, &include); err != nil || len(include) == 0 {
		return nil, fmt.Errorf("tool input field include is not a list of patterns")
	}
	if len(include) > maxReadGlobs {
		return nil, fmt.Errorf("tool input field include holds %d patterns, more than picket judges (%d)", len(include), maxReadGlobs)
	}
	var out []hook.Target
	for _, p := range include {
		if strings.ContainsRune(p, 0) {
			return nil, errNUL
		}
		out = append(out, patternTargets(decide.Read, root, strings.ReplaceAll(p, `\`, "/"))...)
	}
	return out, nil
}
