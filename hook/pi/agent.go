package pi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/picketdev/picket/hook"
)

// Name is Pi's name on picket's command line and in audit lines.
const Name = "pi"

// Agent is Pi, for the registry (hook/agents). Pi loads picket's
// extension in-process, and the extension asks picket serve: it has no
// command hook.
var Agent = hook.Agent{
	Name:        Name,
	Title:       "Pi",
	Targets:     targets,
	Decode:      decode,
	FileTools:   []string{"read", "write", "edit", "ls", "grep", "find"},
	Reply:       reply,
	Wired:       wired,
	Canary:      canary,
	ConfigPaths: configPaths,
	Wire:        wire,
	Unwire:      unwire,
	Install:     install,
	Uninstall:   uninstall,
	Fixtures:    "hook/pi/testdata",
	InstallHelp: installHelp,
}

// configPaths are what Pi loads as code or prompt text: extensions (code,
// run in its own unsandboxed process), skills, prompts, the packages its
// settings name, the provider its models.json sends everything to, and
// the user-wide AGENTS.md, global and per project. The rarer files are
// spelled as globs: held wherever they exist, without a placeholder for
// each during every sandboxed command.
var configPaths = []string{
	"~/.pi/agent/extensions", "~/.pi/agent/skills", "~/.pi/agent/prompts",
	".pi/extensions", ".pi/settings.json", "~/.agents/skills",
	"~/.pi/agent/settings.jso[n]", "~/.pi/agent/models.jso[n]",
	".pi/[s]kills", ".pi/[p]rompts", "~/.pi/agent/AGENTS.m[d]",
}

// reply is what the extension hands Pi for a verdict: a tool_call
// handler's result, {"block": true, "reason": …} to block the call, and
// nothing (undefined) to let it run under Pi's own rules.
func reply(a hook.Answer) hook.Reply {
	if !a.Deny {
		return hook.Reply{}
	}
	b, _ := json.Marshal(struct {
		Block  bool   `json:"block"`
		Reason string `json:"reason"`
	}{true, a.Reason})
	return hook.Reply{Stdout: b}
}

// decode reads one event as the extension sees it from Pi (the recorded
// fixtures' lines): a tool_call is judged before it runs, a tool_result
// keeps the ledger, session_start and session_shutdown start and end the
// session. The extension sends the sidecar the same call (see
// docs/sidecar-protocol.md).
func decode(b []byte) (hook.Event, error) {
	var ev struct {
		Ev string `json:"ev"`
		E  struct {
			ToolName string                     `json:"toolName"`
			Input    map[string]json.RawMessage `json:"input"`
		} `json:"e"`
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return hook.Event{}, fmt.Errorf("event is not a JSON object: %w", err)
	}
	out := hook.Event{Call: hook.Call{Agent: Name, Cwd: ev.Cwd, Tool: ev.E.ToolName, Input: ev.E.Input}}
	switch ev.Ev {
	case "tool_call":
		out.Kind = hook.BeforeTool
	case "tool_result":
		out.Kind = hook.AfterTool
	case "session_start":
		out.Kind = hook.SessionStart
	case "session_shutdown":
		out.Kind = hook.SessionEnd
	case "":
		return out, errors.New("event has no ev")
	}
	return out, nil
}
