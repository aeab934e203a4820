package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

// Event is one Codex hook event, with the fields picket reads.
type Event struct {
	Session string
	Turn    string
	// Cwd is the working directory of the call: for a shell command the
	// one the model chose (workdir), not the session's.
	Cwd   string
	Event string // hook_event_name
	Tool  string
	Input map[string]json.RawMessage
}

// Parse decodes one event strictly: a JSON object in valid UTF-8 with
// exact key names, as Codex writes them (Go's decoder would match keys
// case-insensitively and replace invalid UTF-8, and picket could judge
// another call than the one Codex runs).
func Parse(b []byte) (Event, error) {
	var ev Event
	obj, err := hook.EventObject(b)
	if err != nil {
		return ev, err
	}
	err = hook.StringFields(obj,
		hook.EventField{Key: "hook_event_name", Dst: &ev.Event, Required: true},
		hook.EventField{Key: "session_id", Dst: &ev.Session},
		hook.EventField{Key: "turn_id", Dst: &ev.Turn},
		hook.EventField{Key: "cwd", Dst: &ev.Cwd},
		hook.EventField{Key: "tool_name", Dst: &ev.Tool},
	)
	if err != nil {
		return ev, err
	}
	if ev.Event != EventPreToolUse {
		return ev, nil
	}
	if ev.Tool == "" {
		return ev, errors.New("PreToolUse event has no tool_name")
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

// decode is the Agent's event codec. Codex hands the hook the call's
// working directory as cwd; the session's directory, where the policy is
// and the hook runs, comes from the hook's own working directory
// (CommandHook.RootIsWorkingDir).
func decode(b []byte) (hook.Event, error) {
	ev, err := Parse(b)
	out := hook.Event{Call: hook.Call{Agent: Name, Session: ev.Session, Turn: ev.Turn, Cwd: ev.Cwd, Tool: ev.Tool, Input: ev.Input}}
	if err != nil {
		return out, err
	}
	if ev.Event == EventPreToolUse {
		out.Kind = hook.BeforeTool
	}
	return out, nil
}

// Deny is Codex's PreToolUse answer that blocks the call, in exactly the
// schema Codex accepts (one field more, and Codex runs the call).
func Deny(reason string) []byte { return hook.PreToolUseDeny(reason) }

// reply is Codex's answer. A block exits 2 with the reason on stderr:
// Codex reads that as a block whatever is on stdout, where a login
// shell's start-up files (Codex runs hooks through $SHELL -lc) may have
// printed, and would spoil a JSON answer that Codex then ignores,
// running the call. The JSON deny goes to stdout as well, for anyone
// reading picket's answer (picket doctor, the tests). An allowed call
// gets nothing and exit 0: Codex's own approvals still apply.
func reply(a hook.Answer) hook.Reply {
	if !a.Deny {
		return hook.Reply{}
	}
	reason := a.Reason
	if reason == "" {
		reason = "picket: blocked" // Codex runs a call whose block has no reason
	}
	return hook.Reply{Stdout: Deny(reason), Stderr: []byte(reason + "\n"), Exit: 2}
}
