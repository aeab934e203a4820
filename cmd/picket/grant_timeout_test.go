package main

import (
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// TestPromptTimeoutCap: the cap the hook applies to
// picket.prompt.timeoutSeconds is the one lint warns about, and it stays
// 30 s under the hook timeout install writes (lint's message says so).
func TestPromptTimeoutCap(t *testing.T) {
	if decide.PromptTimeoutCap != hook.ClaudeHookTimeout-30 {
		t.Fatalf("decide.PromptTimeoutCap = %d, want hook.ClaudeHookTimeout-30 = %d", decide.PromptTimeoutCap, hook.ClaudeHookTimeout-30)
	}
	for _, tt := range []struct{ configured, want int }{{0, 60}, {45, 45}, {60, 60}, {61, 60}, {600, 60}} {
		if got := promptTimeout(tt.configured); got != tt.want {
			t.Errorf("promptTimeout(%d) = %d, want %d", tt.configured, got, tt.want)
		}
	}
}
