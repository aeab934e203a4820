package hook

import (
	"encoding/json"
	"errors"
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
