package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// baseline is the least a Go hook can do.
const baseline = `package main

import (
	"io"
	"os"
)

func main() {
	io.ReadAll(os.Stdin)
	os.Stdout.WriteString("{}\n")
}
`

func build(b *testing.B, dir, name, pkg string, env ...string) string {
	b.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), env...)
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, o)
	}
	return out
}

func run(b *testing.B, bin string, args, env []string, stdin []byte) (time.Duration, []byte) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v\n%s", bin, err, out.Bytes())
	}
	return took, out.Bytes()
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func BenchmarkHookStartup(b *testing.B) {
	tmp := b.TempDir()
	// As the README installs it: without cgo (net and os/user otherwise
	// link libc, and the dynamic loader runs on every call).
	static := build(b, tmp, "picket", "github.com/picketdev/picket/cmd/picket", "CGO_ENABLED=0")
	cgo := build(b, tmp, "picket-cgo", "github.com/picketdev/picket/cmd/picket")
	src := filepath.Join(tmp, "baseline", "main.go")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(src, []byte(baseline), 0o644)
	base := build(b, tmp, "baseline-hook", src)

	project := filepath.Join(tmp, "project")
	for _, d := range []string{".git", "src"} {
		os.MkdirAll(filepath.Join(project, d), 0o755)
	}
	os.WriteFile(filepath.Join(project, "fence.jsonc"), []byte(Policy100()), 0o644)
	os.WriteFile(filepath.Join(project, "README.md"), []byte("# project\n"), 0o644)
	home := filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o755)
	runtime := filepath.Join(tmp, "run")
	os.MkdirAll(runtime, 0o700)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "XDG_RUNTIME_DIR=" + runtime,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CLAUDE_PROJECT_DIR=" + project, "PATH=/usr/bin:/bin"}
	event := []byte(fmt.Sprintf(`{"session_id":"250ef737-3851-48e1-b8cd-238e12acefa6","transcript_path":"%[2]s/.claude/projects/p/s.jsonl",`+
		`"cwd":"%[1]s","prompt_id":"33805699-4580-44d7-83ff-97039f46b33a","permission_mode":"acceptEdits","effort":{"level":"medium"},`+
		`"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%[1]s/README.md"},"tool_use_id":"toolu_11796009150485"}`, project, home))

	// Warm up, as a session does: the first call at all validates the
	// policy and leaves a marker, as the SessionStart hook does in real
	// use; the page cache holds the three programs.
	for range 20 {
		for _, bin := range []string{static, cgo} {
			if _, out := run(b, bin, []string{"hook"}, env, event); len(out) != 0 {
				b.Fatalf("picket hook answered %q on an allowed Read, want nothing", out)
			}
		}
		run(b, base, nil, env, event)
	}
	var hookTimes, cgoTimes, baseTimes []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Rotate which goes first, so none always follows another.
		for j := range 3 {
			switch (i + j) % 3 {
			case 0:
				d, _ := run(b, static, []string{"hook"}, env, event)
				hookTimes = append(hookTimes, d)
			case 1:
				d, _ := run(b, cgo, []string{"hook"}, env, event)
				cgoTimes = append(cgoTimes, d)
			case 2:
				d, _ := run(b, base, nil, env, event)
				baseTimes = append(baseTimes, d)
			}
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 { return ms(quantile(d, 0.5)) }
	p90 := func(d []time.Duration) float64 { return ms(quantile(d, 0.9)) }
	baseMed := med(baseTimes)
	b.ReportMetric(med(hookTimes), "hook-median-ms")
	b.ReportMetric(p90(hookTimes), "hook-p90-ms")
	b.ReportMetric(baseMed, "baseline-median-ms")
	b.ReportMetric(p90(baseTimes), "baseline-p90-ms")
	b.ReportMetric(med(hookTimes)/baseMed, "ratio")
	b.ReportMetric(med(cgoTimes)/baseMed, "cgo-ratio")
	b.ReportMetric(0, "ns/op")
	ratio := med(hookTimes) / baseMed
	verdict := "met"
	if ratio > 2.5 {
		verdict = "NOT MET"
	}
	b.Logf("%d runs each, interleaved: picket hook median %.2f ms (p90 %.2f); minimal Go program median %.2f ms (p90 %.2f); "+
		"ratio %.2f (target <= 2.5, no daemon: %s); built with cgo %.2f ms (%.2f)",
		b.N, med(hookTimes), p90(hookTimes), baseMed, p90(baseTimes), ratio, verdict, med(cgoTimes), med(cgoTimes)/baseMed)
}
