package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkShellScale builds the machine once (see tree.go) in
// PICKET_BENCH_DIR (default .cache/bench in the checkout; never under the
// system temp dir, which the code template makes writable) and, for each
// workspace size in PICKET_BENCH_SIZES (default 10000,100000,1000000),
// prints:
//
//   - the first picket run -- true with no walk kept (target < 2 s at
//     100,000);
//   - a warm picket run -- true against a hand-written bubblewrap with the
//     same basic binds, interleaved, medians (target <= 4x);
//   - a run after a change in the workspace;
//   - the pre-scan of a Claude Code Grep over the workspace (picket hook)
//     against rg --files --hidden --no-ignore with the ripgrep Claude Code
//     ships (target <= 1.5x);
//   - the scenario rows: each planted secret through cat, an append to
//     one, a .env made between two commands, no warning on later commands.
//
// PICKET_BENCH_BIN times another picket binary (an older build, for the
// figures before a change); PICKET_BENCH_ROUNDS sets the rounds (21).
//
//	go test ./sandbox/bench -run '^$' -bench ShellScale -benchtime 1x -timeout 2h
func BenchmarkShellScale(b *testing.B) {
	dir := benchDir(b)
	bin := picketBinary(b, dir)
	home := filepath.Join(dir, "home")
	homeEntries, homeSecrets := ensureTree(b, home, func() (int, []Secret) { return buildHome(home) })
	rg := ripgrep(b)
	rounds := 21
	if s := os.Getenv("PICKET_BENCH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	sizes := []int{10000, 100000, 1000000}
	if s := os.Getenv("PICKET_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("PICKET_BENCH_SIZES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	report(b, "picket %s; home %d entries; %d rounds; ripgrep %s", bin, homeEntries, rounds, rg)
	for _, n := range sizes {
		ws := filepath.Join(dir, fmt.Sprintf("ws-%d", n))
		wsEntries, wsSecrets := ensureTree(b, ws, func() (int, []Secret) { return buildWorkspace(ws, n) })
		m := machine{b: b, bin: bin, home: home, ws: ws, rg: rg, rounds: rounds}
		report(b, "workspace of %d entries (%s):", wsEntries, ws)
		m.firstRun()
		m.warm(append(append([]Secret{}, homeSecrets...), wsSecrets...))
		m.afterChange()
		m.prescan()
		m.scenario(append(append([]Secret{}, homeSecrets...), wsSecrets...))
	}
	b.ReportMetric(0, "ns/op")
}

func report(b *testing.B, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Println("shellscale: " + line)
	b.Log(line)
}

// benchDir is where the trees are built, outside the system temp dir.
func benchDir(b *testing.B) string {
	dir := os.Getenv("PICKET_BENCH_DIR")
	if dir == "" {
		wd, _ := os.Getwd()
		dir = filepath.Join(wd, "..", "..", ".cache", "bench")
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	for _, t := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if r, err := filepath.EvalSymlinks(t); err == nil && (dir == r || strings.HasPrefix(dir, r+"/")) {
			b.Fatalf("%s is under the temp dir %s, which the code template makes writable: set PICKET_BENCH_DIR elsewhere", dir, t)
		}
	}
	return dir
}

// picketBinary builds picket as the README does (no cgo), or takes
// PICKET_BENCH_BIN.
func picketBinary(b *testing.B, dir string) string {
	if bin := os.Getenv("PICKET_BENCH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(dir, "bin", "picket")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/picketdev/picket/cmd/picket")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// ripgrep is the ripgrep Claude Code ships (its native binary answers as
// rg when called so), from the agents bash .ci/agents.sh installs, or the
// one in PATH.
func ripgrep(b *testing.B) string {
	agents := os.Getenv("PICKET_AGENTS_DIR")
	if agents == "" {
		wd, _ := os.Getwd()
		agents = filepath.Join(wd, "..", "..", ".cache", "agents")
	}
	for _, c := range []string{"node_modules/@anthropic-ai/claude-code/bin/claude.exe", "node_modules/@anthropic-ai/claude-code-linux-x64/claude"} {
		if fi, err := os.Stat(filepath.Join(agents, c)); err == nil && fi.Mode()&0o111 != 0 {
			return filepath.Join(agents, c)
		}
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		return rg
	}
	return ""
}

// ensureTree builds a tree once; a marker beside it keeps its count and
// secrets for the next run.
func ensureTree(b *testing.B, dir string, build func() (int, []Secret)) (int, []Secret) {
	marker := dir + ".json"
	var m struct {
		Entries int
		Secrets []Secret
	}
	if data, err := os.ReadFile(marker); err == nil && json.Unmarshal(data, &m) == nil {
		return m.Entries, m.Secrets
	}
	os.RemoveAll(dir)
	start := time.Now()
	m.Entries, m.Secrets = build()
	report(b, "built %s: %d entries in %.0f s", dir, m.Entries, time.Since(start).Seconds())
	data, _ := json.Marshal(m)
	if err := os.WriteFile(marker, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return m.Entries, m.Secrets
}

// machine is one workspace on the benchmark's home.
type machine struct {
	b                 *testing.B
	bin, home, ws, rg string
	rounds            int
}

func (m machine) env() []string {
	return []string{"HOME=" + m.home, "PWD=" + m.ws, "PATH=" + os.Getenv("PATH"), "LANG=C"}
}

func (m machine) stateDir() string { return filepath.Join(m.home, ".local", "state", "picket") }

// result is one run of a program.
type result struct {
	took, cpu    time.Duration // wall time; user and system time of it and its children
	code         int
	stdout, errs string
}

func (m machine) exec(argv []string, stdin string) result {
	c := exec.Command(argv[0], argv[1:]...)
	if filepath.Base(argv[0]) == "claude.exe" || filepath.Base(argv[0]) == "claude" {
		c.Args[0] = "rg" // Claude Code's binary is its ripgrep when called so
	}
	c.Dir, c.Env = m.ws, m.env()
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := c.Run()
	r := result{took: time.Since(start), stdout: out.String(), errs: errb.String()}
	if c.ProcessState != nil {
		r.code = c.ProcessState.ExitCode()
		r.cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	} else if err != nil {
		m.b.Fatalf("%s: %v", argv[0], err)
	}
	return r
}

func (m machine) picket(args ...string) result { return m.exec(append([]string{m.bin}, args...), "") }

// forget removes every walk picket kept on disk; firstRun runs without a
// keeper, so none that runs answers either.
func (m machine) forget() {
	files, _ := filepath.Glob(filepath.Join(m.stateDir(), "sandbox", "walk-*.bin"))
	older, _ := filepath.Glob(filepath.Join(m.stateDir(), "sandbox", "walk-*.json")) // before the keeper
	for _, f := range append(files, older...) {
		os.Remove(f)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (m machine) firstRun() {
	var times, cpu []time.Duration
	for range 3 {
		m.forget()
		r := m.exec([]string{"env", "PICKET_WALK_KEEPER=off", m.bin, "run", "--", "true"}, "")
		if r.code != 0 {
			m.b.Fatalf("picket run: %d %s", r.code, r.errs)
		}
		times, cpu = append(times, r.took), append(cpu, r.cpu)
	}
	report(m.b, "  first run, no walk kept: median %.0f ms of 3 (%.0f, %.0f, %.0f), CPU %.0f ms (target < 2000 ms at 100,000 entries)",
		ms(median(times)), ms(times[0]), ms(times[1]), ms(times[2]), ms(median(cpu)))
}

// handBwrap is bubblewrap as a person would write it for this workspace:
// the same namespaces, the host read-only, the workspace writable, the
// secrets covered.
func (m machine) handBwrap(secrets []Secret) []string {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		m.b.Skip("bubblewrap is not installed")
	}
	trueBin, _ := exec.LookPath("true")
	empty := filepath.Join(filepath.Dir(m.ws), "empty-file")
	os.WriteFile(empty, nil, 0)
	args := []string{bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid", "--unshare-ipc",
		"--unshare-uts", "--unshare-cgroup-try", "--unshare-net", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
		"--bind", m.ws, m.ws, "--ro-bind", filepath.Join(m.ws, ".git"), filepath.Join(m.ws, ".git")}
	for _, s := range secrets {
		args = append(args, "--ro-bind", empty, s.Path)
	}
	return append(args, "--chdir", m.ws, "--", trueBin)
}

func (m machine) warm(secrets []Secret) {
	hand := m.handBwrap(secrets)
	m.picket("run", "--", "true")
	// Past the walk's racy window (a directory changed within 2 s of a
	// walk is read again by the next), and time for the keeper the first
	// command started to watch every directory.
	time.Sleep(3 * time.Second)
	for range 3 {
		m.picket("run", "--", "true")
	}
	var pk, bw, pkCPU, bwCPU []time.Duration
	warned := 0
	for i := range m.rounds {
		for j := range 2 {
			if (i+j)%2 == 0 {
				r := m.picket("run", "--", "true")
				if r.code != 0 {
					m.b.Fatalf("picket run: %d %s", r.code, r.errs)
				}
				if r.errs != "" {
					warned++
				}
				pk, pkCPU = append(pk, r.took), append(pkCPU, r.cpu)
			} else {
				r := m.exec(hand, "")
				if r.code != 0 {
					m.b.Fatalf("bwrap: %d %s", r.code, r.errs)
				}
				bw, bwCPU = append(bw, r.took), append(bwCPU, r.cpu)
			}
		}
	}
	p, h := median(pk), median(bw)
	report(m.b, "  warm picket run -- true: median %.1f ms vs hand-written bwrap %.1f ms: %.2fx (target <= 4x); CPU %.1f vs %.1f ms; stderr on %d of %d warm runs",
		ms(p), ms(h), float64(p)/float64(h), ms(median(pkCPU)), ms(median(bwCPU)), warned, len(pk))
}

func (m machine) afterChange() {
	var times []time.Duration
	for i := range min(m.rounds, 11) {
		os.WriteFile(filepath.Join(m.ws, "README.md"), []byte(fmt.Sprint(i)), 0o644)
		os.WriteFile(filepath.Join(m.ws, fmt.Sprintf("new-%d.go", i)), nil, 0o644)
		times = append(times, m.picket("run", "--", "true").took)
	}
	for i := range min(m.rounds, 11) {
		os.Remove(filepath.Join(m.ws, fmt.Sprintf("new-%d.go", i)))
	}
	report(m.b, "  picket run -- true after a file was made in the workspace: median %.1f ms", ms(median(times)))
}

// prescan times the pre-scan of a Claude Code Grep over the workspace
// against ripgrep listing the same tree.
func (m machine) prescan() {
	if m.rg == "" {
		report(m.b, "  pre-scan: no ripgrep found (run bash .ci/agents.sh)")
		return
	}
	event := fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Grep",`+
		`"tool_input":{"pattern":"TODO","glob":"*.js","path":%q},"tool_use_id":"toolu_bench"}`, m.ws, m.ws)
	rg := []string{m.rg, "--no-config", "--files", "--hidden", "--no-ignore", m.ws}
	var hook, list []time.Duration
	answer := "allowed"
	for i := range max(m.rounds/2, 5) {
		for j := range 2 {
			if (i+j)%2 == 0 {
				r := m.exec([]string{m.bin, "hook"}, event)
				if r.code != 0 {
					m.b.Fatalf("picket hook on a Grep: %d %s %s", r.code, r.stdout, r.errs)
				}
				if r.stdout != "" {
					answer = "blocked: " + r.stdout
				}
				hook = append(hook, r.took)
			} else {
				list = append(list, m.exec(rg, "").took)
			}
		}
	}
	h, l := median(hook), median(list)
	report(m.b, "  pre-scan: picket hook on a Grep *.js median %.0f ms vs rg --files --hidden --no-ignore %.0f ms: %.2fx (target <= 1.5x); the Grep was %.200s",
		ms(h), ms(l), float64(h)/float64(l), answer)
}

// scenario runs the rows: each secret through cat, an append to
// one, a .env made between two commands, and no warning once the walk is
// kept.
func (m machine) scenario(secrets []Secret) {
	printed := 0
	var which []string
	for _, s := range secrets {
		r := m.picket("run", "--", "cat", s.Path)
		if strings.Contains(r.stdout, s.Content) {
			printed++
			which = append(which, s.Path)
		}
	}
	report(m.b, "  cat of %d planted secrets: %d printed %v (want 0)", len(secrets), printed, which)
	target := secrets[len(secrets)-2] // the deep .env in the workspace
	mark := fmt.Sprintf("PWNED-%d", time.Now().UnixNano())
	m.picket("run", "--", "sh", "-c", "echo "+mark+" >> "+strconv.Quote(target.Path))
	data, _ := os.ReadFile(target.Path)
	report(m.b, "  echo PWNED >> %s: %s", target.Path, verdict(!strings.Contains(string(data), mark), "blocked", "appended"))
	os.WriteFile(target.Path, []byte(target.Content), 0o644) // for the next run, should it have been appended
	for _, rel := range []string{"made-between/.env", "made-between/a/b/c/d/e/f/g/h/.env.local"} {
		fresh := filepath.Join(m.ws, rel)
		os.MkdirAll(filepath.Dir(fresh), 0o755)
		os.WriteFile(fresh, []byte("SECRET-MADE-BETWEEN"), 0o644)
		r := m.picket("run", "--", "cat", fresh)
		report(m.b, "  %s made between two commands, then cat: %s", rel, verdict(!strings.Contains(r.stdout, "SECRET"), "hidden", "printed"))
	}
	os.RemoveAll(filepath.Join(m.ws, "made-between"))
	r := m.picket("run", "--", "true")
	report(m.b, "  stderr of a later command: %q (want empty)", r.errs)
}

func verdict(ok bool, good, bad string) string {
	if ok {
		return good
	}
	return bad
}
