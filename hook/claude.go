package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxEvent is the largest hook event picket reads; a larger one is denied.
const MaxEvent = 16 << 20

// ClaudeEvent is one Claude Code hook event, with the fields picket reads.
type ClaudeEvent struct {
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

// ParseClaude decodes one event strictly: a JSON object in valid UTF-8 with
// exact (case-sensitive) key names, as Claude Code writes them. Go's JSON
// decoder matches struct fields case-insensitively and replaces invalid
// UTF-8 silently; either could make picket judge a different call than the
// one the agent runs, so neither is used on the raw event.
func ParseClaude(b []byte) (ClaudeEvent, error) {
	var ev ClaudeEvent
	if len(b) > MaxEvent {
		return ev, fmt.Errorf("event is over %d bytes", MaxEvent)
	}
	if !utf8.Valid(b) {
		return ev, errors.New("event is not valid UTF-8")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return ev, fmt.Errorf("event is not a JSON object: %w", err)
	}
	if obj == nil {
		return ev, errors.New("event is not a JSON object")
	}
	fields := []struct {
		key      string
		dst      *string
		required bool
	}{
		{"hook_event_name", &ev.Event, true},
		{"session_id", &ev.Session, false},
		{"cwd", &ev.Cwd, false},
		{"prompt_id", &ev.PromptID, false},
		{"tool_name", &ev.Tool, false},
		{"tool_use_id", &ev.ToolUseID, false},
	}
	for _, f := range fields {
		raw, ok := obj[f.key]
		if !ok {
			if f.required {
				return ev, fmt.Errorf("event has no %s", f.key)
			}
			continue
		}
		v, err := stringOf(raw)
		if err != nil {
			return ev, fmt.Errorf("event field %s: %w", f.key, err)
		}
		*f.dst = v
	}
	switch ev.Event {
	case EventPreToolUse, EventPostToolUse:
		if ev.Tool == "" {
			return ev, fmt.Errorf("%s event has no tool_name", ev.Event)
		}
		if raw, ok := obj["tool_input"]; ok {
			if err := decodeObject(raw, &ev.Input); err != nil {
				return ev, fmt.Errorf("event field tool_input: %w", err)
			}
		}
		ev.Response = obj["tool_response"]
	}
	return ev, nil
}

// stringOf decodes a JSON string. A string that needs no unescaping (the
// usual path) is sliced out directly; anything else is json.Unmarshal's.
func stringOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", errors.New("not a string")
	}
	if v, ok := plainString(raw); ok {
		return v, nil
	}
	var v string
	err := json.Unmarshal(raw, &v)
	return v, err
}

// plainString returns the value of a JSON string that needs no unescaping
// (valid UTF-8, no backslash, no control character), which json.Unmarshal
// would return too; anything else is left to json.Unmarshal.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	v := raw[1 : len(raw)-1]
	for _, c := range v {
		if c == '"' || c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(v) {
		return "", false
	}
	return string(v), true
}

func decodeObject(raw json.RawMessage, dst *map[string]json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("not an object")
	}
	return json.Unmarshal(raw, dst)
}

// ClaudeDeny is Claude Code's PreToolUse answer that blocks the call; the
// reason goes to the model.
func ClaudeDeny(reason string) []byte {
	out := map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            EventPreToolUse,
		"permissionDecision":       "deny",
		"permissionDecisionReason": reason,
	}}
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// ClaudeSystemMessage is an answer that shows msg to the person once.
func ClaudeSystemMessage(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"systemMessage": msg})
	return append(b, '\n')
}
