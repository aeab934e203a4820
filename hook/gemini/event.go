package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/picketdev/picket/hook"
)

// Gemini CLI's hook events that picket handles.
const (
	EventBeforeTool   = "BeforeTool"
	EventAfterTool    = "AfterTool"
	EventSessionStart = "SessionStart"
	EventSessionEnd   = "SessionEnd"
	// EventBeforeAgent comes before each prompt of the person's reaches
	// the model, with the context files Gemini CLI loaded when the
	// session started (and reloads on /memory refresh) in its system
	// instruction: picket judges those files as the reads they are.
	EventBeforeAgent = "BeforeAgent"
)

// Event is one Gemini CLI hook event, with the fields picket reads.
type Event struct {
	Session string
	Cwd     string
	Event   string // hook_event_name
	Tool    string
	Input   map[string]json.RawMessage
}

// Parse decodes one event strictly: a JSON object in valid UTF-8 with
// exact key names, as Gemini CLI writes it (JSON.stringify of the hook
// input). Go's decoder would match struct fields case-insensitively and
// replace invalid UTF-8 silently; either could make picket judge another
// call than the one Gemini CLI runs.
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
		hook.EventField{Key: "tool_name", Dst: &ev.Tool},
	)
	if err != nil {
		return ev, err
	}
	switch ev.Event {
	case EventBeforeTool, EventAfterTool:
		if ev.Tool == "" {
			return ev, fmt.Errorf("%s event has no tool_name", ev.Event)
		}
		raw, ok := obj["tool_input"]
		if !ok || string(raw) == "null" {
			return ev, fmt.Errorf("%s event has no tool_input", ev.Event)
		}
		if err := hook.DecodeObject(raw, &ev.Input); err != nil {
			return ev, fmt.Errorf("event field tool_input: %w", err)
		}
	}
	return ev, nil
}

// decode is the Agent's event codec.
func decode(b []byte) (hook.Event, error) {
	ev, err := Parse(b)
	out := hook.Event{Call: hook.Call{Agent: Name, Session: ev.Session, Cwd: ev.Cwd, Tool: ev.Tool, Input: ev.Input}}
	if err != nil {
		return out, err
	}
	switch ev.Event {
	case EventBeforeTool:
		out.Kind = hook.BeforeTool
	case EventAfterTool:
		out.Kind = hook.AfterTool
	case EventSessionStart:
		out.Kind = hook.SessionStart
	case EventSessionEnd:
		out.Kind = hook.SessionEnd
	case EventBeforeAgent:
		// The prompt itself is the person's: not kept, not judged.
		out.Kind, out.Call.Tool, out.Call.Input = hook.BeforeTool, toolStartContext, map[string]json.RawMessage{}
	}
	return out, nil
}

// Deny is Gemini CLI's answer that blocks a call; the model reads
// "Tool execution blocked: " and the reason.
func Deny(reason string) []byte {
	return marshalLine(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"deny", reason})
}

// SystemMessage is an answer that shows msg to the person.
func SystemMessage(msg string) []byte {
	return marshalLine(struct {
		SystemMessage string `json:"systemMessage"`
	}{msg})
}

// Rewritten is the answer that runs a call with input instead of the
// model's, without a decision: Gemini CLI applies it and still asks its
// own approval rules (input replaces the whole input).
func Rewritten(input map[string]json.RawMessage) []byte {
	type specific struct {
		HookEventName string                     `json:"hookEventName"`
		ToolInput     map[string]json.RawMessage `json:"tool_input"`
	}
	return marshalLine(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{EventBeforeTool, input}})
}

func marshalLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("picket: bug: cannot marshal a Gemini CLI answer: " + err.Error())
	}
	return b.Bytes()
}

// reply is Gemini CLI's answer, always with exit 0: a non-zero exit shows
// the person "Hook(s) [picket] failed" for every block, and exit 0 with a
// decision is what Gemini CLI reads as the hook's verdict. An allowed
// call gets nothing at all (Gemini CLI's own approval still applies), or
// its rewritten input.
func reply(a hook.Answer) hook.Reply {
	switch {
	case a.Deny:
		return hook.Reply{Stdout: Deny(a.Reason)}
	case a.Input != nil:
		return hook.Reply{Stdout: Rewritten(a.Input)}
	case a.Notice != "":
		return hook.Reply{Stdout: SystemMessage(a.Notice)}
	}
	return hook.Reply{}
}
