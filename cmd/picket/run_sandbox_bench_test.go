//go:build linux

package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/egress/netnstest"
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

// BenchmarkRunNetwork, in a network namespace of its own, times "picket
// run -- true" with a network section against the same policy without
// one, b.N rounds interleaved, and curl's download of 200 MB from the
// sandbox through picket's proxy (CONNECT, and a plain HTTP proxy
// request) against curl's directly, 5 rounds; it reports the medians and
// the targets (at most 5 ms slower; at least 70% of direct throughput):
//
//	go test ./cmd/picket -run '^$' -bench RunNetwork -benchtime 40x
func BenchmarkRunNetwork(b *testing.B) {
	if !netnstest.Enter(b, netnstest.Config{Addrs: []string{"203.0.113.10"}, Hosts: map[string]string{"bench.test": "203.0.113.10"}}) {
		return
	}
	if b.N == 1 {
		return // the testing package's sizing run: pass -benchtime Nx
	}
	requireBwrap(b)
	base := sandboxScratch(b)
	bin := picketBin(b, base)
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	names := []string{"without a network section", "with a network section"}
	policies := []string{`{"extends": "code"}`, `{"extends": "code", "network": {"allowedDomains": ["bench.test"]}}`}
	dirs := make([]string, len(names))
	for i, policy := range policies {
		dirs[i] = filepath.Join(base, fmt.Sprintf("proj%d", i))
		write(b, filepath.Join(dirs[i], ".git", "HEAD"), "ref: refs/heads/main\n")
		write(b, filepath.Join(dirs[i], "fence.jsonc"), policy)
	}
	// runTrue returns the wall time of one run and the CPU time (user and
	// system) of picket, bubblewrap and the command: on a loaded machine
	// the first swings by tens of milliseconds, the second much less.
	runTrue := func(i int) (time.Duration, time.Duration) {
		c := exec.Command(bin, "run", "--", "true")
		c.Dir, c.Env = dirs[i], sandboxEnv(home, dirs[i], "CI=true")
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v: %s", names[i], err, out)
		}
		return time.Since(start), c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	runTrue(0) // the walk caches
	runTrue(1)
	times := make([][]time.Duration, len(names))
	cpu := make([][]time.Duration, len(names))
	b.ResetTimer()
	for r := 0; r < b.N; r++ {
		for j := range names {
			i := (r + j) % len(names)
			wall, used := runTrue(i)
			times[i], cpu[i] = append(times[i], wall), append(cpu[i], used)
		}
	}
	b.StopTimer()
	without, with := medianDuration(times[0]), medianDuration(times[1])
	cpuWithout, cpuWith := medianDuration(cpu[0]), medianDuration(cpu[1])
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(without), "run-true-median-ms")
	b.ReportMetric(ms(with), "run-true-network-median-ms")
	b.ReportMetric(0, "ns/op")
	verdict := "met"
	if with-without > 5*time.Millisecond {
		verdict = "NOT MET"
	}
	b.Logf("%d rounds, interleaved: picket run -- true median %.2f ms without a network section, %.2f ms with one: %+.2f ms (target at most +5 ms: %s)",
		b.N, ms(without), ms(with), ms(with-without), verdict)
	b.Logf("the same runs' CPU time (picket, bubblewrap, true): median %.2f ms without, %.2f ms with: %+.2f ms",
		ms(cpuWithout), ms(cpuWith), ms(cpuWith-cpuWithout))

	ways, rates := curlRates(b, bin, home, dirs[1])
	for i, w := range ways[1:] {
		ratio := rates[i+1] / rates[0]
		verdict := "met"
		if ratio < 0.7 {
			verdict = "NOT MET"
		}
		b.Logf("curl 200 MB, median of 5: %.0f MB/s %s, %.0f MB/s direct: %.0f%% (target at least 70%%: %s)", rates[i+1], w, rates[0], 100*ratio, verdict)
	}
}

// curlRates serves 200 MB on bench.test:8080 and returns curl's median
// download speed (MB/s) directly, from the sandbox of dir through CONNECT,
// and through a plain HTTP proxy request, 5 rounds interleaved.
func curlRates(b *testing.B, bin, home, dir string) ([]string, []float64) {
	const size = 200 << 20
	l, err := net.Listen("tcp", "203.0.113.10:8080")
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for left := size; left > 0; left -= len(buf) {
			if _, err := w.Write(buf[:min(left, len(buf))]); err != nil {
				return
			}
		}
	})}
	go srv.Serve(l)
	defer srv.Close()
	curl := []string{"curl", "-sS", "-o", "/dev/null", "-w", "%{speed_download}"}
	url := "http://bench.test:8080/"
	ways := []struct {
		name string
		argv []string
	}{
		{"direct", append(append([]string{"curl", "--noproxy", "*"}, curl[1:]...), url)},
		{"from the sandbox through CONNECT (curl -p)", append(append([]string{bin, "run", "--"}, curl...), "-p", url)},
		{"from the sandbox as a plain HTTP proxy request", append(append([]string{bin, "run", "--"}, curl...), url)},
	}
	rates := make([][]float64, len(ways))
	for range 5 {
		for i, w := range ways {
			c := exec.Command(w.argv[0], w.argv[1:]...)
			c.Dir, c.Env = dir, sandboxEnv(home, dir, "CI=true")
			out, err := c.Output()
			v, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if err != nil || perr != nil {
				b.Fatalf("curl %s: %v, printed %.64q", w.name, err, out)
			}
			rates[i] = append(rates[i], v/(1<<20))
		}
	}
	names := make([]string, len(ways))
	med := make([]float64, len(ways))
	for i := range ways {
		slices.Sort(rates[i])
		names[i], med[i] = ways[i].name, rates[i][len(rates[i])/2]
	}
	return names, med
}

func medianDuration(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
