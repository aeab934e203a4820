package qwen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// Qwen Code's tools that touch files, by the names its hooks see (the
// tool's registered name: Qwen Code 0.15 runs no tool by an old name such
// as replace or search_file_content).
const (
	toolRead    = "read_file"
	toolWrite   = "write_file"
	toolEdit    = "edit"
	toolList    = "list_directory"
	toolGlob    = "glob"
	toolGrep    = "grep_search"
	toolShell   = "run_shell_command"
	toolMonitor = "monitor"
	toolLSP     = "lsp"
)

// fileTools are the tools Targets judges.
var fileTools = []string{toolRead, toolWrite, toolEdit, toolList, toolGlob, toolGrep, toolShell, toolMonitor, toolLSP}

// seenTools are the tools whose result the read-before-edit ledger
// records after they ran (PostToolUse).
var seenTools = []string{toolRead, toolWrite, toolEdit}

// targets is the Agent's Targets.
func targets(c hook.Call) ([]hook.Target, error) {
	if !slices.Contains(fileTools, c.Tool) {
		return nil, hook.ErrNotJudged
	}
	root := c.Dir()
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("event cwd %q is not an absolute path", root)
	}
	return Targets(c.Tool, c.Input, root)
}

// Targets maps a Qwen Code tool call in the session whose directory is
// root to what it touches. Qwen Code hands its hook each path argument
// as its tool reads it (trimmed and with its backslash escapes taken
// out, before the hook runs). read_file, write_file, edit and
// list_directory take absolute paths only (Qwen Code refuses a relative
// one before any hook runs); glob's and grep_search's path, and a shell
// command's directory, resolve against the session's directory, "~" and
// "~/…" against home, as picket's resolver reads them too. A path is
// never resolved against the hook's own working directory.
func Targets(tool string, in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	switch tool {
	case toolRead:
		t, err := fileTargets(in, root, "file_path", decide.Read)
		if err != nil {
			return nil, err
		}
		// Qwen Code 0.14 and earlier named it absolute_path: where both
		// come, both are judged.
		if _, ok := in["absolute_path"]; ok {
			a, err := fileTargets(in, root, "absolute_path", decide.Read)
			if err != nil {
				return nil, err
			}
			if a[0].Path != t[0].Path {
				a[0].Seen = false
				t = append(t, a...)
			}
		}
		return t, nil
	case toolWrite:
		t, err := fileTargets(in, root, "file_path", decide.Write)
		if err != nil {
			return nil, err
		}
		t[0].Size, t[0].Edit = hook.StringLen(in["content"]), true
		return t, nil
	case toolEdit:
		t, err := fileTargets(in, root, "file_path", decide.Write)
		if err != nil {
			return nil, err
		}
		t[0].Edit = true
		return t, nil
	case toolList:
		p, err := field(in, "path", true)
		if err != nil {
			return nil, err
		}
		return []hook.Target{{Access: decide.List, Path: at(root, p), Size: -1, Listing: true}}, nil
	case toolGlob:
		return globTargets(in, root)
	case toolGrep:
		return grepTargets(in, root)
	case toolShell, toolMonitor:
		line, err := field(in, "command", true)
		if err != nil {
			return nil, err
		}
		dir, err := field(in, "directory", false)
		if err != nil {
			return nil, err
		}
		if dir == "" {
			dir = root
		}
		return hook.ShellLine(line, at(root, dir)), nil
	case toolLSP:
		// A language server answers about the file named (hover shows a
		// constant's value): judged as a read of it. A request without
		// one (a workspace-wide symbol search) is denied: picket cannot
		// tell which files it reads.
		p, err := field(in, "filePath", false)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, errors.New("lsp without a filePath searches every file the language server knows, which picket cannot judge")
		}
		return []hook.Target{{Access: decide.Read, Path: at(root, p), Size: -1}}, nil
	}
	return nil, hook.ErrNotJudged
}

// field reads a string field; with required, a missing, null or empty one
// is an error. A NUL byte is refused: no path holds one.
func field(in map[string]json.RawMessage, name string, required bool) (string, error) {
	raw, ok := in[name]
	if !ok || string(raw) == "null" {
		if required {
			return "", fmt.Errorf("tool input has no %s", name)
		}
		return "", nil
	}
	s, err := hook.StringOf(raw)
	if err != nil {
		return "", fmt.Errorf("tool input field %s: %w", name, err)
	}
	if required && s == "" {
		return "", fmt.Errorf("tool input field %s is empty", name)
	}
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("tool input field %s holds a NUL byte", name)
	}
	return s, nil
}

