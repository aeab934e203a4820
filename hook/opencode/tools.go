package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/patch"
)

// fileTools are the tools of opencode 1.18.33 that read, write or list
// files: read (a file, or a directory it lists), write, edit, glob and grep
// (both ripgrep), apply_patch (offered instead of write and edit for GPT
// model ids) and lsp (a language server's answers about a file, offered
// with OPENCODE_EXPERIMENTAL_LSP_TOOL). bash is not among them: the plugin
// runs it under picket run.
var fileTools = []string{"read", "write", "edit", "glob", "grep", "apply_patch", "lsp"}

// targets maps an opencode tool call to the paths it touches. opencode
// hands the hook paths as the model wrote them and resolves a relative one
// against the session's directory by text (path.join; "~" is a directory
// name to it): picket resolves them the same way, against Call.Dir.
func targets(c hook.Call) ([]hook.Target, error) {
	var t []hook.Target
	var err error
	switch c.Tool {
	case "read":
		t, err = readTargets(c)
	case "lsp":
		// Hover shows a constant's value, a document's symbols its
		// names: a read of the file.
		t, err = pathTargets(c, "filePath", decide.Read)
	case "write":
		if t, err = pathTargets(c, "filePath", decide.Write); err == nil {
			t[0].Size = hook.StringLen(c.Input["content"])
			t[0].Edit, t[0].Seen = true, true
		}
	case "edit":
		if t, err = pathTargets(c, "filePath", decide.Write); err == nil {
			t[0].Edit, t[0].Seen = true, true
		}
	case "glob":
		t, err = globTargets(c)
	case "grep":
		t, err = grepTargets(c)
	case "apply_patch":
		t, err = patchTargets(c)
	default:
		return nil, hook.ErrNotJudged
	}
	return t, err
}

// abs is p as opencode's tools open it: absolute as written, else joined
// to dir (and cleaned, as path.join does).
func abs(p, dir string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// pathTargets reads a required path field as one target.
func pathTargets(c hook.Call, field string, a decide.Access) ([]hook.Target, error) {
	t, err := hook.PathTarget(c.Input, field, a, false)
	if err != nil {
		return nil, err
	}
	t[0].Path = abs(t[0].Path, c.Dir())
	return t, nil
}

// readTargets maps read, which shows a file's lines or a directory's
// names: a read of the path that must not list a hidden name. For a path
// that does not exist it names up to three entries of the parent whose
// names are like the one asked for, so the parent is listed too (first:
// the path's own decision is the call's).
func readTargets(c hook.Call) ([]hook.Target, error) {
	t, err := pathTargets(c, "filePath", decide.Read)
	if err != nil {
		return nil, err
	}
	t[0].Listing, t[0].Seen = true, true
	if _, err := os.Lstat(t[0].Path); err != nil {
		parent := hook.Target{Access: decide.List, Path: filepath.Dir(t[0].Path), Size: -1, Listing: true}
		t = append([]hook.Target{parent}, t...)
	}
	return t, nil
}

// globTargets maps glob, which runs `rg --files --glob=PATTERN` in its
// path (the session's directory by default; a file there is an error):
// ripgrep reads the pattern as a gitignore line from that directory and
// lists nothing outside it, skipping hidden files and the symlinks below
// it.
func globTargets(c hook.Call) ([]hook.Target, error) {
	t, err := hook.PathTarget(c.Input, "path", decide.List, true)
	if err != nil {
		return nil, err
	}
	pat, err := requiredString(c.Input, "pattern")
	if err != nil {
		return nil, err
	}
	t[0].Path = abs(t[0].Path, c.Dir())
	t[0].Recursive, t[0].Root, t[0].Filter, t[0].Links = true, true, pat, hook.LinksSkipped
	return t, nil
}

// grepTargets maps grep, which runs `rg --hidden --glob=INCLUDE PATTERN`
// in a directory: its path resolved (symlinks followed) when that is a
// directory, else the directory the resolved path is in (a grep of a
// file searches its whole directory). include is one glob, as ripgrep's
// --glob reads it; ripgrep does not follow the symlinks below.
func grepTargets(c hook.Call) ([]hook.Target, error) {
	t, err := hook.PathTarget(c.Input, "path", decide.Read, true)
	if err != nil {
		return nil, err
	}
	if _, err := requiredString(c.Input, "pattern"); err != nil {
		return nil, err
	}
	include, err := hook.OptString(c.Input, "include")
	if err != nil {
		return nil, err
	}
	t[0].Path = grepDir(abs(t[0].Path, c.Dir()))
	t[0].Recursive, t[0].Root, t[0].Filter, t[0].FilterBase, t[0].Links = true, true, include, true, hook.LinksSkipped
	return t, nil
}

// grepDir is the directory opencode's grep searches for path: the path
// resolved if it is a directory, else the directory of the resolved path
// (of the path itself when it does not exist).
func grepDir(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return filepath.Dir(path)
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return real
	}
	return filepath.Dir(real)
}

// patchTargets maps apply_patch: every path the envelope adds, updates,
// deletes or moves (both ends) is a write, resolved against the session's
// directory; an envelope picket cannot read is an error, which denies.
func patchTargets(c hook.Call) ([]hook.Target, error) {
	text, err := requiredString(c.Input, "patchText")
	if err != nil {
		return nil, err
	}
	ps, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("apply_patch: %w", err)
	}
	t := make([]hook.Target, len(ps))
	for i, p := range ps {
		t[i] = hook.Target{Access: decide.Write, Path: p.Abs(c.Dir()), Size: -1}
	}
	return t, nil
}

// requiredString reads a string field that must be there.
func requiredString(in map[string]json.RawMessage, field string) (string, error) {
	raw, ok := in[field]
	if !ok || string(raw) == "null" {
		return "", fmt.Errorf("tool input has no %s", field)
	}
	s, err := hook.StringOf(raw)
	if err != nil {
		return "", fmt.Errorf("tool input field %s: %w", field, err)
	}
	return s, nil
}
