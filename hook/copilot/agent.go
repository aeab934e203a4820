// Package copilot is picket's knowledge of GitHub Copilot CLI: its two
// hook dialects (its own camelCase preToolUse and the Claude-compatible
// PreToolUse, which it also uses to run a repository's
// .claude/settings.json hooks), the paths its file tools touch, the
// wrapping of its shell commands in picket run, its hooks files and
// folder trust, and the configuration of its own that no agent may
// write.
//
// # What it does not stop
//
// Tools it does not map (MCP tools, the sql and session_store_sql
// tools, skills, subagents' own tools beyond the hook) pass untouched.
// A shell command is wrapped, not judged: picket run's sandbox is its
// fence, and Copilot CLI applies the rewrite with no approval given.
// Copilot CLI runs a hook that outlives its timeout as if it were not
// there, so picket's deadline stays well under the timeout install
// writes; a person who edits the timeout down, or sets disableAllHooks,
// turns picket off for Copilot (picket doctor says so). See
// docs/agents/copilot.md.
package copilot

import (
	"time"

	"github.com/picketdev/picket/hook"
)

// Name is Copilot CLI's name on picket's command line and in audit lines.
const Name = "copilot"

// Agent is GitHub Copilot CLI, for the registry (hook/agents).
var Agent = hook.Agent{
	Name:          Name,
	Title:         "GitHub Copilot CLI",
	ProjectDirEnv: projectDirEnv,
	Targets:       targets,
	FileTools:     fileTools,
	Rewrite:       rewrite,
	Decode:        decode,
	Hook:          &hook.CommandHook{Timeout: HookTimeout * time.Second, HostEnv: projectDirEnv, Preflight: preflight},
	Reply:         reply,
	ConfigPaths:   configPaths,
	Wire:          wire,
	Unwire:        unwire,
	Install:       install,
	Uninstall:     uninstall,
	Trust:         trust,
	Wired:         wired,
	Canary:        canary,
	Fixtures:      "hook/copilot/testdata",
	InstallHelp:   installHelp,
}

// projectDirEnv is the variable Copilot CLI sets, for every hook it runs
// (its own and those of a repository's .claude/settings.json) and for no
// shell command, to the repository's root. No other agent sets it, so it
// also tells picket that Copilot CLI, not Claude Code, runs a hook.
const projectDirEnv = "COPILOT_PROJECT_DIR"

// HookTimeout is the hook timeout, in seconds, install writes: Copilot
// CLI runs a call whose hook outlives it, so everything below stays well
// inside: picket's own answer (its 10 s deadline, moved past a prompt's
// 60 s and margins: about 90 s at most) and the hook command's
// timeout(1) of a picket that hangs ([WrapperTimeout], then 10 s to kill
// it).
const HookTimeout = 150

// WrapperTimeout is how long, in seconds, the hook command lets picket
// run before timeout(1) ends it, which blocks the call: past picket's
// own longest answer, short of [HookTimeout].
const WrapperTimeout = 120

// configPaths are what Copilot CLI loads as code or prompt text: its home
// (config.json with the trusted folders, settings.json with inline hooks
// and disableAllHooks, hooks/, mcp-config.json, agents, skills, plugins,
// the user-wide instructions), a repository's hooks, settings, MCP
// servers, custom agents and skills, and the personal skills it shares
// with other agents. A repository's instruction files (AGENTS.md,
// .github/copilot-instructions.md, .github/instructions) stay writable,
// as CLAUDE.md does for Claude Code: they are the project's own text,
// reviewed with it. The rarer files are spelled as globs: held wherever
// they exist, without a placeholder for each during every sandboxed
// command.
var configPaths = []string{
	"~/.copilot",
	".github/hooks", ".github/copilot", ".github/agents", ".github/skills",
	".github/mcp.jso[n]", ".mcp.jso[n]", ".agents/[s]kills", "~/.agents/skills",
}
