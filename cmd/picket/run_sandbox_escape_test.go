//go:build linux

package main

import (
	"fmt"
	"github.com/picketdev/picket/internal/testenv"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv turns the test binary into a tiny tool run inside the
// sandbox: "connect PATH" dials a unix socket ("@name" is abstract),
// "tiocsti" pushes a byte into the terminal on stdin. Exit 0 on success.
const helperEnv = "PICKET_TEST_HELPER"

func init() {
	switch os.Getenv(helperEnv) {
	case "connect":
		c, err := net.Dial("unix", os.Args[len(os.Args)-1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c.Close()
		os.Exit(0)
	case "tiocsti":
		b := byte('x')
		if err := unix.IoctlSetPointerInt(0, unix.TIOCSTI, int(b)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// escapeWorld is a workspace (a git repo), a home with secrets and a
// picket binary, for tests that try to get out from inside.
type escapeWorld struct {
	base, ws, home, out, bin string
}

func newEscapeWorld(t testing.TB) escapeWorld {
	requireBwrap(t)
	base := sandboxScratch(t)
	w := escapeWorld{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), out: filepath.Join(base, "outside")}
	for f, c := range map[string]string{
		"home/.ssh/id_rsa": "SECRET-KEY", "home/.aws/credentials": "SECRET-AWS", "home/.bashrc": "# rc",
		"ws/main.go": "package main", "ws/.git/HEAD": "ref: refs/heads/main", "ws/.git/config": "[core]",
		"ws/.git/hooks/pre-commit.sample": "#!/bin/sh", "outside/data.txt": "data",
	} {
		write(t, filepath.Join(base, f), c)
	}
	w.bin = picketBin(t, base)
	return w
}

func (w escapeWorld) env(extra ...string) []string { return sandboxEnv(w.home, w.ws, extra...) }

// attempts runs each shell line inside picket run and returns the lines
// that succeeded (exit 0).
func (w escapeWorld) attempts(t *testing.T, args []string, lines map[string]string, env ...string) map[string]bool {
	t.Helper()
	var script strings.Builder
	for name, line := range lines {
		fmt.Fprintf(&script, "if ( %s ) >/dev/null 2>&1; then echo 'ok %s'; else echo 'no %s'; fi\n", line, name, name)
	}
	all := append(append([]string{"run"}, args...), "--", "sh", "-c", script.String())
	code, stdout, stderr := pk(t, w.bin, w.ws, w.env(env...), all...)
	if code != 0 {
		t.Fatalf("picket run exited %d: %s", code, stderr)
	}
	got := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if name, ok := strings.CutPrefix(l, "ok "); ok {
			got[name] = true
		}
	}
	return got
}

// TestRunEscapes tries the known ways out of a mount sandbox from inside.
// Each must fail, and the host must be unchanged afterwards.
func TestRunEscapes(t *testing.T) {
	w := newEscapeWorld(t)
	h, ws := w.home, w.ws
	lines := map[string]string{
		"symlink-to-hidden-dir": fmt.Sprintf("ln -s %s/.aws l && cat l/credentials | grep SECRET", h),
		"dotdot-read":           "cat ../home/.ssh/id_rsa | grep SECRET",
		"dotdot-write":          "echo pwn > ../outside/pwn",
		"hard-link-hidden-file": fmt.Sprintf("ln %s/.ssh/id_rsa hl && cat hl | grep SECRET", h),
		"hard-link-in-hidden":   fmt.Sprintf("ln %s/.aws/credentials hl2", h),
		"new-git-hook":          "echo evil > .git/hooks/pre-commit",
		"new-policy-file":       "echo '{}' > fence.jsonc",
		"new-claude-settings":   "mkdir -p .claude && echo '{}' > .claude/settings.json",
		"proc-self-root":        fmt.Sprintf("cat /proc/self/root%s/.ssh/id_rsa | grep SECRET", h),
		"proc-parent-cwd":       fmt.Sprintf("ls /proc/%d/cwd/", os.Getpid()),
		"proc-parent-root":      fmt.Sprintf("cat /proc/%d/root%s/.ssh/id_rsa | grep SECRET", os.Getpid(), h),
		"proc-1-root":           fmt.Sprintf("cat /proc/1/root%s/.ssh/id_rsa | grep SECRET", h),
		// The first process restricts only the thread that starts the
		// command; its other threads are out of the command's reach only
		// while it is undumpable.
		"proc-1-mem":          `for m in /proc/1/task/*/mem; do (exec 3<>"$m") 2>/dev/null && exit 0; done; exit 1`,
		"proc-1-fd":           "ls -l /proc/1/fd/ | grep -q -- '->'",
		"rename-over-mount":   "mkdir x && mv -T x .git/hooks",
		"rename-over-policy":  "mkdir y && mv -T y fence.jsonc",
		"mv-git-away":         "mv .git .git2",
		"mv-hooks-away":       "mv .git/hooks .git/h2",
		"rm-hooks":            "rm -rf .git/hooks",
		"umount-hidden":       fmt.Sprintf("umount %s/.aws", h),
		"remount-rw":          fmt.Sprintf("mount -o remount,rw,bind %s/.git/hooks", ws),
		"unshare-mount":       fmt.Sprintf("unshare -m sh -c 'umount %s/.aws; cat %s/.aws/credentials' | grep SECRET", h, h),
		"bashrc":              "echo evil >> ~/.bashrc",
		"write-picket-binary": fmt.Sprintf("echo x >> %s", w.bin),
		"mknod":               "mknod dev b 8 0",
		"chmod-hidden":        fmt.Sprintf("chmod 644 %s/.ssh/id_rsa", h),
	}
	got := w.attempts(t, nil, lines)
	for name := range lines {
		if got[name] {
			t.Errorf("escape %q succeeded: %s", name, lines[name])
		}
	}
	for _, p := range []string{"ws/.git/hooks/pre-commit", "ws/fence.jsonc", "ws/.claude/settings.json", "outside/pwn", "ws/.git2"} {
		if fi, err := os.Lstat(filepath.Join(w.base, p)); err == nil && !(fi.IsDir() && isEmptyDir(filepath.Join(w.base, p))) {
			t.Errorf("%s exists on the host after the sandbox", p)
		}
	}
	for _, p := range []string{"ws/fence.jsonc", "ws/.claude", "ws/.mcp.json"} {
		if _, err := os.Lstat(filepath.Join(w.base, p)); err == nil {
			t.Errorf("placeholder %s outlived the sandbox", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h, ".bashrc")); string(b) != "# rc" {
		t.Errorf(".bashrc changed: %q", b)
	}
	// Sanity: the same shell does work where the policy allows.
	ok := w.attempts(t, nil, map[string]string{"write-ws": "echo hi > new.txt && cat new.txt", "read-ws": "cat main.go", "git-objects": "mkdir -p .git/objects/ab && echo o > .git/objects/ab/cd"})
	for _, name := range []string{"write-ws", "read-ws", "git-objects"} {
		if !ok[name] {
			t.Errorf("allowed access %q failed inside the sandbox", name)
		}
	}
}

func isEmptyDir(d string) bool {
	ents, err := os.ReadDir(d)
	return err == nil && len(ents) == 0
}

// TestRunTIOCSTI: the command runs in a new session, so it cannot push
// keystrokes into the terminal it was started from.
func TestRunTIOCSTI(t *testing.T) {
	w := newEscapeWorld(t)
	ptmx, pts := openPTY(t)
	defer ptmx.Close()
	defer pts.Close()
	run := func(args ...string) int {
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = w.ws, w.env()
		c.Stdin = pts
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		c.Run()
		return c.ProcessState.ExitCode()
	}
	if run("env", helperEnv+"=tiocsti", w.bin) != 0 {
		t.Log("TIOCSTI fails even outside the sandbox here (dev.tty.legacy_tiocsti=0); the sandbox test still runs")
	}
	if code := run(w.bin, "run", "--", "env", helperEnv+"=tiocsti", w.bin); code == 0 {
		t.Error("TIOCSTI from inside the sandbox succeeded: the command shares the caller's terminal session")
	}
}

func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	ptmx, pts := newPTY(t)
	go func() {
		buf := make([]byte, 1024)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	return ptmx, pts
}

// newPTY opens a pseudo-terminal pair; the caller reads the master.
func newPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ptmx, pts
}

// TestRunSockets: unix sockets outside the workspace are unreachable unless
// network.allowUnixSockets lists them; abstract sockets of the host are
// unreachable with the network off (a network namespace) and on (Landlock
// scoping, ABI 6).
func TestRunSockets(t *testing.T) {
	w := newEscapeWorld(t)
	listen := func(addr string) {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	// An SSH agent's socket under home, a docker-like one under /run.
	agent := filepath.Join(w.home, ".ssh", "agent", "agent.sock")
	runDir := fmt.Sprintf("/run/picket-test-%d", os.Getpid())
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Skipf("cannot create a socket under /run: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(runDir) })
	docker := filepath.Join(runDir, "docker.sock")
	inWS := filepath.Join(w.ws, "dev.sock")
	abstract := fmt.Sprintf("@picket-test-%d", os.Getpid())
	for _, d := range []string{filepath.Dir(agent), filepath.Dir(docker)} {
		os.MkdirAll(d, 0o755)
	}
	for _, a := range []string{agent, docker, inWS, abstract} {
		listen(a)
	}
	connect := func(addr string) string {
		return fmt.Sprintf("%s=connect %s %s", helperEnv, w.bin, addr)
	}
	lines := map[string]string{"agent": connect(agent), "docker": connect(docker), "workspace": connect(inWS), "abstract": connect(abstract)}
	// Sanity: every socket answers from outside.
	for name, line := range lines {
		if err := exec.Command("sh", "-c", line).Run(); err != nil {
			t.Fatalf("socket %s does not answer outside the sandbox: %v", name, err)
		}
	}
	for _, tc := range []struct {
		name, policy string
		want         map[string]bool
	}{
		{"no-network", `{"extends": "code", "network": {"allowUnixSockets": ["` + docker + `"]}}`,
			map[string]bool{"agent": false, "docker": true, "workspace": true, "abstract": false}},
		{"network-on", `{"extends": "code", "network": {"allowedDomains": ["example.com"]}}`,
			map[string]bool{"agent": false, "docker": false, "workspace": true, "abstract": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(w.base, tc.name+".jsonc")
			write(t, cfg, tc.policy)
			got := w.attempts(t, []string{"--config", cfg}, lines)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("connect to the %s socket: got %v, want %v", name, got[name], want)
				}
			}
		})
	}
}

// TestRunPlaceholderReplaced: a placeholder the person removes while the
// sandbox runs, putting their own file in its place, is not the
// placeholder any more. The cleanup removes empty directories only, so
// the person's file stays.
func TestRunPlaceholderReplaced(t *testing.T) {
	w := newEscapeWorld(t)
	mcp := filepath.Join(w.ws, ".mcp.json")
	c, in := startWaiting(t, w)
	if !isEmptyDir(mcp) {
		c.Process.Kill()
		t.Fatalf("no placeholder at %s while the sandbox ran", mcp)
	}
	if err := os.Remove(mcp); err != nil {
		t.Fatal(err)
	}
	write(t, mcp, `{"mcpServers": {}}`)
	io.WriteString(in, "done\n")
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("picket run: %v", err)
	}
	if b, err := os.ReadFile(mcp); err != nil || string(b) != `{"mcpServers": {}}` {
		t.Errorf("the person's %s after the sandbox: %q, %v; want it kept", mcp, b, err)
	}
}

// TestRunPlaceholdersOverlap: a sandbox started while another runs finds
// the first one's placeholders as directories and makes its own inside
// them; it still cannot create a protected file there, and once the last
// sandbox ends none of them is left, nor after a picket killed mid-run
// and the next run's end.
func TestRunPlaceholdersOverlap(t *testing.T) {
	w := newEscapeWorld(t)
	claude := filepath.Join(w.ws, ".claude")
	first := func() (*exec.Cmd, io.WriteCloser) {
		c, in := startWaiting(t, w)
		if !isEmptyDir(claude) {
			c.Process.Kill()
			t.Fatalf("no placeholder at %s while the sandbox ran", claude)
		}
		return c, in
	}
	leftovers := func(when string) {
		for _, p := range []string{".claude", ".codex", ".cursor", ".gemini", ".github", ".mcp.json", ".pi", "fence.json"} {
			if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
				t.Errorf("%s: placeholder %s left on the host", when, p)
			}
		}
	}

	a, in := first()
	got := w.attempts(t, nil, map[string]string{"settings-local": "echo '{}' > .claude/settings.local.json", "commands": "mkdir -p .claude/commands/x"})
	for name := range got {
		t.Errorf("escape %q succeeded while another sandbox ran", name)
	}
	io.WriteString(in, "done\n")
	in.Close()
	if err := a.Wait(); err != nil {
		t.Fatalf("picket run: %v", err)
	}
	leftovers("after overlapping runs")

	a, _ = first()
	a.Process.Kill()
	a.Wait()
	if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "true"); code != 0 {
		t.Fatalf("picket run after a killed one: %d %s", code, stderr)
	}
	leftovers("after a killed run and the next one")
}

// TestRunForwardsSignals: a signal sent to picket run reaches the
// command, every time: the command's trap decides the exit status.
func TestRunForwardsSignals(t *testing.T) {
	w := newEscapeWorld(t)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGTERM} {
		c, _, _ := startSandboxed(t, w, "trap 'exit 7' TERM INT USR1 HUP; echo ready; while :; do sleep 0.05; done")
		c.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
			if code := c.ProcessState.ExitCode(); code != 7 {
				t.Errorf("run %d: %v: exit %d, want the trap's 7", i, sig, code)
			}
		case <-time.After(10 * time.Second):
			c.Process.Kill()
			<-done
			t.Errorf("run %d: %v did not reach the command", i, sig)
		}
	}
}

