package qwen

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

// The Qwen Code hook events picket registers for.
const (
	EventPreToolUse  = "PreToolUse"
	EventPostToolUse = "PostToolUse"
)

// Event is one Qwen Code hook event, with the fields picket reads.
type Event struct {
	Session string
	// Cwd is the session's directory: where Qwen Code started, its
	// workspace's first directory, what its tools resolve a relative
	// path against.
	Cwd   string
	Event string // hook_event_name
	Tool  string
	Input map[string]json.RawMessage
}

// Parse decodes one event strictly: a JSON object in valid UTF-8 with
// exact key names, as Qwen Code writes them (Go's decoder would match
// keys case-insensitively and replace invalid UTF-8, and picket could
// judge another call than the one Qwen Code runs).
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
	if ev.Event != EventPreToolUse && ev.Event != EventPostToolUse {
		return ev, nil
	}
	if ev.Tool == "" {
		return ev, fmt.Errorf("%s event has no tool_name", ev.Event)
	}
	if !filepath.IsAbs(ev.Cwd) {
		return ev, fmt.Errorf("event cwd %q is not an absolute path", ev.Cwd)
	}
	if raw, ok := obj["tool_input"]; ok {
		if err := hook.DecodeObject(raw, &ev.Input); err != nil {
			return ev, fmt.Errorf("event field tool_input: %w", err)
		}
	}
	return ev, nil
}

// decode is the Agent's event codec. Qwen Code starts its hook in the
// session's directory and names the same as cwd.
func decode(b []byte) (hook.Event, error) {
	ev, err := Parse(b)
	out := hook.Event{Call: hook.Call{Agent: Name, Session: ev.Session, Cwd: ev.Cwd, Tool: ev.Tool, Input: ev.Input}}
	if err != nil {
		return out, err
	}
	switch ev.Event {
	case EventPreToolUse:
		out.Kind = hook.BeforeTool
	case EventPostToolUse:
		out.Kind = hook.AfterTool
	}
	return out, nil
}

// Deny is Qwen Code's PreToolUse answer that blocks the call, as JSON on
// stdout: the schema in testdata/reply.schema.json.
func Deny(reason string) []byte { return hook.PreToolUseDeny(reason) }

// reply is Qwen Code's answer. A block exits 2 with the reason on
// stderr: Qwen Code reads stderr as the block's reason whatever is on
// stdout, so nothing a shell start-up file prints can turn it into an
// allow, where a JSON answer on stdout with exit 0, spoiled, would be
// read as one. (A reason that is itself a JSON object would be read as
// an answer: picket's starts with "picket:".) The JSON deny goes to
// stdout as well, for anyone reading picket's answer (picket doctor, the
// tests). An allowed call gets nothing and exit 0: Qwen Code's own
// approvals still apply.
func reply(a hook.Answer) hook.Reply {
	if !a.Deny {
		return hook.Reply{}
	}
	reason := a.Reason
	if reason == "" {
		reason = "picket: blocked" // Qwen Code runs a call whose exit 2 says nothing
	}
	return hook.Reply{Stdout: Deny(reason), Stderr: []byte(reason + "\n"), Exit: 2}
}
