//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// residentRig runs the real CLI as a process (a copy of the test binary
// named picket, which TestMain runs as the CLI), so that a hook can start
// and ask a resident server, itself a process of that copy.
type residentRig struct {
	t       *testing.T
	bin     string
	runtime string // a short $XDG_RUNTIME_DIR: a socket path has 108 bytes
}

func newResidentRig(t *testing.T) *residentRig {
	t.Helper()
	rt, err := os.MkdirTemp("/tmp", "pkr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	return &residentRig{t: t, bin: picketBin(t, sandboxScratch(t)), runtime: rt}
}

// env is h's environment for a hook that may use a server.
func (r *residentRig) env(h *hookProject, extra ...string) []string {
	env := slices.Clone(h.env)
	env = append(env, "XDG_RUNTIME_DIR="+r.runtime, "PICKET_TEST_RESIDENT=1", "PATH="+os.Getenv("PATH"))
	return append(env, extra...)
}

// hook runs `picket hook` on payload.
func (r *residentRig) hook(env []string, payload string, args ...string) hookAnswer {
	r.t.Helper()
	cmd := exec.Command(r.bin, append([]string{"hook"}, args...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			r.t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return parseHookAnswer(r.t, code, stdout.Bytes(), stderr.String())
}

// notJudged is an event the hook answers without a policy or any trace.
const notJudged = `{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://example.com"}}`

// startServer has a hook start h's server and waits until it answers.
// It returns the socket.
func (r *residentRig) startServer(h *hookProject) string {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r.hook(r.env(h), notJudged) // starts one, at most every residentRetry
		a := r.hook(r.env(h, "PICKET_RESIDENT=require"), notJudged)
		if a.stdout == "" {
			break
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no resident server answered within 15 s: %s%s", a.stdout, a.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var st unix.Stat_t
	if err := unix.Stat(r.bin, &st); err != nil {
		r.t.Fatal(err)
	}
	return residentSocketPath(realPath(r.t, r.bin), st, filepath.Join(h.state, "picket"), r.runtime)
}

// TestResidentRequireStarts: hooks that all run with
// PICKET_RESIDENT=require start a server too, so that after the first
// denials the calls are answered, not denied for good.
func TestResidentRequireStarts(t *testing.T) {
	rig := &residentRig{t: t, bin: picketBin(t, sandboxScratch(t)), runtime: t.TempDir()}
	h := newHookProject(t, hookFence)
	deadline := time.Now().Add(15 * time.Second)
	for {
		a := rig.hook(rig.env(h, "PICKET_RESIDENT=require"), notJudged)
		if a.stdout == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("with PICKET_RESIDENT=require only, no server answered within 15 s: %s%s", a.stdout, a.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// normalize spells h's directories as $P, $H and $S, and the directory
// they are in as $R.
func normalize(h *hookProject, s string) string {
	return strings.NewReplacer(h.dir, "$P", h.home, "$H", h.state, "$S", filepath.Dir(h.dir), "$R").Replace(s)
}

// residentAudit is h's audit lines without their times, normalized.
func residentAudit(t *testing.T, h *hookProject) []string {
	t.Helper()
	b, err := os.ReadFile(h.auditPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		delete(m, "ts")
		line, _ := json.Marshal(m)
		out = append(out, normalize(h, string(line)))
	}
	return out
}

// TestResidentAgreesWithHook: a hook answered by the resident server says
// and logs exactly what a hook deciding by itself does, for every hostile
// payload and a session's worth of ordinary calls, each in a project of
// its own.
func TestResidentAgreesWithHook(t *testing.T) {
	rig := newResidentRig(t)
	type sequence struct {
		name      string
		fence     string
		setup     func(*hookProject)
		events    []string // $P, $H; each is one hook run, in order
		withoutCI bool     // someone could be asked (every hostile case is headless)
	}
	var seqs []sequence
	for _, tc := range hostileCases() {
		seqs = append(seqs, sequence{name: "hostile/" + tc.name, fence: tc.fence, setup: tc.setup, events: []string{tc.payload}})
	}
	ev := func(name, tool, input string) string {
		e := `{"session_id":"s1","prompt_id":"t1","cwd":"$P","hook_event_name":"` + name + `"`
		if tool != "" {
			e += `,"tool_name":"` + tool + `","tool_input":` + input
		}
		if name == "PostToolUse" {
			e += `,"tool_response":{}`
		}
		return e + "}"
	}
	session := []string{
		ev("SessionStart", "", ""),
		ev("PreToolUse", "Read", `{"file_path":"$P/README.md"}`),
		ev("PreToolUse", "Read", `{"file_path":"$P/.env"}`),
		ev("PreToolUse", "Read", `{"file_path":"~/.ssh/id_rsa"}`),
		ev("PreToolUse", "Write", `{"file_path":"$P/../outside.txt","content":"x"}`),
		ev("PreToolUse", "Grep", `{"pattern":"SECRET"}`),
		ev("PreToolUse", "Glob", `{"pattern":"../../etc/*"}`),
		ev("PreToolUse", "Edit", `{"file_path":"$P/README.md","old_string":"#","new_string":"##"}`),
		ev("PostToolUse", "Read", `{"file_path":"$P/README.md"}`),
		ev("PreToolUse", "Edit", `{"file_path":"$P/README.md","old_string":"#","new_string":"##"}`),
		ev("PreToolUse", "Write", `{"file_path":"$P/fence.jsonc","content":"{}"}`),
		ev("SessionEnd", "", ""),
	}
	guarded := `{"extends": "code", "picket": {"blocklist": [".env"], "writeGuards": {"readBeforeEdit": true}, "audit": {"logAllows": true}},
		"filesystem": {"denyRead": ["**/*.pem"], "allowRead": ["."]}}`
	seqs = append(seqs,
		sequence{name: "session", events: session},
		sequence{name: "session guarded", fence: guarded, events: session},
		sequence{name: "lint warnings", fence: `{"extends": "code", "filesystem": {"denyRead": ["/**"]}}`, events: []string{ev("SessionStart", "", ""), ev("SessionStart", "", "")}},
		sequence{name: "broken policy", fence: `{"extends": `, events: []string{ev("SessionStart", "", ""), ev("PreToolUse", "Read", `{"file_path":"$P/README.md"}`)}},
		// With someone to ask (no CI), a grantable block goes back to the hook.
		sequence{name: "promptable", withoutCI: true, events: []string{ev("PreToolUse", "Read", `{"file_path":"$P/.env"}`), ev("PreToolUse", "Read", `{"file_path":"$P/README.md"}`)}},
	)
	for _, sq := range seqs {
		t.Run(sq.name, func(t *testing.T) {
			t.Parallel()
			local, resident := newCaseProject(t, sq.fence, sq.setup), newCaseProject(t, sq.fence, sq.setup)
			for _, h := range []*hookProject{local, resident} {
				if sq.withoutCI {
					h.env = slices.DeleteFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, "CI=") })
				}
			}
			rig.startServer(resident)
			for i, e := range sq.events {
				a := rig.hook(rig.env(local, "PICKET_RESIDENT=off"), local.expand(e))
				b := rig.hook(rig.env(resident, "PICKET_RESIDENT=require"), resident.expand(e))
				if a.code != b.code || normalize(local, a.stdout) != normalize(resident, b.stdout) || normalize(local, a.stderr) != normalize(resident, b.stderr) {
					t.Errorf("event %d: by itself the hook answered (%d)\n%s%s\nwith the server (%d)\n%s%s", i, a.code,
						normalize(local, a.stdout), normalize(local, a.stderr), b.code, normalize(resident, b.stdout), normalize(resident, b.stderr))
				}
			}
			if a, b := residentAudit(t, local), residentAudit(t, resident); !slices.Equal(a, b) {
				t.Errorf("audit lines differ:\nby itself:\n%s\nwith the server:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
		})
	}
}

// TestResidentUntrustedServer: a listener on the server's socket that is
// not picket's own executable is never asked; the hook decides by itself.
func TestResidentUntrustedServer(t *testing.T) {
	rig := newResidentRig(t)
	h := newHookProject(t, hookFence)
	var st unix.Stat_t
	if err := unix.Stat(rig.bin, &st); err != nil {
		t.Fatal(err)
	}
	sock := residentSocketPath(realPath(t, rig.bin), st, filepath.Join(h.state, "picket"), rig.runtime)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan bool, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// "Answered: nothing to print", which would let any call pass.
			c.Write([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0})
			buf := make([]byte, 64)
			n, _ := c.Read(buf)
			asked <- n > 0
			c.Close()
		}
	}()
	read := h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, ".env")})
	if a := rig.hook(rig.env(h), read); a.kind() != wantBlock {
		t.Errorf("with a stranger on the socket, read .env = %v, want a block\n%s%s", a.kind(), a.stdout, a.stderr)
	}
	if a := rig.hook(rig.env(h, "PICKET_RESIDENT=require"), read); a.kind() != wantError {
		t.Errorf("with a stranger on the socket and PICKET_RESIDENT=require, read .env = %v, want an error deny\n%s%s", a.kind(), a.stdout, a.stderr)
	}
	for {
		select {
		case sent := <-asked:
			if sent {
				t.Errorf("the hook sent its event to a stranger")
			}
			continue
		default:
		}
		break
	}
}

// TestResidentLifecycle: one server per socket; it goes when its socket
// does, or when its executable file changes, and a hook then starts a new
// one.
func TestResidentLifecycle(t *testing.T) {
	rig := newResidentRig(t)
	h := newHookProject(t, hookFence)
	sock := rig.startServer(h)
	lockFree := func() bool {
		f, err := os.OpenFile(sock+".lock", os.O_RDWR, 0)
		if err != nil {
			return errors.Is(err, os.ErrNotExist)
		}
		defer f.Close()
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			return false
		}
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return true
	}
	waitFree := func(why string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !lockFree(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the server still runs 10 s after %s", why)
			}
		}
	}
	if lockFree() {
		t.Fatal("no server holds the socket's lock")
	}
	// A second server for the same socket leaves at once.
	second := exec.Command(rig.bin, "hook-server", "--socket", sock)
	second.Env = rig.env(h)
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a second server: %v", err)
		}
	case <-time.After(5 * time.Second):
		second.Process.Kill()
		t.Fatal("a second server for the same socket kept running")
	}
	read := h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, ".env")})
	if a := rig.hook(rig.env(h, "PICKET_RESIDENT=require"), read); a.kind() != wantBlock {
		t.Fatalf("after a second server came and went, read .env = %v, want a block\n%s%s", a.kind(), a.stdout, a.stderr)
	}
	os.Remove(sock)
	waitFree("its socket was removed")

	sock = rig.startServer(h)
	now := time.Now().Add(time.Second)
	if err := os.Chtimes(rig.bin, now, now); err != nil {
		t.Fatal(err)
	}
	waitFree("its executable changed")
	if newSock := rig.startServer(h); newSock == sock {
		t.Errorf("a changed executable has the same socket %s", sock)
	}
}

