package claude

import (
	"encoding/json"
	"fmt"

	"github.com/picketdev/picket/hook"
)

// Event is one Claude Code hook event, with the fields picket reads.
type Event struct {
	Session   string
	Cwd       string
	Event     string // hook_event_name
	PromptID  string // the turn
	Tool      string
	Input     map[string]json.RawMessage
	Response  json.RawMessage
	ToolUseID string
}

// Claude Code's hook event names that picket handles.
const (
	EventPreToolUse   = "PreToolUse"
	EventPostToolUse  = "PostToolUse"
	EventSessionStart = "SessionStart"
	EventSessionEnd   = "SessionEnd"
)

// Parse decodes one event strictly: a JSON object in valid UTF-8 with
// exact (case-sensitive) key names, as Claude Code writes them. Go's JSON
// decoder matches struct fields case-insensitively and replaces invalid
// UTF-8 silently; either could make picket judge a different call than the
// one the agent runs, so neither is used on the raw event.
func Parse(b []byte) (Event, error) {
	var ev Event
	obj, err := hook.EventObject(b)
	if err != nil {
		return ev, err
	}
	err = hook.StringFields(obj,
		hook.EventField{Key: "hook_event_name", Dst: &ev.Event, Required: true},
		hook.EventField{Key: "session_id", Dst: &ev.Session},
		hook.EventField{Key: "cwd", Dst: &ev.Cwd},
		hook.EventField{Key: "prompt_id", Dst: &ev.PromptID},
		hook.EventField{Key: "tool_name", Dst: &ev.Tool},
		hook.EventField{Key: "tool_use_id", Dst: &ev.ToolUseID},
	)
	if err != nil {
		return ev, err
	}
	switch ev.Event {
	case EventPreToolUse, EventPostToolUse:
		if ev.Tool == "" {
			return ev, fmt.Errorf("%s event has no tool_name", ev.Event)
		}
		if raw, ok := obj["tool_input"]; ok {
			if err := hook.DecodeObject(raw, &ev.Input); err != nil {
				return ev, fmt.Errorf("event field tool_input: %w", err)
			}
		}
		ev.Response = obj["tool_response"]
	}
	return ev, nil
}

// Deny is Claude Code's PreToolUse answer that blocks the call; the
// reason goes to the model.
func Deny(reason string) []byte { return hook.PreToolUseDeny(reason) }

// SystemMessage is an answer that shows msg to the person once.
func SystemMessage(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"systemMessage": msg})
	return append(b, '\n')
}

// decode is the Agent's event codec: Claude Code's event as the request
// path reads it.
func decode(b []byte) (hook.Event, error) {
	ev, err := Parse(b)
	out := hook.Event{Call: hook.Call{Agent: Name, Session: ev.Session, Turn: ev.PromptID, Cwd: ev.Cwd, Tool: ev.Tool, Input: ev.Input}}
	if err != nil {
		return out, err
	}
	switch ev.Event {
	case EventPreToolUse:
		out.Kind = hook.BeforeTool
	case EventPostToolUse:
		out.Kind = hook.AfterTool
	case EventSessionStart:
		out.Kind = hook.SessionStart
	case EventSessionEnd:
		out.Kind = hook.SessionEnd
	}
	return out, nil
}

// reply is Claude Code's answer: a PreToolUse deny, a system message, or
// nothing at all for an allowed call (so Claude Code's own permission
// rules still apply). The hook always exits 0: Claude Code reads any
// status but 2 as "go ahead", and a deny is on stdout.
func reply(a hook.Answer) hook.Reply {
	switch {
	case a.Deny:
		return hook.Reply{Stdout: Deny(a.Reason)}
	case a.Notice != "":
		return hook.Reply{Stdout: SystemMessage(a.Notice)}
	}
	return hook.Reply{}
}
