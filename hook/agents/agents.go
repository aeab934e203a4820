// Package agents is picket's registry of the coding agents it fences: one
// line per agent package. Everything that must cover every agent (the
// mandatory write denies, picket hook --agent, picket install, the
// contract test) walks this list; nothing else names an agent.
package agents

import (
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/claude"
	"github.com/picketdev/picket/hook/codex"
	"github.com/picketdev/picket/hook/copilot"
	"github.com/picketdev/picket/hook/gemini"
	"github.com/picketdev/picket/hook/opencode"
	"github.com/picketdev/picket/hook/pi"
	"github.com/picketdev/picket/hook/qwen"
)

// All are the agents picket fences, in the order people meet them.
var All = []*hook.Agent{
	&claude.Agent,
	&pi.Agent,
	&codex.Agent,
	&gemini.Agent,
	&qwen.Agent,
	&opencode.Agent,
	&copilot.Agent,
}

// unfenced are the configuration files of agents picket does not fence
// yet, which run code or load prompt text in those agents' next sessions
// all the same: mandatory write denies, so that an agent picket fences
// cannot plant a hook for one it does not. An agent's package takes its
// own lines from here when it joins All.
var unfenced = []string{
	// Cursor: hooks and MCP servers.
	"~/.cursor/hooks.json", ".cursor/hooks.json", "~/.cursor/mcp.jso[n]", ".cursor/mcp.jso[n]",
}

// Lookup returns the agent named name, or nil.
func Lookup(name string) *hook.Agent {
	for _, a := range All {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Host is the agent whose hook environment variable ([hook.CommandHook]
// HostEnv) getenv holds, or nil: the agent that runs the hook command,
// whichever agent's settings named it.
func Host(getenv func(string) string) *hook.Agent {
	for _, a := range All {
		if a.Hook != nil && a.Hook.HostEnv != "" && getenv(a.Hook.HostEnv) != "" {
			return a
		}
	}
	return nil
}

// Names are the registered agents' names, for messages.
func Names() []string {
	names := make([]string, len(All))
	for i, a := range All {
		names[i] = a.Name
	}
	return names
}

// HookNames are the names of the agents that run picket hook per call
// (the others load picket's extension), for messages.
func HookNames() []string {
	var names []string
	for _, a := range All {
		if a.Hook != nil {
			names = append(names, a.Name)
		}
	}
	return names
}

// ConfigPaths are the agents' own configuration paths, every registered
// agent's and those of the agents picket does not fence yet: the value
// [decide.Env.Agents] takes, so that check, hook, serve and run hold the
// same mandatory write denies. An operator embedding decide sets
// Env.Agents to it (or to a list of their own).
func ConfigPaths() []string {
	var out []string
	for _, a := range All {
		out = append(out, a.ConfigPaths...)
	}
	return append(out, unfenced...)
}

// ProjectDir is the project directory an agent named in the environment
// (Claude Code's CLAUDE_PROJECT_DIR), or "" when none did.
func ProjectDir(getenv func(string) string) string {
	for _, a := range All {
		if a.ProjectDirEnv != "" {
			if d := getenv(a.ProjectDirEnv); d != "" {
				return d
			}
		}
	}
	return ""
}
