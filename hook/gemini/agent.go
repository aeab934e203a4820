// Package gemini is picket's knowledge of Gemini CLI: its hook events
// (BeforeTool, BeforeAgent, AfterTool, SessionStart, SessionEnd) and
// answers, the paths its file tools touch as Gemini CLI resolves them,
// the context files (GEMINI.md) it loads by itself, the rewrite that
// runs its shell commands under picket run, its settings and trust
// store, and the configuration of its own that no agent may write.
//
// Gemini CLI runs a call whose hook fails (exit 1, a silent exit 3 or
// more, a timeout, a signal, bad JSON). The command install writes turns
// every such failure into a block: picket runs under a timeout shorter
// than Gemini CLI's own, and any non-zero exit becomes exit 2 with a
// reason on stderr.
//
// # What it does not stop
//
// Gemini CLI runs no settings hook at all, picket's included, in a folder
// the person has not trusted: [Agent]'s Trust says so, and picket doctor
// reports it. Tools it does not map (MCP tools, web fetches, skills,
// exit_plan_mode's read of its own plan file) pass untouched. A file the
// person names with "@path" in their own prompt is read without a tool
// call. In plan mode Gemini CLI writes plans into its own plans directory
// whatever path the model names; picket judges the path as named. See
// docs/agents/gemini.md.
package gemini

import (
	"time"

	"github.com/picketdev/picket/hook"
)

// Name is Gemini CLI's name on picket's command line and in audit lines.
const Name = "gemini"

// HookTimeout is the hook timeout install writes (Gemini CLI counts
// milliseconds): above picket's own deadline and prompt timeout, and above
// KillAfter, so that picket, or the timeout around it, always answers
// first.
const HookTimeout = 90 * time.Second

// KillAfter is how long the hook command lets picket run before it kills
// it and blocks the call: Gemini CLI runs the call once its own timeout
// passes, so a picket that hangs must be ended before that.
const KillAfter = 85 * time.Second

// Agent is Gemini CLI, for the registry (hook/agents).
var Agent = hook.Agent{
	Name:          Name,
	Title:         "Gemini CLI",
	ProjectDirEnv: projectDirEnv,
	Targets:       targets,
	FileTools:     fileTools,
	Loads:         loads,
	Decode:        decode,
	Hook:          &hook.CommandHook{Timeout: HookTimeout},
	Reply:         reply,
	Rewrite:       rewrite,
	Trust:         trust,
	Wired:         wired,
	Canary:        canary,
	ConfigPaths:   configPaths,
	Wire:          wire,
	Unwire:        unwire,
	Install:       install,
	Uninstall:     uninstall,
	Fixtures:      "hook/gemini/testdata",
	InstallHelp:   installHelp,
}

// projectDirEnv is the variable Gemini CLI sets, in its hooks'
// environment, to the session's directory (the workspace its tools
// resolve relative paths against). It also sets CLAUDE_PROJECT_DIR and
// GEMINI_CWD to the same.
const projectDirEnv = "GEMINI_PROJECT_DIR"

// configPaths are what Gemini CLI loads as code or prompt text, or reads
// to decide whether it runs hooks: the user's settings (hooks, the hooks
// switch, tool discovery and MCP servers) and trust store, its
// extensions, custom commands (which run shell snippets), policies
// (approval rules), skills, sub-agents, the user-wide GEMINI.md and
// system prompt, the .env it loads into its environment, and the
// project's whole .gemini. The rarer user files are spelled as globs:
// held wherever they exist, without a placeholder for each during every
// sandboxed command.
var configPaths = []string{
	"~/.gemini/settings.json", "~/.gemini/trustedFolders.json",
	"~/.gemini/extensions", "~/.gemini/commands", "~/.gemini/policies",
	"~/.gemini/skill[s]", "~/.gemini/agent[s]", "~/.gemini/GEMINI.m[d]", "~/.gemini/system.m[d]",
	"~/.gemini/.en[v]", "~/.gemini/trusted_hooks.jso[n]", "~/.gemini/acknowledgment[s]",
	".gemini", ".agents/skill[s]",
}
