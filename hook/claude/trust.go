package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
)

// managedDir is where Claude Code reads its managed (policy) settings on
// Linux: managed-settings.json and the drop-ins in managed-settings.d.
const managedDir = "/etc/claude-code"

// trust is the Agent's Trust, for picket doctor: whether Claude Code runs
// the hooks of the person's and the project's settings, picket's among
// them. Claude Code 2.1.197 runs none of them when its managed settings
// set disableAllHooks or allowManagedHooksOnly, or when the settings
// turn on disableAllHooks (the last of ~/.claude/settings.json,
// .claude/settings.json and .claude/settings.local.json that sets it).
func trust(o hook.InstallOptions) hook.TrustState { return trustIn(o, managedDir) }

func trustIn(o hook.InstallOptions, managed string) hook.TrustState {
	policy := []string{filepath.Join(managed, "managed-settings.json")}
	dropins, _ := filepath.Glob(filepath.Join(managed, "managed-settings.d", "*.json"))
	sort.Strings(dropins)
	for _, f := range append(policy, dropins...) {
		s := readSwitches(f)
		if s.DisableAllHooks != nil && *s.DisableAllHooks || s.AllowManagedHooksOnly != nil && *s.AllowManagedHooksOnly {
			return hook.TrustState{Detail: fmt.Sprintf("the managed settings %s allow no hook of yours or the project's (disableAllHooks or allowManagedHooksOnly)", f),
				Fix: "ask whoever manages " + f + " to add picket's hooks there (the output of 'picket install claude --print')"}
		}
	}
	var files []string
	if o.Home != "" {
		files = append(files, filepath.Join(o.Home, ".claude", "settings.json"))
	}
	if root, err := projectRoot(o); err == nil {
		files = append(files, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
	}
	off, from := false, ""
	for _, f := range files {
		if s := readSwitches(f); s.DisableAllHooks != nil {
			off, from = *s.DisableAllHooks, f
		}
	}
	if off {
		return hook.TrustState{Detail: "disableAllHooks is true in " + from + ", so Claude Code runs no hook, picket's included",
			Fix: "take \"disableAllHooks\": true out of " + from}
	}
	return hook.TrustState{Trusted: true, Detail: "no settings turn hooks off (disableAllHooks, allowManagedHooksOnly)"}
}

// switches are the settings that turn hooks off.
type switches struct {
	DisableAllHooks       *bool `json:"disableAllHooks"`
	AllowManagedHooksOnly *bool `json:"allowManagedHooksOnly"`
}

// readSwitches reads them from a settings file; a missing or unreadable
// one sets none.
func readSwitches(path string) switches {
	var s switches
	b, err := ReadSettings(path)
	if err != nil {
		return s
	}
	if std, err := hujson.Standardize(b); err == nil {
		json.Unmarshal(std, &s)
	}
	return s
}
