// Package pi is picket's knowledge of the Pi coding agent
// (@mariozechner/pi-coding-agent): the paths its tools touch, its own
// configuration that no agent may write, and picket's extension for it, a
// TypeScript file Pi loads directly, rendered for installation.
//
// The extension asks `picket serve` about every read, write, edit, ls, grep
// and find call before it runs, shows picket's prompt in Pi's terminal, keeps
// session grants in Pi's session, and sets Pi's footer. It fails closed: a
// sidecar that cannot be reached blocks the file tools.
//
// # What it does not stop
//
// Bash is not judged by the extension (the shell sandbox wraps it), nor are
// other extensions' tools or Pi's own reads of its settings and sessions.
// The extension runs inside Pi with Pi's permissions: anything that can
// rewrite it can turn it off, which is why its install directories are
// mandatory write denies for the agent.
package pi

import (
	_ "embed"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

//go:embed index.ts
var source string

// extension is the extension's source and how install writes it.
var extension = hook.Extension{Agent: Name, Kind: "extension", File: File, Source: source, Backup: backup}

// Render returns the extension with exe, an absolute path, baked in as the
// picket executable it runs (the string constant "__PICKET_EXE__" in
// index.ts).
func Render(exe string) ([]byte, error) { return extension.Render(exe) }

// Dir is the directory the extension is installed in: under home for the
// user scope (~/.pi/agent/extensions/picket), else under the project root
// (<root>/.pi/extensions/picket). Pi loads extensions/*/index.ts from both.
func Dir(home, root string, user bool) string {
	if user {
		return filepath.Join(home, ".pi", "agent", "extensions", "picket")
	}
	return filepath.Join(root, ".pi", "extensions", "picket")
}

// File is the name of the extension's entry point inside [Dir].
const File = "index.ts"
