package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/picketdev/picket/hook"
)

// Name is opencode's name on picket's command line and in audit lines.
const Name = "opencode"

// Agent is opencode, for the registry (hook/agents). opencode loads
// picket's plugin in-process, and the plugin asks picket serve: it has no
// command hook.
var Agent = hook.Agent{
	Name:        Name,
	Title:       "opencode",
	Targets:     targets,
	FileTools:   fileTools,
	Loads:       loads,
	Decode:      decode,
	Reply:       reply,
	Trust:       trust,
	Wired:       wired,
	Canary:      canary,
	ConfigPaths: configPaths,
	Wire:        wire,
	Unwire:      unwire,
	Install:     install,
	Uninstall:   uninstall,
	Fixtures:    "hook/opencode/testdata",
	InstallHelp: installHelp,
}

// configPaths are what opencode loads as code or prompt text, and its
// credential stores. Its configuration directories whole: the user's
// (plugins, custom tools, agents, commands, modes, skills, the user-wide
// AGENTS.md, the package.json whose dependencies it installs),
// ~/.opencode, and every .opencode between a session's directory and the
// project root; the opencode.json and opencode.jsonc it reads at every
// level of the project (providers, MCP servers it starts, plugins it
// installs, its shell, instructions); the skills it reads from .agents;
// its sign-in tokens (auth.json, mcp-auth.json, and the database that
// keeps its console account and its sessions). The project's own AGENTS.md
// files are not here: they are the project's text, edited as code is
// (picket's Loads judges them when a read would load one). The rarer
// paths are spelled as globs: held wherever they exist, without a
// placeholder for each during every sandboxed command.
var configPaths = []string{
	"~/.config/opencode", "~/.opencod[e]",
	".opencode", "**/.opencode",
	"opencode.json", "opencode.jsonc", "**/opencode.json", "**/opencode.jsonc",
	".agents/[s]kills", "**/.agents/skills",
	"~/.local/share/opencode/auth.jso[n]", "~/.local/share/opencode/mcp-auth.jso[n]",
	"~/.local/share/opencode/opencode.d[b]",
}

// reply is what the plugin does with a verdict: for a block it throws an
// Error whose message is the reason (opencode then fails the call, and the
// model reads the message as its result), written here as {"throw":
// reason}; an allowed call gets nothing, and runs under opencode's own
// permission rules.
func reply(a hook.Answer) hook.Reply {
	if !a.Deny {
		return hook.Reply{}
	}
	b, _ := json.Marshal(struct {
		Throw string `json:"throw"`
	}{a.Reason})
	return hook.Reply{Stdout: b}
}

// event is one tool.execute.before call as the plugin sees it (the
// recorded fixtures' lines): the hook's input, the call's arguments, and
// the plugin's directory and worktree.
type event struct {
	Input struct {
		Tool      string `json:"tool"`
		SessionID string `json:"sessionID"`
		CallID    string `json:"callID"`
	} `json:"input"`
	Args      map[string]json.RawMessage `json:"args"`
	Directory string                     `json:"directory"`
	Worktree  string                     `json:"worktree"`
}

// decode reads one tool.execute.before call as the plugin sees it, strictly:
// valid UTF-8, no member it does not know, a tool name, arguments that are
// an object. The plugin sends the sidecar the same call (see
// docs/sidecar-protocol.md): the session's directory is where relative
// paths resolve and the policy is looked up.
func decode(b []byte) (hook.Event, error) {
	if len(b) > hook.MaxEvent {
		return hook.Event{}, fmt.Errorf("event is over %d bytes", hook.MaxEvent)
	}
	if !utf8.Valid(b) {
		return hook.Event{}, errors.New("event is not valid UTF-8")
	}
	var ev event
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return hook.Event{}, fmt.Errorf("event is not a tool.execute.before call: %w", err)
	}
	out := hook.Event{Kind: hook.BeforeTool, Call: hook.Call{Agent: Name, Session: ev.Input.SessionID,
		Cwd: ev.Directory, Tool: ev.Input.Tool, Input: ev.Args}}
	switch {
	case ev.Input.Tool == "":
		return out, errors.New("event names no tool")
	case ev.Args == nil:
		return out, errors.New("event has no arguments object")
	}
	return out, nil
}