// TestResidentWorld: the server answers only a hook that sees the files as
// it does; one in another mount or user namespace, or with other
// capabilities, decides by itself.
func TestResidentWorld(t *testing.T) {
	w := selfWorld()
	groups, err := unix.Getgroups()
	if err != nil {
		t.Fatal(err)
	}
	if !w.admits(os.Getpid(), uint32(os.Getegid()), groups) {
		t.Fatal("the server's own process is not admitted")
	}
	if w.admits(os.Getpid(), uint32(os.Getegid())+1, groups) {
		t.Error("another effective group is admitted")
	}
	if w.admits(os.Getpid(), uint32(os.Getegid()), append(slices.Clone(groups), 4242)) {
		t.Error("another group list is admitted")
	}
	runs := [][]string{{"unshare", "--mount"}, {"unshare", "--user", "--map-root-user"}}
	if os.Geteuid() == 0 {
		// Root without CAP_DAC_OVERRIDE: a directory of another user's
		// that the server can search, the hook cannot.
		runs = append(runs, []string{"setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override"})
	}
	for _, args := range runs {
		cmd := exec.Command(args[0], append(args[1:], "sleep", "10")...)
		if err := cmd.Start(); err != nil {
			t.Logf("%v: %v", args, err)
			continue
		}
		pid := cmd.Process.Pid
		// Wait until unshare or setpriv has done its work and exec'd sleep.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
				break
			}
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) != "sleep" {
			t.Logf("%v did not run (not permitted here?)", args)
		} else if w.admits(pid, uint32(os.Getegid()), groups) {
			t.Errorf("a process in another world (%v) is admitted", args)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// FuzzResidentRequest: the server's reading of a request never panics,
// and what the hook encodes reads back as sent.
func FuzzResidentRequest(f *testing.F) {
	f.Add(uint32(0o22), "hook", "HOME=/h", []byte(`{"hook_event_name":"PreToolUse"}`))
	f.Add(uint32(0), "", "", []byte{})
	f.Fuzz(func(t *testing.T, umask uint32, arg, env string, event []byte) {
		decodeResident(event) // arbitrary bytes on the socket
		req := residentRequest{Umask: int(umask & 0o777), Args: []string{arg}, Env: []string{env, arg}}
		got, ev, ok := decodeResident(encodeResident(req, event))
		if !ok || got.Umask != req.Umask || !slices.Equal(got.Args, req.Args) || !slices.Equal(got.Env, req.Env) || !bytes.Equal(ev, event) {
			t.Fatalf("round trip of %+v, %q: got %+v, %q, %v", req, event, got, ev, ok)
		}
	})
}

// realPath is p with its symlinks resolved, as the kernel names an
// executable.
func realPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestResidentHandsBack: a hook the server will not answer for (here root
// without CAP_DAC_OVERRIDE) hears "decide by yourself" and does, even
// with PICKET_RESIDENT=require: the server reads the request before it
// replies, so the reply is not lost to a reset connection.
func TestResidentHandsBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a hook with fewer capabilities than the server")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv")
	}
	rig := newResidentRig(t)
	h := newHookProject(t, hookFence)
	rig.startServer(h)
	read := h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, ".env")})
	cmd := exec.Command("setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override", rig.bin, "hook")
	cmd.Env = rig.env(h, "PICKET_RESIDENT=require")
	cmd.Stdin = strings.NewReader(read)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("setpriv picket hook: %v\n%s", err, stderr.String())
	}
	if a := parseHookAnswer(t, 0, stdout.Bytes(), stderr.String()); a.kind() != wantBlock {
		t.Errorf("a hook with fewer capabilities, PICKET_RESIDENT=require, read .env = %v, want the hook's own block\n%s%s", a.kind(), a.stdout, a.stderr)
	}
}

