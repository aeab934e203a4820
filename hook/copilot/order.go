package copilot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/picketdev/picket/hook"
)

// laterHooks are the preToolUse hooks Copilot CLI runs after the hooks
// file at file, each as "its file (n hooks)", picket's own left out.
// Copilot CLI 1.0.102 runs every preToolUse hook one after another, each
// on the input the one before it returned, and applies the last
// modifiedArgs (measured: hook/e2e TestCopilotProbeHookOrder): the files
// of ~/.copilot/hooks in reverse byte order of their names, then
// ~/.copilot/settings.json's inline hooks, then, in a trusted folder,
// the repository's .github/hooks (likewise), its .github/copilot
// settings and, where it has no .github/hooks, its .claude settings. A
// hook after picket's can hand Copilot CLI an input picket never judged:
// a shell command no longer under picket run, a path no longer the one
// picket allowed. Plugins' hooks are not read here.
func laterHooks(home, root string, trusted bool, file string) []string {
	userDir := filepath.Join(home, "hooks")
	repoDir := filepath.Join(root, ".github", "hooks")
	var files []string
	dir := filepath.Dir(file)
	if dir == userDir {
		files = append(files, filesBefore(userDir, filepath.Base(file))...)
		files = append(files, filepath.Join(home, "settings.json"))
	}
	if trusted {
		if dir == repoDir {
			files = append(files, filesBefore(repoDir, filepath.Base(file))...)
		} else {
			files = append(files, filesBefore(repoDir, "")...)
		}
		files = append(files, filepath.Join(root, ".github", "copilot", "settings.json"),
			filepath.Join(root, ".github", "copilot", "settings.local.json"))
		if _, err := os.Stat(repoDir); err != nil {
			files = append(files, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
		}
	}
	var out []string
	for _, f := range files {
		if n := preToolHooks(f); n > 0 {
			out = append(out, f+" ("+plural(n)+")")
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return "1 preToolUse hook"
	}
	return strconv.Itoa(n) + " preToolUse hooks"
}

// filesBefore are the *.json files of dir whose names sort before name
// (all of them for ""), which Copilot CLI runs after it.
func filesBefore(dir, name string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".json") && (name == "" || n < name) && !e.IsDir() {
			out = append(out, filepath.Join(dir, n))
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// preToolHooks counts the hooks a hooks or settings file (JSON with
// comments) runs before a tool, in either dialect, that are not
// picket's: those whose command runs no "hook --agent".
func preToolHooks(file string) int {
	v, ok := readSetting(file, "hooks")
	if !ok {
		return 0
	}
	var hooks map[string][]map[string]json.RawMessage
	if json.Unmarshal(v, &hooks) != nil {
		return 0
	}
	n := 0
	for _, ev := range []string{"preToolUse", "PreToolUse"} {
		for _, e := range hooks[ev] {
			if inner, ok := e["hooks"]; ok { // the Claude-compatible group
				var hs []map[string]json.RawMessage
				json.Unmarshal(inner, &hs)
				for _, h := range hs {
					if !isPicket(h) {
						n++
					}
				}
				continue
			}
			if !isPicket(e) {
				n++
			}
		}
	}
	return n
}

// isPicket reports whether a hook entry runs picket's hook.
func isPicket(e map[string]json.RawMessage) bool {
	for _, k := range []string{"bash", "command"} {
		var s string
		if json.Unmarshal(e[k], &s) == nil && strings.Contains(s, " hook --agent ") {
			return true
		}
	}
	return false
}

// preflight is the CommandHook's Preflight: a call is denied while a
// preToolUse hook runs after the hooks file picket runs from, since
// Copilot CLI applies the input the last hook returns, which picket never
// judged. Copilot CLI names the directory of the hooks file it runs
// (COPILOT_HOOK_DIR: picket.json there is install's); where it names
// none (the hooks of a .claude/settings.json), the order is not known
// and nothing is checked. The repository's hooks count in a folder
// trusted in config.json, by COPILOT_ALLOW_ALL, or where picket's own
// hooks file is the repository's; a trust given with --trust-folder is
// not seen.
func preflight(getenv func(string) string) error {
	dir := getenv("COPILOT_HOOK_DIR")
	if dir == "" || !filepath.IsAbs(dir) {
		return nil
	}
	home, err := copilotHome(hook.InstallOptions{Getenv: getenv, Home: getenv("HOME")})
	if err != nil {
		return err
	}
	root := getenv(projectDirEnv)
	trusted := false
	if filepath.IsAbs(root) {
		_, trusted = TrustedFolder(filepath.Join(home, "config.json"), root)
		trusted = trusted || getenv("COPILOT_ALLOW_ALL") == "true" || filepath.Clean(dir) == filepath.Join(root, ".github", "hooks")
	}
	if later := laterHooks(home, root, trusted, filepath.Join(filepath.Clean(dir), HooksFile)); len(later) > 0 {
		return fmt.Errorf("Copilot CLI runs %s after picket's hooks and applies the input the last one returns, which picket never judged: move them into a file of %s named after %s in sort order, or take them out (picket doctor says more)",
			strings.Join(later, ", "), filepath.Clean(dir), HooksFile)
	}
	return nil
}
