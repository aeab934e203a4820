// Package claude is picket's knowledge of Claude Code: its hook events
// and answers, the paths its file tools touch, the memory files it loads
// by itself, its settings (hooks, deny rules, the shell prefix) and the
// configuration of its own that no agent may write.
//
// # What it does not stop
//
// Tools it does not map (MCP tools, web fetches, Bash, which the shell
// sandbox fences through CLAUDE_CODE_SHELL_PREFIX) pass untouched. What
// Claude Code does before its hooks run (an Edit's old_string check, the
// Workflow tool's parse of its script) is outside the hook's reach; see
// docs/threat-model.md.
package claude

import (
	"time"

	"github.com/picketdev/picket/hook"
)

// Name is Claude Code's name on picket's command line and in audit lines.
const Name = "claude"

// Agent is Claude Code, for the registry (hook/agents).
var Agent = hook.Agent{
	Name:          Name,
	Title:         "Claude Code",
	ProjectDirEnv: projectDirEnv,
	Targets:       targets,
	FileTools:     fileTools,
	Loads:         loads,
	Decode:        decode,
	Hook:          &hook.CommandHook{Timeout: HookTimeout * time.Second},
	Reply:         reply,
	Trust:         trust,
	Wired:         wired,
	Canary:        canary,
	ConfigPaths:   configPaths,
	Wire:          wire,
	Unwire:        unwire,
	Install:       install,
	Uninstall:     uninstall,
	Fixtures:      "hook/claude/testdata",
	InstallHelp:   installHelp,
}

// configPaths are what Claude Code loads as code or prompt text: its
// settings (hooks, permissions, the shell prefix), plugins, MCP servers,
// commands, agents, skills and hooks, the user-wide CLAUDE.md, and the
// skills, commands and agents of any subdirectory's .claude it works in.
// The glob covers every settings file; the two names Claude Code reads
// are listed too, so the shell sandbox, which cannot stop a file a glob
// names from being created, protects them while they do not exist. The
// rarer files are spelled as globs ("[s]", "[n]"): held wherever they
// exist, without a placeholder for each during every sandboxed command.
var configPaths = []string{
	"~/.claude/settings*.json", ".claude/settings*.json",
	"~/.claude/settings.json", "~/.claude/settings.local.json",
	".claude/settings.json", ".claude/settings.local.json",
	// Installed plugins carry hooks and MCP servers: code Claude Code
	// starts outside any sandbox.
	"~/.claude/plugin[s]", ".mcp.json", "~/.claude.jso[n]", "~/.claude/CLAUDE.m[d]",
	"~/.claude/commands", ".claude/commands", "~/.claude/agents", ".claude/agents",
	"~/.claude/skills", ".claude/skills", "~/.claude/hooks", ".claude/hooks",
	"**/.claude/skills", "**/.claude/commands", "**/.claude/agents",
}

// projectDirEnv is the variable Claude Code sets, in its hooks' and its
// commands' environment, to the project directory.
const projectDirEnv = "CLAUDE_PROJECT_DIR"
