package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxEvent is the largest agent event picket reads; a larger one is denied.
const MaxEvent = 16 << 20

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

// DecodeObject decodes a JSON object of raw values (a tool's input).
func DecodeObject(raw json.RawMessage, dst *map[string]json.RawMessage) error {
	return decodeObject(raw, dst)
}

// EventObject reads a hook event's top level, as strictly as an agent's
// own parser must (Go's decoder alone would match keys case-insensitively
// into a struct and replace invalid UTF-8, and picket could judge another
// call than the one the agent runs): at most [MaxEvent] bytes, valid UTF-8,
// one JSON object, whose members are left raw for the agent's package.
func EventObject(b []byte) (map[string]json.RawMessage, error) {
	if len(b) > MaxEvent {
		return nil, fmt.Errorf("event is over %d bytes", MaxEvent)
	}
	if !utf8.Valid(b) {
		return nil, errors.New("event is not valid UTF-8")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("event is not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, errors.New("event is not a JSON object")
	}
	return obj, nil
}

// EventField is a string field of an agent's event: its key, exactly as
// the agent spells it, where its value goes, and whether an event
// without it is refused.
type EventField struct {
	Key      string
	Dst      *string
	Required bool
}

// StringFields sets each field from the event's object, in order: a
// field that is there but not a string, or a required one that is
// missing, is an error that names it (the first such).
func StringFields(obj map[string]json.RawMessage, fields ...EventField) error {
	for _, f := range fields {
		raw, ok := obj[f.Key]
		if !ok {
			if f.Required {
				return fmt.Errorf("event has no %s", f.Key)
			}
			continue
		}
		v, err := stringOf(raw)
		if err != nil {
			return fmt.Errorf("event field %s: %w", f.Key, err)
		}
		*f.Dst = v
	}
	return nil
}
