package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkServeDecide is one decide request answered in-process, without
// the pipe: the sidecar's own cost per decision.
func BenchmarkServeDecide(b *testing.B) {
	h := newHookProject(b, hookFence)
	s := newSidecar(&cli{env: h.env, stderr: &lockedBuffer{}}, "pi")
	line := []byte(fmt.Sprintf(`{"id":1,"op":"decide","session":"bench","turn":0,"cwd":%q,"tool":"read","input":{"path":"README.md"}}`, h.dir))
	if out := string(s.Answer(line)); !strings.Contains(out, `"allow":true`) {
		b.Fatalf("answer = %s, want an allow", out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Answer(line)
	}
}

// BenchmarkServePipelined is decides through the real protocol loop, 256
// in flight.
func BenchmarkServePipelined(b *testing.B) {
	h := newHookProject(b, hookFence)
	sc := startServe(b, h.env)
	line := fmt.Sprintf(`{"id":1,"op":"decide","session":"bench","turn":0,"cwd":%q,"tool":"read","input":{"path":"README.md"}}`+"\n", h.dir)
	b.ResetTimer()
	go func() {
		for range b.N {
			io.WriteString(sc.in, line)
		}
	}()
	for range b.N {
		if _, err := sc.out.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
