package gemini

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/picketdev/picket/hook"
)

// Gemini CLI turns off every hook from settings, the user's included, in
// a folder it does not trust, and headless it refuses to start there.
// The person trusts a folder in Gemini CLI's trust dialog, which writes
// {"<dir>": "TRUST_FOLDER"} into trustedFolders.json; picket reads that
// file and never writes it.

// Trust levels in trustedFolders.json.
const (
	trustFolder = "TRUST_FOLDER"
	trustParent = "TRUST_PARENT"
	doNotTrust  = "DO_NOT_TRUST"
)

// trust is the Agent's Trust: for the project directory Gemini CLI would
// run in (GEMINI_PROJECT_DIR, else the current directory).
func trust(o hook.InstallOptions) hook.TrustState {
	dir := o.Dir
	if d := o.Getenv(projectDirEnv); filepath.IsAbs(d) {
		dir = d
	}
	return TrustOf(dir, o.Home, o.Getenv)
}

// TrustOf reports whether Gemini CLI, started in dir, runs the hooks of
// its settings: the folder's trust as Gemini CLI 0.61 decides it (its
// variables, security.folderTrust.enabled, trustedFolders.json), then
// hooksConfig.enabled and hooksConfig.disabled. An IDE's workspace trust,
// which Gemini CLI also obeys, is not seen.
func TrustOf(dir, home string, getenv func(string) string) hook.TrustState {
	dir = filepath.Clean(dir)
	store := trustedFoldersPath(home, getenv)
	fix := fmt.Sprintf(`start Gemini CLI in %s and answer its trust dialog "Trust folder", or add %s: %q to %s`, dir, strconv.Quote(dir), trustFolder, store)
	st := folderTrust(dir, home, getenv, store)
	if !st.Trusted {
		if st.Fix == "" {
			st.Fix = fix
		}
		return st
	}
	return hooksSwitch(dir, home, getenv, st)
}

// folderTrust is Gemini CLI's checkPathTrust.
func folderTrust(dir, home string, getenv func(string) string, store string) hook.TrustState {
	switch {
	case getenv("GEMINI_RESTRICTED_MODE") == "true":
		return hook.TrustState{Detail: "GEMINI_RESTRICTED_MODE=true: Gemini CLI trusts no folder", Fix: "unset GEMINI_RESTRICTED_MODE"}
	case getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return hook.TrustState{Detail: "GEMINI_CLI_TRUST_WORKSPACE=false: Gemini CLI trusts no folder", Fix: "unset GEMINI_CLI_TRUST_WORKSPACE"}
	case getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return hook.TrustState{Trusted: true, Detail: "GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI trusts every folder"}
	}
	if off, file := folderTrustOff(home, getenv); off {
		return hook.TrustState{Trusted: true, Detail: "security.folderTrust.enabled is false in " + file + ": Gemini CLI trusts every folder"}
	}
	var rules map[string]any
	ok, err := readJSONC(store, &rules)
	if err != nil {
		return hook.TrustState{Detail: fmt.Sprintf("%s does not parse (%v): Gemini CLI refuses to start", store, err), Fix: "fix or remove " + store}
	}
	if ok {
		for p, level := range rules {
			if s, _ := level.(string); !slices.Contains([]string{trustFolder, trustParent, doNotTrust}, s) {
				return hook.TrustState{Detail: fmt.Sprintf("%s gives %s the trust level %v, which Gemini CLI does not know: it refuses to start", store, p, level), Fix: "fix " + store}
			}
		}
	}
	rule, level := matchTrust(dir, rules)
	switch level {
	case doNotTrust:
		return hook.TrustState{Detail: fmt.Sprintf("%s marks %s %s: Gemini CLI runs no hook of its settings there, picket's included", store, rule, doNotTrust)}
	case trustFolder, trustParent:
		return hook.TrustState{Trusted: true, Detail: fmt.Sprintf("%s trusts %s (%s)", store, rule, level)}
	}
	return hook.TrustState{Detail: fmt.Sprintf("no entry of %s covers %s: Gemini CLI asks whether to trust it when started there (headless, it refuses to start), and runs no hook of its settings in it until it is trusted", store, dir)}
}

// folderTrustOff reports whether security.folderTrust.enabled is false
// where Gemini CLI reads it for the trust check (system settings over the
// user's over the system defaults; never a workspace's), and in which
// file.
func folderTrustOff(home string, getenv func(string) string) (bool, string) {
	sys := systemSettingsPaths(getenv)
	for _, f := range []string{sys[0], userSettingsPath(home, getenv), sys[1]} {
		if e := loadSettings(f).Security.FolderTrust.Enabled; e != nil {
			return !*e, f
		}
	}
	return false, ""
}

// matchTrust is trustedFolders.json's rule for dir: the longest rule
// whose folder (its parent, for TRUST_PARENT) is dir or above it, both
// with their links resolved as Gemini CLI resolves them.
func matchTrust(dir string, rules map[string]any) (rule, level string) {
	loc := realPath(dir)
	for p, l := range rules {
		s, _ := l.(string)
		eff := filepath.Clean(p)
		if s == trustParent {
			eff = filepath.Dir(eff)
		}
		if isUnder(loc, realPath(eff)) && len(p) > len(rule) {
			rule, level = p, s
		}
	}
	return rule, level
}

// realPath is p with its links resolved when it exists, as Gemini CLI's
// getRealPath.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// hooksSwitch turns a trusted folder's state into the hooks' own: off when
// hooksConfig.enabled is false (system settings over the workspace's over
// the user's over the system defaults) or hooksConfig.disabled names
// picket's hooks in any of them.
func hooksSwitch(dir, home string, getenv func(string) string, st hook.TrustState) hook.TrustState {
	sys := systemSettingsPaths(getenv)
	files := []string{sys[0], workspaceSettingsPath(dir), userSettingsPath(home, getenv), sys[1]}
	for _, f := range files {
		if e := loadSettings(f).HooksConfig.Enabled; e != nil {
			if !*e {
				return hook.TrustState{Detail: "hooksConfig.enabled is false in " + f + ": Gemini CLI runs no hook", Fix: "take hooksConfig.enabled out of " + f}
			}
			break
		}
	}
	for _, f := range files {
		if slices.ContainsFunc(loadSettings(f).HooksConfig.Disabled, func(n string) bool { return n == HookName || strings.Contains(n, " hook --agent "+Name) }) {
			return hook.TrustState{Detail: "hooksConfig.disabled in " + f + " names picket's hook: Gemini CLI skips it", Fix: "take picket out of hooksConfig.disabled in " + f}
		}
	}
	return st
}
