package hook_test

import (
	"errors"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestDecodeHookPreflight: an agent's Preflight, given the hook's
// environment, refuses a call before its tool runs, and no other event.
func TestDecodeHookPreflight(t *testing.T) {
	var seen string
	a := hook.Agent{
		Decode: func(b []byte) (hook.Event, error) {
			if string(b) == "start" {
				return hook.Event{Kind: hook.SessionStart}, nil
			}
			return hook.Event{Kind: hook.BeforeTool, Call: hook.Call{Tool: "view"}}, nil
		},
		Hook: &hook.CommandHook{Preflight: func(getenv func(string) string) error {
			seen = getenv("X")
			return errors.New("a hook runs after picket's")
		}},
	}
	getenv := func(k string) string { return map[string]string{"X": "set"}[k] }
	if _, err := a.DecodeHook([]byte("call"), nil, getenv); err == nil || seen != "set" {
		t.Errorf("call: %v (preflight saw %q), want the preflight's error", err, seen)
	}
	if _, err := a.DecodeHook([]byte("start"), nil, getenv); err != nil {
		t.Errorf("session start: %v, want no preflight", err)
	}
}