// TestRunQuarantinesNewPolicyFiles: a kernel sandbox cannot stop a policy
// file from being created in a writable subdirectory, where it would be
// the policy of the next command started there. picket moves each one the
// command created aside once it ends, audits it, and leaves the person's
// own nested policy file and everything else alone.
func TestRunQuarantinesNewPolicyFiles(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "mine", "fence.jsonc"), `{"extends": "code"}`)
	os.MkdirAll(filepath.Join(w.ws, "old"), 0o755)
	full := `{"picket": {"mode": "full"}}`
	script := fmt.Sprintf("echo '%[1]s' > old/fence.jsonc && mkdir -p new/a/b/c/d/e/f/g/h/i && echo '%[1]s' > new/a/b/c/d/e/f/g/h/i/fence.json && echo kept > new/a/notes.txt", full)
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	for _, p := range []string{"old/fence.jsonc", "new/a/b/c/d/e/f/g/h/i/fence.json"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s, created in the sandbox, is still a policy file", p)
		}
		if !strings.Contains(stderr, "picket: blocked: the command created the policy file "+filepath.Join(w.ws, p)) {
			t.Errorf("stderr does not name %s: %s", p, stderr)
		}
		if m, _ := filepath.Glob(filepath.Join(w.ws, p) + ".quarantined-*"); len(m) != 1 {
			t.Errorf("%s was not moved aside: %v", p, m)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "new/a/notes.txt")); err != nil || string(b) != "kept\n" {
		t.Errorf("new/a/notes.txt = %q, %v; want it kept", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "mine", "fence.jsonc")); err != nil || string(b) != `{"extends": "code"}` {
		t.Errorf("the person's mine/fence.jsonc = %q, %v; want it untouched", b, err)
	}
	audit, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "picket", "audit.log"))
	if n := strings.Count(string(audit), `"decision":"block","tool":"run"`); n != 2 {
		t.Errorf("audit has %d run blocks, want 2:\n%s", n, audit)
	}
	// The next command started there runs under the project's policy.
	if code, out, _ := pk(t, w.bin, w.ws, w.env(), "run", "--cwd", filepath.Join(w.ws, "old"), "--", "cat", filepath.Join(w.home, ".ssh", "id_rsa")); code == 0 || strings.Contains(out, "SECRET") {
		t.Errorf("from old/, cat ~/.ssh/id_rsa = %d %q, want it hidden", code, out)
	}
}

