package hook

import "testing"

// TestPromptTimeout: the hook caps picket.prompt.timeoutSeconds at
// decide.PromptTimeoutCap (the agents' contract test holds every command
// hook's timeout 30 s above it).
func TestPromptTimeout(t *testing.T) {
	for _, tt := range []struct{ configured, want int }{{0, 60}, {45, 45}, {60, 60}, {61, 60}, {600, 60}} {
		if got := promptTimeout(tt.configured); got != tt.want {
			t.Errorf("promptTimeout(%d) = %d, want %d", tt.configured, got, tt.want)
		}
	}
}
