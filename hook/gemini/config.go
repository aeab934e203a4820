package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Gemini CLI's own files, as it finds them: ~ is $GEMINI_CLI_HOME when
// set; the system settings are in /etc/gemini-cli unless a variable names
// them; a workspace's settings are .gemini/settings.json in the directory
// Gemini CLI starts in, and nowhere above it.

// geminiHome is the home Gemini CLI keeps .gemini in: $GEMINI_CLI_HOME,
// else home.
func geminiHome(home string, getenv func(string) string) string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		return h
	}
	return home
}

// userSettingsPath is the user's settings.json.
func userSettingsPath(home string, getenv func(string) string) string {
	return filepath.Join(geminiHome(home, getenv), ".gemini", "settings.json")
}

// workspaceSettingsPath is the settings.json of a workspace directory.
func workspaceSettingsPath(dir string) string {
	return filepath.Join(dir, ".gemini", "settings.json")
}

// systemSettingsPaths are the system settings and system defaults.
func systemSettingsPaths(getenv func(string) string) []string {
	sys, defaults := getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"), getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if sys == "" {
		sys = "/etc/gemini-cli/settings.json"
	}
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(sys), "system-defaults.json")
	}
	return []string{sys, defaults}
}

// trustedFoldersPath is the user's trust store.
func trustedFoldersPath(home string, getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(geminiHome(home, getenv), ".gemini", "trustedFolders.json")
}

// settings are the members of a Gemini CLI settings file picket reads.
type settings struct {
	Context struct {
		FileName json.RawMessage `json:"fileName"`
	} `json:"context"`
	Security struct {
		FolderTrust struct {
			Enabled *bool `json:"enabled"`
		} `json:"folderTrust"`
	} `json:"security"`
	HooksConfig struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	} `json:"hooksConfig"`
	Hooks map[string][]struct {
		Matcher string         `json:"matcher"`
		Hooks   []settingsHook `json:"hooks"`
	} `json:"hooks"`
}

// settingsHook is one hook of a settings file's hook group.
type settingsHook struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// readJSONC reads a JSON file with comments and trailing commas, as
// Gemini CLI does (strip-json-comments), into v. ok is false when there
// is no file; err when it does not parse.
func readJSONC(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, nil
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		return true, err
	}
	return true, json.Unmarshal(std, v)
}

// loadSettings reads one settings file; a missing or broken one reads as
// empty.
func loadSettings(path string) settings {
	var s settings
	readJSONC(path, &s)
	return s
}

// contextNames are the context file names Gemini CLI loads: GEMINI.md
// and every name context.fileName sets in the system, user or workspace
// settings (Gemini CLI adds them to GEMINI.md).
func contextNames(home, root string, getenv func(string) string) []string {
	names := []string{defaultContextName}
	files := append(systemSettingsPaths(getenv), userSettingsPath(home, getenv), workspaceSettingsPath(root))
	for _, f := range files {
		raw := loadSettings(f).Context.FileName
		var list []string
		var one string
		if json.Unmarshal(raw, &one) == nil {
			list = []string{one}
		} else {
			json.Unmarshal(raw, &list)
		}
		for _, n := range list {
			n = strings.TrimSpace(n)
			if n != "" && !strings.ContainsRune(n, 0) {
				n = filepath.Clean(n)
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	return names
}