// TestNoTerminalQueryAtStart: picket does not ask the terminal anything
// when it starts. Bubble Tea's upstream init queried the background colour
// in every process, and a terminal that never answers (a "docker run -t"
// pty) held each picket command for 5 s (third_party/bubbletea).
func TestNoTerminalQueryAtStart(t *testing.T) {
	bin := picketBin(t, t.TempDir())
	ptmx, pts := newPTY(t)
	defer ptmx.Close()
	c := exec.Command(bin, "version")
	c.Env = []string{"HOME=" + t.TempDir(), "TERM=xterm-256color"}
	c.Stdin, c.Stdout, c.Stderr = pts, pts, pts
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var out []byte
	buf := make([]byte, 4096)
	for {
		k, err := ptmx.Read(buf)
		out = append(out, buf[:k]...)
		if err != nil {
			break
		}
	}
	c.Wait()
	if strings.Contains(string(out), "\x1b]11;?") || strings.Contains(string(out), "\x1b[6n") {
		t.Errorf("picket version queried the terminal: %q", out)
	}
	if !strings.Contains(string(out), "picket") {
		t.Errorf("picket version wrote %q", out)
	}
}

// startWaiting starts a sandboxed shell that waits for a line on stdin,
// and returns once it runs (its mounts are made).
func startWaiting(t *testing.T, w escapeWorld) (*exec.Cmd, io.WriteCloser) {
	c, in, _ := startSandboxed(t, w, "echo ready; read line")
	return c, in
}

