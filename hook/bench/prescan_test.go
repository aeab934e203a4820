package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkPrescan measures what picket's scan of a search costs against
// the search tool listing the same tree: `rg --files --hidden --no-ignore`
// with the ripgrep Claude Code embeds (.ci/agents.sh installs it). On a
// 100,000-entry workspace and a 380,000-entry home holding it (a Go build
// cache and three projects with node_modules), with planted secrets the
// searches must not reach (.env files in the workspace, keys in the home
// and deep in a node_modules), it times, interleaved, per round:
//
//   - rg --files of the tree;
//   - `picket hook` on Claude Code's Grep (glob "*.js") and Glob ("**/*.js")
//     of the tree, each a process, as Claude Code runs it;
//   - `picket serve` deciding Pi's grep (glob "*.js") and find ("*.js") of
//     the tree, one sidecar answering in turn, as Pi asks it.
//
// Every search is allowed, so each scan walks the whole tree. It reports
// the medians and each one's ratio to rg's; the target is at most 1.5.
// The trees are built once under PICKET_BENCH_DIR (default
// .cache/bench/prescan in the repository, outside the system temp dir,
// which the code template lets be written) and kept for the next run.
//
//	go test ./hook/bench -run '^$' -bench Prescan -benchtime 9x
func BenchmarkPrescan(b *testing.B) {
	rg := claudeRipgrep(b)
	home := prescanTree(b)
	ws := filepath.Join(home, "src", "ws")
	tmp := b.TempDir()
	picket := build(b, tmp, "picket", "github.com/picketdev/picket/cmd/picket", "CGO_ENABLED=0")
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(tmp, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"), "PATH=/usr/bin:/bin"}
	for _, c := range []struct{ name, root string }{{"workspace", ws}, {"home", home}} {
		b.Run(c.name, func(b *testing.B) {
			sv := startServe(b, picket, env, ws)
			defer sv.close()
			searches := []struct {
				name string
				run  func() cost
			}{
				{"rg --files", func() cost { return timeRg(b, rg, c.root) }},
				{"Claude Code Grep *.js", func() cost {
					return timeHook(b, picket, env, ws, "Grep", map[string]any{"pattern": "x", "glob": "*.js", "path": c.root})
				}},
				{"Claude Code Glob **/*.js", func() cost {
					return timeHook(b, picket, env, ws, "Glob", map[string]any{"pattern": "**/*.js", "path": c.root})
				}},
				{"Pi grep *.js", func() cost {
					return sv.decide(b, "grep", map[string]any{"pattern": "x", "glob": "*.js", "path": c.root})
				}},
				{"Pi find *.js", func() cost {
					return sv.decide(b, "find", map[string]any{"pattern": "*.js", "path": c.root})
				}},
			}
			wall := make([][]time.Duration, len(searches))
			cpu := make([][]time.Duration, len(searches))
			for _, s := range searches {
				s.run() // warm: the page cache, the policy's validation marker
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Rotate which goes first, so none always follows another.
				for j := range searches {
					k := (i + j) % len(searches)
					c := searches[k].run()
					wall[k], cpu[k] = append(wall[k], c.wall), append(cpu[k], c.cpu)
				}
			}
			b.StopTimer()
			base, baseCPU := ms(quantile(wall[0], 0.5)), ms(quantile(cpu[0], 0.5))
			var line []string
			for k, s := range searches {
				m, mc := ms(quantile(wall[k], 0.5)), ms(quantile(cpu[k], 0.5))
				line = append(line, fmt.Sprintf("%s %.0f ms (%.2fx), CPU %.0f ms (%.2fx)", s.name, m, m/base, mc, mc/baseCPU))
				if k > 0 {
					b.ReportMetric(m/base, strings.ReplaceAll(strings.ReplaceAll(s.name, " ", "-"), "*", "")+"-ratio")
				}
			}
			b.ReportMetric(base, "rg-median-ms")
			b.ReportMetric(0, "ns/op")
			b.Logf("%s (%s), %d rounds, medians of wall time and of CPU time (user+system): %s; target <= 1.5x rg",
				c.name, c.root, b.N, strings.Join(line, "; "))
		})
	}
}

// claudeRipgrep is the ripgrep Claude Code embeds: its executable, run as
// "rg".
func claudeRipgrep(b *testing.B) string {
	b.Helper()
	m := filepath.Join("..", "..", ".cache", "agents", "node_modules", "@anthropic-ai")
	for _, c := range []string{m + "/claude-code/bin/claude.exe", m + "/claude-code-linux-x64/claude", m + "/claude-code-linux-arm64/claude"} {
		abs, _ := filepath.Abs(c)
		cmd := exec.Command(abs, "--version")
		cmd.Args[0] = "rg"
		if out, err := cmd.Output(); err == nil && strings.HasPrefix(string(out), "ripgrep ") {
			return abs
		}
	}
	b.Skip("no Claude Code under .cache/agents: run bash .ci/agents.sh")
	return ""
}

// cost is what one search took: wall time, and the CPU time (user and
// system) of the process that did it. On a machine shared with other
// work the wall time of each varies with the load far more than the CPU
// time does.
type cost struct{ wall, cpu time.Duration }

func timeRg(b *testing.B, rg, root string) cost {
	cmd := exec.Command(rg, "--no-config", "--files", "--hidden", "--no-ignore", root)
	cmd.Args[0] = "rg"
	cmd.Stdout = io.Discard // through a pipe, as an agent reads it
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("rg --files %s: %v", root, err)
	}
	return cost{time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// timeHook times one `picket hook` process on a PreToolUse event, which
// must be allowed (no answer).
func timeHook(b *testing.B, picket string, env []string, cwd, tool string, input map[string]any) cost {
	ev, _ := json.Marshal(map[string]any{"session_id": "bench", "cwd": cwd, "hook_event_name": "PreToolUse",
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_bench"})
	cmd := exec.Command(picket, "hook")
	cmd.Env, cmd.Stdin = env, bytes.NewReader(ev)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil || out.Len() != 0 {
		b.Fatalf("picket hook on %s %v: %v, answered %s, want an allow", tool, input, err, out.Bytes())
	}
	return cost{time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// server is one `picket serve`, asked one request at a time.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	cwd string
	id  int
}

func startServe(b *testing.B, picket string, env []string, cwd string) *server {
	b.Helper()
	cmd := exec.Command(picket, "serve")
	cmd.Env, cmd.Dir = env, cwd
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &server{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), cwd: cwd}
}

// decide times one decide request, which must be allowed; its CPU time
// is the server's over the request (/proc's, in clock ticks).
func (s *server) decide(b *testing.B, tool string, input map[string]any) cost {
	s.id++
	req, _ := json.Marshal(map[string]any{"id": s.id, "op": "decide", "session": "bench", "turn": 0,
		"cwd": s.cwd, "tool": tool, "input": input})
	cpu0 := procCPU(b, s.cmd.Process.Pid)
	start := time.Now()
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		b.Fatal(err)
	}
	line, err := s.out.ReadBytes('\n')
	took := time.Since(start)
	if err != nil {
		b.Fatalf("picket serve: %v", err)
	}
	var res struct {
		Allow bool `json:"allow"`
	}
	if json.Unmarshal(line, &res) != nil || !res.Allow {
		b.Fatalf("picket serve on %s %v answered %s, want an allow", tool, input, line)
	}
	return cost{took, procCPU(b, s.cmd.Process.Pid) - cpu0}
}

// procCPU is a process's user and system time so far, all its threads.
func procCPU(b *testing.B, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the whole line.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

func (s *server) close() {
	s.in.Close()
	s.cmd.Wait()
}

// prescanTree builds (once) the home of the benchmark and returns its
// path; the workspace is its src/ws.
func prescanTree(b *testing.B) string {
	b.Helper()
	base := os.Getenv("PICKET_BENCH_DIR")
	if base == "" {
		base = filepath.Join("..", "..", ".cache", "bench", "prescan")
	}
	base, _ = filepath.Abs(base)
	home := filepath.Join(base, "home")
	done := filepath.Join(base, "built-v1")
	if _, err := os.Stat(done); err == nil {
		return home
	}
	os.RemoveAll(base)
	start := time.Now()
	n := buildHome(b, home)
	if err := os.WriteFile(done, []byte(fmt.Sprintf("%d entries\n", n)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d entries under %s in %v", n, home, time.Since(start).Round(time.Second))
	return home
}

// buildHome makes the home: a 100,000-entry workspace (src/ws), a Go
// build cache and three projects with node_modules, about 380,000 entries
// in all, with secrets planted early and late in walk order.
func buildHome(b *testing.B, home string) int {
	n := 0
	file := func(p, content string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		n++
	}
	ws := filepath.Join(home, "src", "ws")
	file(filepath.Join(ws, "fence.jsonc"), `{ "extends": "code", "picket": { "blocklist": [".env", ".env.*"] } }`+"\n")
	for i := range 100 {
		pkg := filepath.Join(ws, fmt.Sprintf("pkg%02d", i))
		file(filepath.Join(pkg, "package.json"), "{}\n")
		file(filepath.Join(pkg, "README.md"), "# pkg\n")
		for c := range 5 {
			file(filepath.Join(pkg, "config", fmt.Sprintf("c%d.json", c)), "{}\n")
		}
		for m := range 10 {
			mod := filepath.Join(pkg, fmt.Sprintf("mod%d", m))
			for f := range 60 {
				file(filepath.Join(mod, "src", fmt.Sprintf("file%d.js", f)), "export const x = 1\n")
			}
			for f := range 20 {
				file(filepath.Join(mod, "test", fmt.Sprintf("t%d.ts", f)), "test()\n")
			}
			for f := range 5 {
				file(filepath.Join(mod, "deep", "er", fmt.Sprintf("d%d.go", f)), "package er\n")
			}
		}
	}
	nodeModules(file, filepath.Join(ws, "node_modules"), 100)
	for _, s := range []string{".env", "pkg00/.env", "pkg50/config/.env.local", "pkg99/mod9/deep/er/.env"} {
		file(filepath.Join(ws, s), "SECRET=1\n")
	}
	for i := range 256 {
		for f := range 600 {
			file(filepath.Join(home, ".cache", "go-build", fmt.Sprintf("%02x", i), fmt.Sprintf("%02x%04x-d", i, f)), "x")
		}
	}
	for _, p := range []string{"api", "web", "tools"} {
		nodeModules(file, filepath.Join(home, "src", p, "node_modules"), 420)
		file(filepath.Join(home, "src", p, "index.js"), "x\n")
	}
	file(filepath.Join(home, ".ssh", "id_ed25519"), "KEY\n")
	file(filepath.Join(home, ".bash_history"), "history\n")
	file(filepath.Join(home, "src", "web", "node_modules", "pkg0417", "lib", "fixtures", "id_rsa"), "KEY\n")
	return n
}

// nodeModules makes pkgs packages of 100 entries each.
func nodeModules(file func(p, content string), dir string, pkgs int) {
	for i := range pkgs {
		pkg := filepath.Join(dir, fmt.Sprintf("pkg%04d", i))
		file(filepath.Join(pkg, "package.json"), "{}\n")
		file(filepath.Join(pkg, "index.js"), "module.exports = 1\n")
		for f := range 94 {
			file(filepath.Join(pkg, "lib", fmt.Sprintf("m%02d.js", f)), "x\n")
		}
	}
}