// at is p as Qwen Code resolves it from root: "~" and "~/…" are left for
// picket's resolver, which reads them as home as Qwen Code does, an
// absolute path stays, anything else is joined to root (".." kept:
// decide.Check judges both readings).
func at(root, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "/") {
		return p
	}
	return strings.TrimSuffix(root, "/") + "/" + p
}

// fileTargets is the one path a file tool names in name, as a target its
// result shows the model (the ledger records it once the call ran).
func fileTargets(in map[string]json.RawMessage, root, name string, a decide.Access) ([]hook.Target, error) {
	p, err := field(in, name, true)
	if err != nil {
		return nil, err
	}
	return []hook.Target{{Access: a, Path: at(root, p), Size: -1, Seen: true}}, nil
}

// searchRoot is the directory glob and grep_search search: their path
// argument, or the session's directory without one. (Without one Qwen
// Code searches every workspace directory: those added with
// --include-directories are not judged; see docs/agents/qwen.md.)
func searchRoot(in map[string]json.RawMessage, root string) (string, error) {
	p, err := field(in, "path", false)
	if err != nil {
		return "", err
	}
	if p == "" {
		return root, nil
	}
	return at(root, p), nil
}

// globTargets lists the directory glob searches, its pattern as the
// filter, and where a pattern that is absolute or climbs out of it
// leads. Qwen Code's glob (node-glob: case folded, dot files, links
// below not walked but one named in the pattern gone through) lists
// names; picket's filter reads a pattern as reaching at least as far,
// case folded too, and judges links by where they lead. A file whose
// name is the pattern itself is listed by that name (Qwen Code then
// escapes the pattern).
func globTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	pat, err := field(in, "pattern", true)
	if err != nil {
		return nil, err
	}
	dir, err := searchRoot(in, root)
	if err != nil {
		return nil, err
	}
	return patternTargets(decide.List, dir, pat), nil
}

// patternTargets are the targets of one node-glob pattern searched from
// dir: dir scanned with the pattern as its filter, the pattern as a
// literal path, and the literal head of a pattern that is absolute or
// climbs out of dir, scanned with the rest.
func patternTargets(a decide.Access, dir, pat string) []hook.Target {
	filter := pat
	if unreadGlob(pat) {
		filter = "" // syntax picket's filter does not read: judge everything below
	}
	out := []hook.Target{{Access: a, Path: dir, Size: -1, Recursive: true, Root: true, Filter: filter, Links: hook.LinksFollowed}}
	if literal := at(dir, pat); exists(literal) {
		out = append(out, hook.Target{Access: a, Path: literal, Size: -1, Recursive: true, Links: hook.LinksFollowed})
	}
	prefix, rest := hook.LiteralPrefix(pat)
	if strings.HasPrefix(pat, "/") || slices.Contains(strings.Split(prefix, "/"), "..") {
		if unreadGlob(rest) {
			rest = ""
		}
		head := prefix
		if !strings.HasPrefix(head, "/") {
			head = path.Clean(dir + "/" + prefix)
		}
		out = append(out, hook.Target{Access: a, Path: head, Size: -1, Recursive: true, Filter: rest, Links: hook.LinksFollowed})
	}
	return out
}

// exists is Node's fs.existsSync: the path, links followed, is there.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
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
	i := strings.Index(pat, "{")
	return i >= 0 && strings.Contains(pat[i:], "..")
}

// grepTargets judges grep_search as a read of everything below the
// directory (or the file) it searches that its glob filter may reach.
// Qwen Code runs its bundled ripgrep with the glob as one --glob, case
// insensitive; where ripgrep is turned off (useRipgrep) or missing it
// runs git grep (the glob a pathspec), GNU grep (--include) or a
// JavaScript walk instead, which may follow links: the filter is read all
// those ways, and links are judged by where they lead.
func grepTargets(in map[string]json.RawMessage, root string) ([]hook.Target, error) {
	if _, err := field(in, "pattern", true); err != nil {
		return nil, err
	}
	dir, err := searchRoot(in, root)
	if err != nil {
		return nil, err
	}
	glob, err := field(in, "glob", false)
	if err != nil {
		return nil, err
	}
	if unreadGlob(glob) {
		glob = ""
	}
	return []hook.Target{{Access: decide.Read, Path: dir, Size: -1, Recursive: true, Root: true,
		Filter: glob, FilterBase: true, Fnmatch: true, Links: hook.LinksFollowed}}, nil
}
