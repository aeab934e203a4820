// Package opencode is picket's knowledge of opencode (opencode-ai): the
// paths its tools touch, the instruction files it loads by itself, its own
// configuration that no agent may write, and picket's plugin for it, a
// JavaScript module opencode loads in-process, rendered for installation.
//
// The plugin asks `picket serve --agent opencode` about every tool call
// before it runs (a tool picket does not judge is answered as such and
// left alone), pins an allowed read, write, edit or lsp call to the
// resolved path picket judged, freezes the call's arguments, and rewrites
// every bash command to run under `picket run`. opencode has no hook
// timeout and runs a call whose hook returned, so the plugin throws (which
// blocks the call, its message being what the model reads) on a deny and
// on every failure: a sidecar missing, dead, hung past the plugin's own
// deadline, answering garbage or another protocol version. With a person
// at the terminal, picket serve asks them itself, on picket's own surfaces
// (a tmux popup or picket console), as picket hook does for Claude Code.
//
// # What it does not stop
//
// opencode skips a plugin that fails to load without a word, and `opencode
// run --pure` loads none: it then runs unfenced. The plugin announces
// itself to picket serve when it loads, and picket doctor compares the last
// announcement with opencode's last run ([LastLoad], [LastRun]). opencode's
// own reads (its configuration, the AGENTS.md files of the session, files a
// person @-mentions), MCP servers, other plugins' tools and `!` commands a
// person types are not judged. The plugin runs inside opencode with its
// permissions: anything that can rewrite it can turn it off, which is why
// opencode's configuration directories are mandatory write denies.
package opencode

import (
	_ "embed"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

//go:embed picket.js
var source string

// plugin is the plugin's source and how install writes it.
var plugin = hook.Extension{Agent: Name, Kind: "plugin", File: File, Source: source, Backup: backup}

// Render returns the plugin with exe, an absolute path, baked in as the
// picket executable it runs (the string constant "__PICKET_EXE__" in
// picket.js).
func Render(exe string) ([]byte, error) { return plugin.Render(exe) }

// File is the plugin's name in the directory opencode loads plugins from.
const File = "picket.js"

// Dir is the directory the plugin is installed in: for the user scope the
// plugins directory of opencode's config dir (configHome/opencode/plugins,
// where configHome is $XDG_CONFIG_HOME or ~/.config), else the project's
// (<root>/.opencode/plugins). opencode loads plugins/*.{js,ts} from both.
func Dir(configHome, root string, user bool) string {
	if user {
		return filepath.Join(configHome, "opencode", "plugins")
	}
	return filepath.Join(root, ".opencode", "plugins")
}
