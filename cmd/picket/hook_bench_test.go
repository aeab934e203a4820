package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/picketdev/picket/hook/bench"
)

// BenchmarkHookInProcess is one `picket hook` PreToolUse Read against a
// 100-rule policy, run in-process: what the hook does after the Go runtime
// has started, without the process start hook/bench also times.
func BenchmarkHookInProcess(b *testing.B) {
	h := newHookProject(b, bench.Policy100())
	event := []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"%s/t.jsonl","cwd":%q,"prompt_id":"p1",`+
		`"permission_mode":"acceptEdits","hook_event_name":"PreToolUse","tool_name":"Read",`+
		`"tool_input":{"file_path":"%s/README.md"},"tool_use_id":"toolu_1"}`, h.session, h.home, h.dir, h.dir))
	var out bytes.Buffer
	if code := run([]string{"hook"}, h.env, bytes.NewReader(event), &out, &out); code != 0 || out.Len() != 0 {
		b.Fatalf("picket hook = %d %q on an allowed Read, want 0 and nothing", code, out.String())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run([]string{"hook"}, h.env, bytes.NewReader(event), io.Discard, io.Discard)
	}
}
