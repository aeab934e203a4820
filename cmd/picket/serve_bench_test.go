package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// TestServeBenchScript runs testdata/bench/serve_bench.mjs (Node) against
// the real binary and the echo baseline; PICKET_BENCH=1 turns it on.
func TestServeBenchScript(t *testing.T) {
	if os.Getenv("PICKET_BENCH") != "1" {
		t.Skip("set PICKET_BENCH=1 to run the Node benchmark")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	picket := buildPicket(t)
	echo := filepath.Join(t.TempDir(), "echo")
	if out, err := exec.Command("go", "build", "-o", echo, "./testdata/bench/echo").CombinedOutput(); err != nil {
		t.Fatalf("go build echo: %v\n%s", err, out)
	}
	out, err := exec.Command(node, "testdata/bench/serve_bench.mjs", "--picket", picket, "--echo", echo).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
}