// TestResidentProcessCwd: an event whose cwd leads through a process's own
// files (/proc/self/cwd, or a symlink to it) names the hook's working
// directory in the hook and the server's ("/") in the server, where
// another policy is found. The server leaves it to the hook, so the
// answer is the hook's own.
func TestResidentProcessCwd(t *testing.T) {
	rig := newResidentRig(t)
	fence := `{"extends": "code", "filesystem": {"denyRead": ["./secret.txt"]}}`
	for _, cwd := range []string{"/proc/self/cwd", "$P/self"} {
		t.Run(filepath.Base(cwd), func(t *testing.T) {
			local, resident := newCaseProject(t, fence, nil), newCaseProject(t, fence, nil)
			for _, h := range []*hookProject{local, resident} {
				h.write("secret.txt", "s\n")
				if err := os.Symlink("/proc/self/cwd", filepath.Join(h.dir, "self")); err != nil {
					t.Fatal(err)
				}
			}
			rig.startServer(resident)
			// The hook runs in the project, as Claude Code starts it.
			hookIn := func(h *hookProject, env []string) hookAnswer {
				e := `{"session_id":"s1","cwd":"` + h.expand(cwd) + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + h.expand("$P/secret.txt") + `"}}`
				cmd := exec.Command(rig.bin, "hook")
				cmd.Env, cmd.Dir, cmd.Stdin = env, h.dir, strings.NewReader(e)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("picket hook: %v\n%s", err, stderr.String())
				}
				return parseHookAnswer(t, 0, stdout.Bytes(), stderr.String())
			}
			a := hookIn(local, rig.env(local, "PICKET_RESIDENT=off"))
			b := hookIn(resident, rig.env(resident, "PICKET_RESIDENT=require"))
			if a.kind() != wantBlock || normalize(local, a.stdout) != normalize(resident, b.stdout) || a.stderr != b.stderr {
				t.Errorf("cwd %s: by itself the hook answered\n%s%s\nwith the server\n%s%s", cwd,
					normalize(local, a.stdout), a.stderr, normalize(resident, b.stdout), b.stderr)
			}
			if a, b := residentAudit(t, local), residentAudit(t, resident); !slices.Equal(a, b) {
				t.Errorf("audit lines differ:\nby itself:\n%s\nwith the server:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
		})
	}
}

// TestResidentOwnPid: a path through /proc/<pid> of the deciding process
// itself, spelled with its number, is judged as any other process's. The
// server's pid is the one an agent can find out (it outlives the call), so
// with it the server must answer as a hook by itself does, which reads the
// server's /proc directory as another's: its links and environment are
// refused, its status is not.
func TestResidentOwnPid(t *testing.T) {
	rig := newResidentRig(t)
	fence := `{"extends": "code", "filesystem": {"denyRead": ["./secret.txt"]}}`
	local, resident := newCaseProject(t, fence, nil), newCaseProject(t, fence, nil)
	for _, h := range []*hookProject{local, resident} {
		h.write("secret.txt", "s\n")
		h.write("notes.txt", "n\n")
	}
	sock := rig.startServer(resident)
	pid := serverPid(t, sock)
	for _, p := range []string{"/proc/%d/root$P/notes.txt", "/proc/%d/root$P/secret.txt", "/proc/%d/task/%d/root$P/notes.txt", "/proc/%d/environ", "/proc/%d/status"} {
		p = strings.ReplaceAll(p, "%d", strconv.Itoa(pid))
		read := func(h *hookProject, env []string) hookAnswer {
			return rig.hook(env, h.pre("Read", map[string]any{"file_path": h.expand(p)}))
		}
		a := read(local, rig.env(local, "PICKET_RESIDENT=off"))
		b := read(resident, rig.env(resident, "PICKET_RESIDENT=require"))
		if normalize(local, a.stdout) != normalize(resident, b.stdout) || a.stderr != b.stderr {
			t.Errorf("Read %s: by itself the hook answered\n%s%s\nwith the server\n%s%s", p,
				normalize(local, a.stdout), a.stderr, normalize(resident, b.stdout), b.stderr)
		}
		if want := !strings.HasSuffix(p, "status"); (a.kind() == wantBlock) != want {
			t.Errorf("Read %s by itself = %v, want blocked %v\n%s", p, a.kind(), want, a.stdout)
		}
	}
}

// serverPid is the pid of the hook-server serving sock.
func serverPid(t *testing.T, sock string) int {
	t.Helper()
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if len(args) > 3 && args[1] == "hook-server" && args[3] == sock {
			return pid
		}
	}
	t.Fatalf("no hook-server process serves %s", sock)
	return 0
}

