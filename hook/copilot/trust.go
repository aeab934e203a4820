package copilot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
)

// trust is the Agent's Trust: whether Copilot CLI runs the hooks file
// install writes for o, and what the person does when it does not.
func trust(o hook.InstallOptions) hook.TrustState {
	file, err := hooksPath(o)
	if err != nil {
		return hook.TrustState{Detail: err.Error()}
	}
	return trustFor(o, file)
}

// trustFor says whether Copilot CLI runs the hooks file at file: no hook
// at all where a settings file sets disableAllHooks; the person's own
// always; a repository's only in a folder the person trusted
// (trustedFolders in config.json, which "Yes, and remember this folder"
// writes, holding the folder or one above it), else skipped without a
// word. Trust for one session (--trust-folder, COPILOT_ALLOW_ALL=true)
// is not known here. Where other preToolUse hooks run after picket's
// ([laterHooks]), picket's answer is not the one Copilot CLI applies, and
// that is reported as not fenced.
func trustFor(o hook.InstallOptions, file string) hook.TrustState {
	home, err := copilotHome(o)
	if err != nil {
		return hook.TrustState{Detail: err.Error()}
	}
	root := projectRoot(o)
	for _, s := range []string{filepath.Join(home, "settings.json"),
		filepath.Join(root, ".github", "copilot", "settings.json"),
		filepath.Join(root, ".github", "copilot", "settings.local.json")} {
		if v, ok := readSetting(s, "disableAllHooks"); ok && string(v) == "true" {
			return hook.TrustState{Detail: fmt.Sprintf("%s sets disableAllHooks: Copilot CLI runs no hook at all, picket's neither", s),
				Fix: fmt.Sprintf("take disableAllHooks out of %s", s)}
		}
	}
	config := filepath.Join(home, "config.json")
	folder, trusted := TrustedFolder(config, root)
	var st hook.TrustState
	switch {
	case !strings.HasPrefix(file, filepath.Join(root, ".github", "hooks")+"/"):
		st = hook.TrustState{Trusted: true, Detail: fmt.Sprintf("Copilot CLI runs %s in every folder, trusted or not", filepath.Dir(file))}
	case trusted:
		st = hook.TrustState{Trusted: true, Detail: fmt.Sprintf("%s is a trusted folder (%s in %s): Copilot CLI runs its .github/hooks", root, strconv.Quote(folder), config)}
	default:
		return hook.TrustState{
			Detail: fmt.Sprintf("%s is not a trusted folder of Copilot CLI (%s), which skips its .github/hooks, picket's too, without a word", root, config),
			Fix: fmt.Sprintf("start copilot in %s and answer \"Yes, and remember this folder for future sessions\", or add %s to \"trustedFolders\" in %s (copilot -p also takes --trust-folder, for that session only); picket changes no trust setting for you",
				root, strconv.Quote(root), config),
		}
	}
	if later := laterHooks(home, root, trusted, file); len(later) > 0 {
		return hook.TrustState{
			Detail: fmt.Sprintf("Copilot CLI runs these after picket's hooks, each on the input the one before returned, and applies the last: %s; any of them can replace a call's input with one picket never judged (a shell command no longer under picket run)",
				strings.Join(later, ", ")),
			Fix: fmt.Sprintf("move those hooks where they run before picket's: into a file of %s whose name sorts after %s (Copilot CLI runs that directory's files last name first), or take them out", filepath.Dir(file), filepath.Base(file)),
		}
	}
	return st
}

// TrustedFolder reports the entry of trustedFolders in Copilot CLI's
// config.json (JSON with comments) that trusts dir: dir itself or a
// folder above it, compared as written and with symlinks resolved.
func TrustedFolder(config, dir string) (string, bool) {
	v, ok := readSetting(config, "trustedFolders")
	if !ok {
		return "", false
	}
	var folders []string
	if json.Unmarshal(v, &folders) != nil {
		return "", false
	}
	spellings := []string{filepath.Clean(dir)}
	if r, err := filepath.EvalSymlinks(dir); err == nil && r != spellings[0] {
		spellings = append(spellings, r)
	}
	for _, f := range folders {
		if f == "" || !filepath.IsAbs(f) {
			continue
		}
		want := []string{filepath.Clean(f)}
		if r, err := filepath.EvalSymlinks(f); err == nil && r != want[0] {
			want = append(want, r)
		}
		for _, w := range want {
			for _, d := range spellings {
				if d == w || strings.HasPrefix(d, strings.TrimSuffix(w, "/")+"/") {
					return f, true
				}
			}
		}
	}
	return "", false
}

// readSetting is the top-level member key of a JSON-with-comments file,
// or false when the file or the member is not there or not readable.
func readSetting(file, key string) (json.RawMessage, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(std, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}
