package persist

import (
	"os"
	"path/filepath"
)

// Names of the policy files [Target] considers, in order of preference.
const (
	jsoncName = "fence.jsonc"
	jsonName  = "fence.json"
)

// ProjectRoot returns the directory that holds the policy file for a session
// started in cwd: the nearest ancestor (cwd included) that holds a .git entry
// (a directory, or a file for worktrees and submodules), else cwd itself.
func ProjectRoot(cwd string) string {
	cwd = filepath.Clean(cwd)
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return cwd
		}
	}
}

// Target returns the policy file a persist in root edits: <root>/fence.jsonc
// when it exists, else <root>/fence.json when that exists, else the proposed
// <root>/fence.jsonc with exists false. A symlink counts as existing even when
// it dangles, so that [Grant] refuses it instead of writing beside it.
func Target(root string) (file string, exists bool) {
	for _, name := range []string{jsoncName, jsonName} {
		file := filepath.Join(root, name)
		if _, err := os.Lstat(file); err == nil {
			return file, true
		}
	}
	return filepath.Join(root, jsoncName), false
}
