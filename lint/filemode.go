package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkFileModes warns on policy files, and on directories above them,
// that users other than the owner may write: whoever can write the file,
// or replace it, sets the agent's fence.
func checkFileModes(t *target) []Warning {
	var out []Warning
	seen := map[string]bool{}
	for _, f := range t.loaded.Chain {
		if strings.HasPrefix(f, "builtin:") || !filepath.IsAbs(f) {
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o022 != 0 {
			out = append(out, Warning{File: f, Code: CodeWritablePolicy, Msg: fmt.Sprintf(
				"the policy file is writable by other users (mode %04o): they can change what the agent may do; run chmod go-w %s",
				fi.Mode().Perm(), f)})
		}
		for dir := filepath.Dir(t.resolve(f)); ; dir = filepath.Dir(dir) {
			if w, ok := dirWarning(f, dir); ok && !seen[dir] {
				seen[dir] = true
				out = append(out, w)
			}
			if dir == "/" || dir == "." {
				break
			}
		}
	}
	return out
}

// dirWarning warns when dir is writable by others without the sticky bit,
// so they may rename or replace what it holds, the policy file included.
func dirWarning(file, dir string) (Warning, bool) {
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o022 == 0 || fi.Mode()&fs.ModeSticky != 0 {
		return Warning{}, false
	}
	return Warning{File: file, Code: CodeWritablePolicy, Msg: fmt.Sprintf(
		"the directory %s is writable by other users without the sticky bit (mode %04o): they can replace the policy file; run chmod go-w %s",
		dir, fi.Mode().Perm(), dir)}, true
}
