//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRunTrue times "picket run -- true" with a 100-rule policy over
// a workspace of 10,000 files, interleaved with the equivalent
// hand-written bwrap invocation and plain true, b.N rounds, and reports
// the medians, the ratio and the targets (at most 1.5x bwrap, under
// 25 ms):
//
//	go test ./cmd/picket -run '^$' -bench RunTrue -benchtime 40x
func BenchmarkRunTrue(b *testing.B) {
	w := newEscapeWorld(b)
	for d := 0; d < 100; d++ {
		for f := 0; f < 100; f++ {
			write(b, filepath.Join(w.ws, fmt.Sprintf("pkg%02d/sub/file%03d.go", d, f)), "package x")
		}
	}
	write(b, filepath.Join(w.ws, "fence.jsonc"), benchPolicy(100))
	// A workspace that exists before the agent starts: a directory changed
	// in the last two seconds is listed again on every run.
	time.Sleep(2100 * time.Millisecond)
	bwrap, _ := exec.LookPath("bwrap")
	trueBin, _ := exec.LookPath("true")
	hand := []string{bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid", "--unshare-ipc",
		"--unshare-uts", "--unshare-cgroup-try", "--unshare-net", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
		"--bind", w.ws, w.ws, "--ro-bind", filepath.Join(w.ws, ".git", "hooks"), filepath.Join(w.ws, ".git", "hooks"),
		"--ro-bind", "/dev/null", filepath.Join(w.home, ".ssh", "id_rsa"), "--tmpfs", filepath.Join(w.home, ".aws"),
		"--chdir", w.ws, "--", trueBin}
	variants := []struct {
		name string
		argv []string
	}{
		{"picket run -- true", []string{w.bin, "run", "--", "true"}},
		{"hand-written bwrap", hand},
		{"true", []string{trueBin}},
	}
	times := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for r := 0; r < b.N; r++ {
		for j := range variants {
			i := (r + j) % len(variants) // rotate which goes first
			v := variants[i]
			c := exec.Command(v.argv[0], v.argv[1:]...)
			c.Dir, c.Env = w.ws, w.env()
			var errb strings.Builder
			c.Stderr = &errb
			start := time.Now()
			if err := c.Run(); err != nil {
				b.Fatalf("%s: %v: %s", v.name, err, errb.String())
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	b.StopTimer()
	med := make([]time.Duration, len(variants))
	for i := range variants {
		slices.Sort(times[i])
		med[i] = times[i][len(times[i])/2]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	ratio := float64(med[0]) / float64(med[1])
	b.ReportMetric(ms(med[0]), "picket-run-median-ms")
	b.ReportMetric(ms(med[1]), "bwrap-median-ms")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(0, "ns/op")
	verdict := "met"
	if ratio > 1.5 || med[0] >= 25*time.Millisecond {
		verdict = "NOT MET"
	}
	b.Logf("%d rounds, interleaved: picket run -- true median %.2f ms, hand-written bwrap %.2f ms, true %.2f ms; "+
		"ratio %.2fx bwrap (target <= 1.5x and < 25 ms: %s)", b.N, ms(med[0]), ms(med[1]), ms(med[2]), ratio, verdict)
}

// benchPolicy is code plus n rules over the four lists: literal dirs,
// "**/name", "**/*.ext" and "~/..." globs.
func benchPolicy(n int) string {
	lists := map[string][]string{}
	names := []string{"denyRead", "allowRead", "allowWrite", "denyWrite"}
	for i := 0; i < n; i++ {
		var p string
		switch i % 6 {
		case 0:
			p = fmt.Sprintf("pkg%02d/sub/gen%d", i%100, i)
		case 1:
			p = fmt.Sprintf("/opt/vendor%d/lib", i)
		case 2:
			p = fmt.Sprintf("**/node_modules%d", i)
		case 3:
			p = fmt.Sprintf("**/*.ext%d", i)
		case 4:
			p = fmt.Sprintf("~/.config/app%d/*.json", i)
		case 5:
			p = fmt.Sprintf("~/.cache/tool%d", i)
		}
		l := names[(i/6)%4]
		lists[l] = append(lists[l], fmt.Sprintf("%q", p))
	}
	var parts []string
	for _, l := range names {
		parts = append(parts, fmt.Sprintf("%q: [%s]", l, strings.Join(lists[l], ", ")))
	}
	return `{"extends": "code", "filesystem": {` + strings.Join(parts, ", ") + `}}`
}
