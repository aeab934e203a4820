package hook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPreToolUseDeny: the shared deny is, byte for byte, what Claude Code's
// package wrote before it (a map, keys sorted), for reasons JSON must
// escape.
func TestPreToolUseDeny(t *testing.T) {
	for _, reason := range []string{"", "picket: blocked", `a "quoted" <path> & more`, "line\nbreak \u2028 é \x01"} {
		want, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason,
		}})
		want = append(want, '\n')
		if got := PreToolUseDeny(reason); !bytes.Equal(got, want) {
			t.Errorf("PreToolUseDeny(%q) = %s, want %s", reason, got, want)
		}
	}
}
