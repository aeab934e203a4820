package copilot

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/picketdev/picket/hook"
)

// The dialects of Copilot CLI's hook events ([hook.Call.Dialect]).
const (
	// Camel is Copilot CLI's own: a hooks file's camelCase events
	// (preToolUse), {sessionId, timestamp, cwd, toolName, toolArgs}, no
	// event name in the payload. picket install registers this one.
	Camel = "camel"
	// Pascal is the Claude-compatible one: PascalCase events
	// (PreToolUse), {hook_event_name, session_id, cwd, tool_name,
	// tool_input} with Claude Code's tool names and Copilot CLI's argument
	// names. Copilot CLI speaks it to a repository's .claude/settings.json
	// hooks.
	Pascal = "pascal"
)

// rawKey is the key under which a tool input that is not a JSON object
// (apply_patch's raw patch text) goes into [hook.Call.Input].
const rawKey = "patch"

// keys are the member names of each dialect: an event holding one of
// the other's is refused, since it is neither.
var (
	camelKeys  = []string{"sessionId", "toolName", "toolArgs", "toolResult", "initialPrompt"}
	pascalKeys = []string{"hook_event_name", "session_id", "tool_name", "tool_input", "tool_result", "initial_prompt"}
)

// claudeNames are the Claude Code tool names the Pascal dialect reports,
// to Copilot CLI's own ("Edit" is also apply_patch and
// str_replace_editor: told apart by the input).
var claudeNames = map[string]string{
	"Read": "view", "Write": "create", "Edit": "edit", "Grep": "grep", "Glob": "glob", "Bash": "bash",
}

// decode is the Agent's Decode: an event of either dialect, strictly (a
// JSON object in valid UTF-8 with exact key names), into picket's call
// with Copilot CLI's own tool names.
func decode(b []byte) (hook.Event, error) {
	ev := hook.Event{Call: hook.Call{Agent: Name}}
	obj, err := hook.EventObject(b)
	if err != nil {
		return ev, err
	}
	_, pascal := obj["hook_event_name"]
	mine, theirs := camelKeys, pascalKeys
	if pascal {
		mine, theirs = pascalKeys, camelKeys
		ev.Call.Dialect = Pascal
	} else {
		ev.Call.Dialect = Camel
	}
	for _, k := range theirs {
		if _, ok := obj[k]; ok {
			return ev, fmt.Errorf("event mixes the two hook dialects (%s beside %s)", k, mine[0])
		}
	}
	field := func(camel, pascalName string) string {
		if pascal {
			return pascalName
		}
		return camel
	}
	str := func(key string) string {
		raw, ok := obj[key]
		if !ok || err != nil {
			return ""
		}
		v, e := hook.StringOf(raw)
		if e != nil {
			err = fmt.Errorf("event field %s: %w", key, e)
		}
		return v
	}
	ev.Call.Session = str(field("sessionId", "session_id"))
	ev.Call.Cwd = str("cwd")
	tool := str(field("toolName", "tool_name"))
	name := str("hook_event_name")
	if err != nil {
		return ev, err
	}
	ev.Call.Tool = tool
	_, hasTool := obj[field("toolName", "tool_name")]
	_, hasResult := obj[field("toolResult", "tool_result")]
	switch {
	case pascal && (name == "PreToolUse" || name == "PostToolUse"):
		if !hasTool || tool == "" {
			return ev, fmt.Errorf("%s event has no tool_name", name)
		}
		ev.Kind = hook.BeforeTool
		if name == "PostToolUse" {
			ev.Kind = hook.AfterTool
		}
	case pascal && name == "SessionStart":
		ev.Kind = hook.SessionStart
	case pascal && name == "SessionEnd":
		ev.Kind = hook.SessionEnd
	case pascal:
		ev.Kind = hook.OtherEvent
	case hasTool:
		// The camelCase events carry no name: a tool's result makes
		// postToolUse, and every other event naming a tool is judged as
		// the call it is about (a preToolUse, or a later event whose
		// answer Copilot CLI does not read).
		if tool == "" {
			return ev, errors.New("event has an empty toolName")
		}
		ev.Kind = hook.BeforeTool
		if hasResult {
			ev.Kind = hook.AfterTool
		}
	case obj["reason"] != nil && obj["source"] == nil:
		ev.Kind = hook.SessionEnd
	case obj["source"] != nil:
		ev.Kind = hook.SessionStart
	default:
		// Not one of the events picket registers: a preToolUse whose
		// members Copilot CLI renamed would look like this, and must not
		// pass as nothing to do.
		return ev, errors.New("event is none of the camelCase events picket registers (sessionStart, preToolUse, postToolUse, sessionEnd)")
	}
	if ev.Kind != hook.BeforeTool && ev.Kind != hook.AfterTool {
		return ev, nil
	}
	in, err := input(obj[field("toolArgs", "tool_input")])
	if err != nil {
		return ev, fmt.Errorf("event field %s: %w", field("toolArgs", "tool_input"), err)
	}
	ev.Call.Input = in
	if pascal {
		ev.Call.Tool = runtimeName(tool, in)
	}
	return ev, nil
}

// input reads a tool's input: an object as it is, a string (apply_patch's
// patch text) under [rawKey]; anything else, or none, is an empty input,
// which every file tool refuses.
func input(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	switch raw[0] {
	case '{':
		var in map[string]json.RawMessage
		if err := hook.DecodeObject(raw, &in); err != nil {
			return nil, err
		}
		return in, nil
	case '"':
		if _, err := hook.StringOf(raw); err != nil {
			return nil, err
		}
		return map[string]json.RawMessage{rawKey: raw}, nil
	}
	return nil, errors.New("not an object or a string")
}

// runtimeName is Copilot CLI's own name for a tool the Pascal dialect
// reports by Claude Code's: "Edit" with the patch text is apply_patch,
// with a command is str_replace_editor.
func runtimeName(tool string, in map[string]json.RawMessage) string {
	name, ok := claudeNames[tool]
	if !ok {
		return tool
	}
	if tool == "Edit" {
		if _, ok := in[rawKey]; ok && len(in) == 1 && isString(in[rawKey]) {
			return "apply_patch"
		}
		if _, ok := in["command"]; ok {
			return "str_replace_editor"
		}
	}
	return name
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// reply is the Agent's Reply. A block is Copilot CLI's own deny object
// with exit status 2, in either dialect: exit 2 denies the call whatever
// stdout holds (Copilot CLI runs a call on a reply it cannot read), and
// the reason in the object is merged into the denial, so the model reads
// "Denied by preToolUse hook: <reason>" (both measured on 1.0.102 in both
// dialects). A wrapped shell call is the rewrite in the event's dialect
// (modifiedArgs, or the Claude-compatible updatedInput), exit 0. Anything
// else is the neutral answer: nothing, exit 0, so Copilot CLI's own
// permission rules still apply; a notice has no place to go (a hook's
// output reaches the model, not the person) and is dropped.
func reply(a hook.Answer) hook.Reply {
	switch {
	case a.Deny:
		b, _ := json.Marshal(struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		}{"deny", a.Reason})
		return hook.Reply{Stdout: append(b, '\n'), Stderr: []byte(a.Reason + "\n"), Exit: 2}
	case a.Input != nil && a.Dialect == Pascal:
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "updatedInput": a.Input}})
		return hook.Reply{Stdout: append(b, '\n')}
	case a.Input != nil:
		b, _ := json.Marshal(map[string]any{"modifiedArgs": a.Input})
		return hook.Reply{Stdout: append(b, '\n')}
	}
	return hook.Reply{}
}