// startSandboxed starts picket run -- sh -c script and returns once the
// script has printed "ready", with its stdin and the rest of its stdout.
func startSandboxed(t *testing.T, w escapeWorld, script string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	c := exec.Command(w.bin, "run", "--", "sh", "-c", script)
	c.Dir, c.Env = w.ws, w.env()
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		c.Process.Kill()
		t.Fatalf("the sandboxed shell did not start: %q %v", line, err)
	}
	return c, in, out
}

// TestRunPlaceholdersKeptForRunningSandboxes: a sandbox that found every
// protected path present (two others had made them) still keeps them from
// being removed under it: removing a directory detaches the read-only
// mount on it, so the last sandbox out, and only it, removes them.
func TestRunPlaceholdersKeptForRunningSandboxes(t *testing.T) {
	w := newEscapeWorld(t)
	a, ina := startWaiting(t, w)
	b, inb := startWaiting(t, w)
	c, inc, outc := startSandboxed(t, w, "echo ready; read line; for f in .claude/settings.json .mcp.json fence.json .pi/extensions/x.ts; do (mkdir -p $(dirname $f); echo '{}' > $f) 2>/dev/null && echo wrote $f; done; echo done")
	for _, x := range []struct {
		c  *exec.Cmd
		in io.WriteCloser
	}{{a, ina}, {b, inb}} {
		io.WriteString(x.in, "end\n")
		x.in.Close()
		if err := x.c.Wait(); err != nil {
			t.Fatalf("picket run: %v", err)
		}
	}
	io.WriteString(inc, "go\n")
	inc.Close()
	rest, _ := io.ReadAll(outc)
	if err := c.Wait(); err != nil {
		t.Fatalf("picket run: %v", err)
	}
	if got := string(rest); got != "done\n" {
		t.Errorf("the last sandbox, after the others ended:\n%s", got)
	}
	for _, p := range []string{".claude", ".mcp.json", "fence.json", ".pi"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s left on the host", p)
		}
	}
}

// TestRunQuarantineHoldsAgainstTricks: a command that sets its directory's
// mtime back, one that makes a policy file deep down and moves its
// directory up in a later command, one that rewrites a file a policy
// extends, and one whose picket is killed before it could look: none
// leaves a policy file to be taken.
func TestRunQuarantineHoldsAgainstTricks(t *testing.T) {
	w := newEscapeWorld(t)
	os.MkdirAll(filepath.Join(w.ws, "old"), 0o755)
	full := `{"picket": {"mode": "full"}}`
	// --cwd: the environment's PWD, the workspace, would win over the
	// process's directory.
	run := func(dir string, args ...string) (int, string, string) {
		return pk(t, w.bin, w.ws, w.env(), append([]string{"run", "--cwd", filepath.Join(w.ws, dir), "--"}, args...)...)
	}
	secretFrom := func(dir string) {
		t.Helper()
		if code, out, _ := run(dir, "cat", filepath.Join(w.home, ".ssh", "id_rsa")); code == 0 || strings.Contains(out, "SECRET") {
			t.Errorf("from %s/, cat ~/.ssh/id_rsa = %d %q, want it hidden", dir, code, out)
		}
	}

	// The directory's mtime set back.
	run(".", "sh", "-c", fmt.Sprintf(`m=$(stat -c %%Y old); echo '%s' > old/fence.jsonc; touch -m -d "@$m" old`, full))
	secretFrom("old")

	// Deep down, then moved up.
	deep := "z/1/2/3/4/5/6/7/8/9"
	run(".", "mkdir", "-p", deep)
	run(".", "sh", "-c", fmt.Sprintf(`mkdir %s/p && echo '%s' > %s/p/fence.jsonc`, deep, full, deep))
	run(".", "mv", deep+"/p", "moved")
	if _, err := os.Lstat(filepath.Join(w.ws, "moved", "fence.jsonc")); err == nil {
		t.Errorf("moved/fence.jsonc, made deep down and moved up, is still a policy file")
	}
	secretFrom("moved")

	// Made deeper than the walk once went (8 levels), with a .git file
	// beside it, which makes its directory a git top: the walk has no depth
	// bound now, so the check finds both and moves them aside.
	deep2 := "x/1/2/3/4/5/6/7/8/9/10"
	run(".", "mkdir", "-p", deep2)
	time.Sleep(100 * time.Millisecond) // out of the first command's last clock tick, or the check looks there too
	run(".", "sh", "-c", fmt.Sprintf(`: > %[2]s/.git && echo '%[1]s' > %[2]s/fence.jsonc`, full, deep2))
	if _, err := os.Lstat(filepath.Join(w.ws, deep2, "fence.jsonc")); err == nil {
		t.Errorf("%s/fence.jsonc, made 11 levels deep, is still a policy file", deep2)
	}
	secretFrom(deep2)

	// A file the person's own nested policy extends, written by a command.
	write(t, filepath.Join(w.ws, "pkg", "fence.jsonc"), `{"extends": "../shared.jsonc"}`)
	write(t, filepath.Join(w.ws, "shared.jsonc"), `{"extends": "code"}`)
	time.Sleep(100 * time.Millisecond)
	run(".", "sh", "-c", fmt.Sprintf(`echo '%s' > shared.jsonc`, full))
	if code, _, stderr := run("pkg", "true"); code != exitUnavailable || !strings.Contains(stderr, "shared.jsonc changed while a sandboxed command ran") {
		t.Errorf("picket run from pkg/, whose policy extends a file a command wrote = %d %q, want refused", code, stderr)
	}
	secretFrom("pkg")
	// The person's own: touched once no command runs, it is theirs.
	time.Sleep(100 * time.Millisecond)
	now := time.Now()
	os.Chtimes(filepath.Join(w.ws, "shared.jsonc"), now, now)
	if code, _, stderr := run("pkg", "true"); code != 0 {
		t.Errorf("after touch, picket run = %d %q, want it run under that policy", code, stderr)
	}

	// A deep directory holding one, moved onto a path the walk read.
	run(".", "mkdir", "-p", "y/1/2/3/4/5/6/7/8/9", "walked")
	run(".", "sh", "-c", fmt.Sprintf(`echo '%s' > y/1/2/3/4/5/6/7/8/9/fence.jsonc`, full))
	run(".", "sh", "-c", "mv walked walked.orig && mv y/1/2/3/4/5/6/7/8/9 walked")
	secretFrom("walked")

	// A writable directory outside the workspace (/var/tmp under code).
	vt, err := os.MkdirTemp("/var/tmp", "picket-quarantine-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(vt) })
	run(".", "sh", "-c", fmt.Sprintf(`mkdir %s/new && echo '%s' > %s/new/fence.jsonc`, vt, full, vt))
	if _, err := os.Lstat(filepath.Join(vt, "new", "fence.jsonc")); err == nil {
		t.Errorf("%s/new/fence.jsonc, made in /var/tmp, is still a policy file", vt)
	}

	// picket killed while the command runs: the next picket does the check.
	os.MkdirAll(filepath.Join(w.ws, "k"), 0o755)
	c, in, _ := startSandboxed(t, w, fmt.Sprintf(`echo '%s' > k/fence.jsonc; echo ready; read line`, full))
	c.Process.Kill()
	c.Wait()
	in.Close()
	if _, err := os.Lstat(filepath.Join(w.ws, "k", "fence.jsonc")); err != nil {
		t.Fatalf("k/fence.jsonc was not made: %v", err)
	}
	secretFrom("k")
	if _, err := os.Lstat(filepath.Join(w.ws, "k", "fence.jsonc")); err == nil {
		t.Errorf("k/fence.jsonc is still a policy file after the next run")
	}
}

// TestRunGit: git works in the sandbox of a real repository (the
// protected .git/hooks and .git/config, and no placeholder where git
// reads a file), while its hooks stay out of reach.
func TestRunGit(t *testing.T) {
	git := testenv.Git(t)
	w := newEscapeWorld(t)
	os.RemoveAll(filepath.Join(w.ws, ".git"))
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "a@b"}, {"config", "user.name", "a"}} {
		c := exec.Command(git, args...)
		c.Dir, c.Env = w.ws, w.env()
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	code, out, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c",
		"git status --short >/dev/null && git add main.go && git commit -qm first && git log --oneline | wc -l")
	if code != 0 || strings.TrimSpace(out) != "1" {
		t.Errorf("git in the sandbox = %d %q %s, want a commit made", code, out, stderr)
	}
	if code, _, _ := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", "echo x > .git/hooks/pre-commit"); code == 0 {
		t.Errorf("a git hook was written from the sandbox")
	}
}