// TestResidentSlowSender: a peer that sends its request a byte at a time
// (or is stopped halfway) holds up no other hook, and the server gives up
// on it once residentTimeout has passed in all, however often a byte
// arrives.
func TestResidentSlowSender(t *testing.T) {
	rig := newResidentRig(t)
	h := newHookProject(t, hookFence)
	sock := rig.startServer(h)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	closed := make(chan bool, 1)
	go func() {
		unix.Write(fd, []byte{0}) // the start of a request
		// Until the server hangs up: a byte every 200 ms, for 15 s at most.
		for i := 0; i < 75; i++ {
			time.Sleep(200 * time.Millisecond)
			if _, err := unix.Write(fd, []byte{0}); err != nil {
				closed <- true
				return
			}
		}
		closed <- false
	}()
	time.Sleep(300 * time.Millisecond) // the server is reading it
	a := rig.hook(rig.env(h, "PICKET_RESIDENT=require"), h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, "README.md")}))
	if a.stdout != "" {
		t.Errorf("with a peer trickling its request, a hook got no answer from the server:\n%s%s", a.stdout, a.stderr)
	}
	if !<-closed {
		t.Errorf("the server still read a peer that sent a byte every 200 ms after 15 s")
	}
}

// TestResidentAbandonedNotLogged: a hook that gave up waiting for a busy
// server (here, one held up by the audit log's lock) decides and logs by
// itself; the server must not decide its request too, or the block is
// logged twice.
func TestResidentAbandonedNotLogged(t *testing.T) {
	h := newHookProject(t, hookFence)
	rt := filepath.Join(h.state, "rt")
	if err := os.MkdirAll(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	rig := &residentRig{t: t, bin: picketBin(t, sandboxScratch(t)), runtime: rt}
	rig.startServer(h)
	logPath := filepath.Join(h.state, "picket", "audit.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(logPath+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	go func() { // held past one lock wait (3 s), released within the second
		time.Sleep(4500 * time.Millisecond)
		unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	}()
	const n = 4
	done := make(chan hookAnswer, n)
	for i := range n {
		name := filepath.Join(h.dir, "d"+strconv.Itoa(i), ".env")
		go func() { done <- rig.hook(rig.env(h), h.pre("Read", map[string]any{"file_path": name})) }()
	}
	for range n {
		if a := <-done; !a.deny {
			t.Errorf("a block was not denied: %s%s", a.stdout, a.stderr)
		}
	}
	time.Sleep(500 * time.Millisecond) // the server finishes what it holds
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		path, _ := json.Marshal(filepath.Join(h.dir, "d"+strconv.Itoa(i), ".env"))
		if c := strings.Count(string(data), `"path":`+string(path)); c > 1 {
			t.Errorf("the block of d%d is logged %d times:\n%s", i, c, data)
		}
	}
}