// TestRunHoldsWhereCheckDenies: cases a differential between check and the
// sandbox found the shell allowing. Each line must fail, as check denies.
func TestRunHoldsWhereCheckDenies(t *testing.T) {
	tests := []struct {
		name, fence string
		setup       func(w escapeWorld)
		deny, allow map[string]string
	}{
		{name: "read-only with defaultDenyRead shows only allowRead of the workspace",
			fence: `{"filesystem":{"defaultDenyRead":true,"allowRead":["./src"]},"picket":{"mode":"read-only"}}`,
			setup: func(w escapeWorld) { write(t, filepath.Join(w.ws, "src", "a.txt"), "A") },
			deny:  map[string]string{"read-workspace-file": "cat main.go", "list-workspace": "ls ."},
			allow: map[string]string{"read-allowed": "cat src/a.txt"}},
		{name: "allowWrite inside a mandatory directory stays read-only",
			fence: `{"extends":"code","filesystem":{"allowWrite":["~/**/node_modules/**"]}}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.home, ".claude/skills/fmt/node_modules/lib/index.js"), "module.exports=1")
			},
			deny: map[string]string{"append-skill-code": "echo evil >> ~/.claude/skills/fmt/node_modules/lib/index.js"}},
		{name: "renaming a directory that holds a hidden path",
			fence: `{"extends":"code","filesystem":{"denyRead":["./app/secrets/**","~/.config/gh"],"allowWrite":["~/.config"]},"picket":{"blocklist":["credentials*"]}}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.ws, "app/secrets/prod.txt"), "SECRET-PROD")
				write(t, filepath.Join(w.ws, "cfg/credentials.json"), "SECRET-GCP")
				write(t, filepath.Join(w.home, ".config/gh/hosts.yml"), "SECRET-GH")
			},
			// A name match (cfg/credentials.json) is not held in place: it
			// matches wherever it is moved, and binding its parents would
			// make every rename across them fail (see the next case).
			deny: map[string]string{"mv-app": "mv app app.tmp",
				"mv-gh": "mv ~/.config/gh ~/.config/gh.bak", "read-moved": "cat app.tmp/secrets/prod.txt ~/.config/gh.bak/hosts.yml | grep SECRET"}},
		{name: "renaming a directory that holds a subdirectory's policy",
			fence: `{"extends":"code"}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.ws, "sub/fence.jsonc"), `{"extends":"code","filesystem":{"denyRead":["./secret.txt"]}}`)
				write(t, filepath.Join(w.ws, "sub/deep/fence.json"), `{}`)
			},
			// Moved away and made again, the directory would fall under
			// the looser policy above it.
			deny: map[string]string{"mv-sub": "mv sub sub.old", "mv-deep": "mv sub/deep sub/deep.old"}},
		{name: "renames across a directory holding a blocklisted file work",
			fence: `{"extends":"code","picket":{"blocklist":[".env"]}}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.ws, "backend/.env"), "SECRET")
				write(t, filepath.Join(w.ws, "backend/x.go"), "package x")
				os.MkdirAll(filepath.Join(w.ws, "lib"), 0o755)
			},
			// rename(2) itself: mv falls back to a copy on EXDEV, git mv does not.
			allow: map[string]string{"rename-out": `perl -e 'rename("backend/x.go", "lib/x.go") && rename("lib/x.go", "backend/y.go") or exit 1'`}},
		{name: "read-only with defaultDenyRead reads an allowWrite glob's directory only",
			fence: `{"filesystem":{"defaultDenyRead":true,"allowWrite":["**/build"]},"picket":{"mode":"read-only"}}`,
			setup: func(w escapeWorld) { write(t, filepath.Join(w.ws, "b/build/s.txt"), "SECRET") },
			deny:  map[string]string{"read-below-glob-dir": "grep SECRET b/build/s.txt"}},
		{name: "read-only with defaultDenyRead still reads allowWrite",
			fence: `{"extends":"read-only","filesystem":{"defaultDenyRead":true,"allowWrite":["~/.cache/pip"]}}`,
			setup: func(w escapeWorld) { write(t, filepath.Join(w.home, ".cache/pip/x"), "PIP") },
			deny:  map[string]string{"write-cache": "echo y > ~/.cache/pip/x"},
			allow: map[string]string{"read-cache": "grep PIP ~/.cache/pip/x"}},
		{name: "a hidden file below a protected directory",
			fence: `{"extends":"code","filesystem":{"denyWrite":["./docs"]}}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.ws, "docs/sub/deeper/id_rsa"), "K")
				write(t, filepath.Join(w.ws, "docs/sub/readme.md"), "d")
				os.Symlink(".git/hooks/pre-commit.sample", filepath.Join(w.ws, "id_rsa"))
				os.Symlink(".git", filepath.Join(w.ws, ".env"))
			},
			deny: map[string]string{"write-protected-dir": "echo x >> docs/sub/readme.md", "write-git-hook": "echo evil > .git/hooks/pre-commit"}},
		{name: "a denyWrite glob ending in * leaves .git writable",
			fence: `{"extends":"code","filesystem":{"denyWrite":["**/data/*"]}}`,
			setup: func(w escapeWorld) {
				os.RemoveAll(filepath.Join(w.ws, ".git"))
				if out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput(); err != nil {
					t.Skipf("git init: %v %s", err, out)
				}
			},
			allow: map[string]string{"git-commit": "git add main.go && git -c user.email=a@b -c user.name=a commit -qm x"}},
		{name: "caseInsensitive folds literal rules in the shell too",
			fence: `{"extends":"code","filesystem":{"denyRead":["./Config/Secret.txt"],"denyWrite":["./LOCKED.md"]},"picket":{"caseInsensitive":true}}`,
			setup: func(w escapeWorld) {
				write(t, filepath.Join(w.ws, "config/secret.txt"), "SECRET")
				write(t, filepath.Join(w.ws, "locked.md"), "L")
			},
			deny: map[string]string{"read-folded": "grep SECRET config/secret.txt", "write-folded": "echo x >> locked.md"}},
		{name: "git works in full mode without a ~/.gitconfig",
			fence: `{"extends":"code","picket":{"mode":"full"}}`,
			setup: func(w escapeWorld) {
				os.RemoveAll(filepath.Join(w.ws, ".git"))
				if out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput(); err != nil {
					t.Skipf("git init: %v %s", err, out)
				}
			},
			allow: map[string]string{"git-commit-full": "git add main.go && git -c user.email=a@b -c user.name=a commit -qm x"}},
		{name: "a worktree's gitfile",
			fence: `{"extends":"code"}`,
			setup: func(w escapeWorld) {
				os.RemoveAll(filepath.Join(w.ws, ".git"))
				write(t, filepath.Join(w.ws, ".git"), "gitdir: "+filepath.Join(w.out, "main.git"))
				write(t, filepath.Join(w.ws, "sub", ".git"), "gitdir: ../.git/modules/sub")
			},
			deny: map[string]string{"rewrite-gitfile": "echo 'gitdir: evil' > .git", "rewrite-nested-gitfile": "echo 'gitdir: evil' > sub/.git",
				"replace-gitfile": "rm -f .git && echo 'gitdir: evil' > .git"}},
		{name: "allowWrite through a symlink made in the workspace",
			fence: `{"extends":"code","filesystem":{"allowWrite":["./build"]}}`,
			setup: func(w escapeWorld) { os.Symlink(w.home, filepath.Join(w.ws, "build")) },
			deny:  map[string]string{"write-through-link": "echo x > build/pwned", "write-home": "echo x > ~/pwned"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newEscapeWorld(t)
			write(t, filepath.Join(w.ws, "fence.jsonc"), tt.fence)
			tt.setup(w)
			got := w.attempts(t, nil, tt.deny)
			for name, line := range tt.deny {
				if got[name] {
					t.Errorf("%q succeeded in the sandbox: %s", name, line)
				}
			}
			if len(tt.allow) > 0 {
				got = w.attempts(t, nil, tt.allow)
				for name, line := range tt.allow {
					if !got[name] {
						t.Errorf("%q failed in the sandbox: %s", name, line)
					}
				}
			}
			if b, _ := os.ReadFile(filepath.Join(w.home, ".claude/skills/fmt/node_modules/lib/index.js")); strings.Contains(string(b), "evil") {
				t.Errorf("skill code changed on the host: %q", b)
			}
			if _, err := os.Lstat(filepath.Join(w.home, "pwned")); err == nil {
				t.Errorf("home/pwned exists on the host")
			}
		})
	}
}

// TestRunQuarantinesCommondir: git's commondir in a git dir or a
// submodule's points git at another config (core.fsmonitor runs on the
// next git status); the file tools may not write it, and one a command
// creates is moved aside when it ends. A worktree's, which git worktree
// add writes, is left alone.
func TestRunQuarantinesCommondir(t *testing.T) {
	w := newEscapeWorld(t)
	// A submodule's git dir, as git makes one.
	for _, d := range []string{"objects", "refs"} {
		os.MkdirAll(filepath.Join(w.ws, ".git", "modules", "sub", d), 0o755)
	}
	write(t, filepath.Join(w.ws, ".git", "modules", "sub", "HEAD"), "ref: refs/heads/main\n")
	script := "echo /elsewhere > .git/commondir && echo /elsewhere > .git/modules/sub/commondir && mkdir -p .git/worktrees/wt && echo ../.. > .git/worktrees/wt/commondir"
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	for _, p := range []string{".git/commondir", ".git/modules/sub/commondir"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s, created in the sandbox, is still there", p)
		}
		if !strings.Contains(stderr, "picket: blocked: the command created git's "+filepath.Join(w.ws, p)) {
			t.Errorf("stderr does not name %s: %s", p, stderr)
		}
	}
	if _, err := os.Lstat(filepath.Join(w.ws, ".git/worktrees/wt/commondir")); err != nil {
		t.Errorf("a worktree's commondir was moved: %v", err)
	}
}

// TestRunQuarantinesGitConfig: git files that run code the next time the
// person uses git there (a config with core.fsmonitor, a hook, a gitfile
// pointing at such a config) cannot be stopped from being created by a
// glob-only mount; whatever of them the command made is moved aside when
// it ends.
func TestRunQuarantinesGitConfig(t *testing.T) {
	w := newEscapeWorld(t)
	cfg := `[core]\n\tfsmonitor = "touch PWNED; false"\n`
	script := strings.Join([]string{
		"printf '" + cfg + "' > .git/config.worktree",
		"mkdir -p nested/.git/hooks nested/.git/objects nested/.git/refs && echo 'ref: refs/heads/main' > nested/.git/HEAD",
		"printf '" + cfg + "' > nested/.git/config",
		"printf '#!/bin/sh\\ntouch PWNED\\n' > nested/.git/hooks/post-checkout && echo x > nested/.git/hooks/post-checkout.sample",
		"mkdir -p gd/objects gd/refs && echo 'ref: refs/heads/main' > gd/HEAD && printf '" + cfg + "' > gd/config",
		"mkdir -p linked && echo 'gitdir: ../gd' > linked/.git",
		// hooks elsewhere through a symlinked hooks directory
		"mkdir -p hk nested2/.git/objects nested2/.git/refs && echo 'ref: refs/heads/main' > nested2/.git/HEAD && ln -s ../../hk nested2/.git/hooks",
		// a git dir by HEAD and a commondir naming objects, refs and config elsewhere
		"mkdir -p cd/a/objects cd/a/refs cd/b && printf '" + cfg + "' > cd/a/config && echo 'ref: refs/heads/main' > cd/b/HEAD && echo ../a > cd/b/commondir",
	}, " && ")
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	for _, p := range []string{".git/config.worktree", "nested/.git/config", "nested/.git/hooks/post-checkout", "gd/config", "linked/.git",
		"nested2/.git/hooks", "cd/b/commondir"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s, created in the sandbox, is still there", p)
		}
		if !strings.Contains(stderr, "created "+filepath.Join(w.ws, p)) && !strings.Contains(stderr, "created git's "+filepath.Join(w.ws, p)) {
			t.Errorf("stderr does not name %s: %s", p, stderr)
		}
	}
	for _, p := range []string{"nested/.git/HEAD", "nested/.git/hooks/post-checkout.sample", "gd/HEAD"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err != nil {
			t.Errorf("%s, harmless, was moved: %v", p, err)
		}
	}
}

// TestRunQuarantinesConfigOfNewBareRepo: a config written by one command
// in a plain directory becomes git's once a later command completes what
// makes a git dir beside it (in any order); that later command made the
// repository, so the config is moved aside then.
func TestRunQuarantinesConfigOfNewBareRepo(t *testing.T) {
	for _, steps := range [][]string{
		{`mkdir gd && printf '[core]\n\tfsmonitor = "touch PWNED; false"\n' > gd/config`,
			"mkdir gd/objects gd/refs && echo 'ref: refs/heads/main' > gd/HEAD"},
		{`mkdir gd gd/refs && echo 'ref: refs/heads/main' > gd/HEAD && printf '[core]\n\tfsmonitor = "touch PWNED; false"\n' > gd/config`,
			"mkdir gd/objects"},
		{`mkdir gd && echo 'ref: refs/heads/main' > gd/HEAD && printf '[core]\n\tfsmonitor = "touch PWNED; false"\n' > gd/config`,
			"mkdir -p c/objects c/refs && echo ../c > gd/commondir"},
		// Under .git/modules, where the config, once there, is a protected
		// path the next command starts with: a submodule's git dir that
		// git submodule update would reuse.
		{`mkdir -p .git/modules/gd && printf '[core]\n\tfsmonitor = "touch PWNED; false"\n' > .git/modules/gd/config`,
			"cd .git/modules/gd && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD"},
		{`mkdir -p .git/modules/gd/hooks && printf '#!/bin/sh\ntouch PWNED\n' > .git/modules/gd/hooks/post-checkout && printf '[core]\n\tfsmonitor = "touch PWNED; false"\n' > .git/modules/gd/config`,
			"cd .git/modules/gd && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD"},
	} {
		w := newEscapeWorld(t)
		for i, step := range steps {
			if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", step); code != 0 {
				t.Fatalf("step %d: picket run = %d: %s", i+1, code, stderr)
			}
		}
		gd := filepath.Join(w.ws, "gd")
		if strings.Contains(steps[0], ".git/modules") {
			gd = filepath.Join(w.ws, ".git", "modules", "gd")
		}
		for _, f := range []string{"config", "hooks/post-checkout"} {
			if _, err := os.Lstat(filepath.Join(gd, f)); err == nil && (f == "config" || strings.Contains(steps[0], f)) {
				t.Errorf("%q: %s is still there after its directory was made a repository", steps[1], filepath.Join(gd, f))
			}
		}
	}
}

// TestRunKeepsGitBranchesNamedLikeGitFiles: a branch named config or
// hooks/x is a file under .git/refs, not a git file; using it moves nothing.
func TestRunKeepsGitBranchesNamedLikeGitFiles(t *testing.T) {
	w := newEscapeWorld(t)
	repo := filepath.Join(w.ws, "repo")
	git := "git -c user.name=a -c user.email=a@b -C " + repo + " "
	setup := exec.Command("sh", "-c", "git init -q -b main "+repo+" && "+git+"commit -q --allow-empty -m init")
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	use := git + "checkout -qb feature/config && " + git + "commit -q --allow-empty -m c && " + git + "checkout -qb hooks/x && " + git + "commit -q --allow-empty -m d" +
		// what a fetch of branches named commondir and config leaves beside origin/HEAD
		" && " + git + "update-ref refs/remotes/origin/commondir HEAD && " + git + "update-ref refs/remotes/origin/config HEAD && " + git + "symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/config"
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", use)
	if code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	for _, ref := range []string{"refs/heads/feature/config", "refs/heads/hooks/x", "logs/refs/heads/feature/config", "refs/remotes/origin/commondir", "refs/remotes/origin/config"} {
		if _, err := os.Lstat(filepath.Join(repo, ".git", ref)); err != nil {
			t.Errorf("%s was moved: %v (stderr %q)", ref, err, stderr)
		}
	}
}

// TestRunQuarantinesNestedClaudeDirs: Claude Code loads skills, commands
// and agents from a subdirectory's .claude too; check denies writing
// them, and what a command creates there is moved aside when it ends.
func TestRunQuarantinesNestedClaudeDirs(t *testing.T) {
	w := newEscapeWorld(t)
	made := []string{"sub/.claude/skills/pwn/SKILL.md", "sub/deep/.claude/commands/go.md", "sub/.claude/agents/helper.md"}
	// Links to what Claude Code would load: a skills, and a whole .claude.
	links := []string{"sub3/.claude/skills", "sub4/.claude"}
	var script []string
	for _, p := range made {
		script = append(script, "mkdir -p "+filepath.Dir(p)+" && echo x > "+p)
		code, stdout, _ := pk(t, w.bin, w.ws, w.env(), "check", "write", filepath.Join(w.ws, p))
		if code != 1 || !strings.Contains(stdout, "mandatory") {
			t.Errorf("check write %s = %d %q, want a mandatory deny", p, code, stdout)
		}
	}
	script = append(script, "mkdir -p docs/x cl/commands sub3/.claude sub4 && echo x > docs/x/SKILL.md && echo x > cl/commands/c.md",
		"ln -s ../../docs sub3/.claude/skills && ln -s ../cl sub4/.claude")
	code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", strings.Join(script, " && "))
	if code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	for _, p := range links {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("the symlink %s, made in the sandbox, is still there", p)
		}
	}
	for _, p := range made {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s, created in the sandbox, is still there", p)
		}
		if !strings.Contains(stderr, "picket: blocked: the command created "+filepath.Join(w.ws, p)) {
			t.Errorf("stderr does not name %s: %s", p, stderr)
		}
	}
}

// TestRunKeepsConfigOfRepoInUse: a command that only uses a bare repository
// (writes an object, runs git gc) did not make it one: its config stays.
func TestRunKeepsConfigOfRepoInUse(t *testing.T) {
	w := newEscapeWorld(t)
	repo := filepath.Join(w.ws, "mirror.git")
	mustGit := func(args ...string) {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mustGit("init", "-q", "--bare", repo)
	mustGit("-C", repo, "config", "remote.origin.url", "https://example.com/x.git")
	use := "echo x | git -C " + repo + " hash-object -w --stdin >/dev/null && git -C " + repo + " gc -q && git -C " + repo + " symbolic-ref HEAD refs/heads/trunk" +
		" && git -C " + repo + " config remote.origin.pushurl https://example.com/push.git"
	if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", use); code != 0 {
		t.Fatalf("picket run git gc = %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "config")); err != nil || !strings.Contains(string(b), "example.com") {
		t.Errorf("the bare repository's config was moved or changed: %q, %v", b, err)
	}
}

// TestRunTooManyMounts: a policy that hides files one by one until
// bubblewrap's arguments are too many, or longer in all than the kernel
// passes to a program, is refused with a hint to narrow the patterns
// (not to install bubblewrap), and nothing runs.
func TestRunTooManyMounts(t *testing.T) {
	argMax := 2 << 20
	if out, err := exec.Command("getconf", "ARG_MAX").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			argMax = n
		}
	}
	for _, tc := range []struct {
		name  string
		files int
		dir   string // the files' directory below the workspace
	}{
		{"count", 9500, "d"},
		// A name of 250 bytes four deep makes each hidden path about
		// 1 KiB: more in all than ARG_MAX, in under 9,000 arguments.
		{"length", argMax/1000 + 300, strings.Repeat(strings.Repeat("n", 250)+"/", 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEscapeWorld(t)
			dir := filepath.Join(w.ws, tc.dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range tc.files {
				write(t, filepath.Join(dir, fmt.Sprintf("%05d.secret", i)), "s")
			}
			write(t, filepath.Join(w.ws, "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": ["**/*.secret"]},
				"picket": {"sandbox": {"expandMaxEntries": 20000}}}`)
			marker := filepath.Join(w.ws, "ran")
			code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "sh", "-c", ": > "+marker)
			if code != 126 || !strings.Contains(stderr, "narrow those patterns") || strings.Contains(stderr, "install bubblewrap") {
				t.Errorf("picket run with %d hidden files = %d, %s; want 126 and the narrowing hint", tc.files, code, stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the command ran")
			}
		})
	}
}
