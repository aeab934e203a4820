package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/picketdev/picket/hook"
)

// The resident hook server. Claude Code starts `picket hook` afresh for
// every tool call, and most of that call's cost is the process itself: the
// Go runtime and picket's packages starting (about 1 ms here) and loading
// and compiling the policy in a cold process (about 1.5 ms). So the hook
// hands its event to a resident `picket hook-server` of the same
// executable, started by the first hook that found none, which keeps each
// policy loaded (see [policyCache]: reloaded when anything it was read or
// resolved from changes) and answers with exactly what the hook would
// have printed. The hook goes on deciding by itself whenever the server is
// not there, not the same program, not answering in time, or would need
// what only the hook has: a prompt for the person (the server answers
// "ask locally" before noting anything), a home directory from outside
// the environment.
//
// Who may talk to whom: the socket is in picket's state dir (a mandatory
// write deny), or in $XDG_RUNTIME_DIR/picket when that path is too long,
// either in a directory of the user's that only the user may enter; the
// hook talks only to a server of its own user running its own executable
// file (SO_PEERCRED, /proc/PID/exe), and the server answers only a hook of
// its own user, groups, mount and user namespaces, root, capabilities and
// security label (so not one in a sandbox), whose umask it takes for the
// call.

// residentTimeout bounds one exchange with the server; past it the hook
// decides by itself (within its own deadline).
const residentTimeout = 3 * time.Second

// residentIdle is how long a server waits for a call before it exits.
var residentIdle = 10 * time.Minute

// residentRetry is how long hooks wait before starting a server again.
const residentRetry = 5 * time.Second

// residentAllowed is set by main: an in-process run() (the tests) never
// starts a server from the test binary.
var residentAllowed bool

// residentStatus is how an exchange with the server ended; the first two
// are also the first byte of its reply.
type residentStatus byte

const (
	residentAnswered residentStatus = iota // what follows is the hook's output
	residentLocal                          // the hook decides: it may have to ask the person
	residentMissed                         // no server answered
)

// A request is the hook's umask, its arguments and its environment, as
// counted, length-prefixed strings, then the event as read (see
// [encodeResident]).
type residentRequest struct {
	Umask int
	Args  []string
	Env   []string
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(ss)))
	for _, s := range ss {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func encodeResident(r residentRequest, event []byte) []byte {
	n := 16 + len(event)
	for _, s := range r.Env {
		n += 4 + len(s)
	}
	b := make([]byte, 0, n+256)
	b = binary.BigEndian.AppendUint32(b, uint32(r.Umask))
	b = appendStrings(b, r.Args)
	b = appendStrings(b, r.Env)
	b = binary.BigEndian.AppendUint32(b, uint32(len(event)))
	return append(b, event...)
}

func decodeResident(b []byte) (r residentRequest, event []byte, ok bool) {
	if len(b) < 4 {
		return r, nil, false
	}
	r.Umask, b = int(binary.BigEndian.Uint32(b)), b[4:]
	strs := func() []string {
		if len(b) < 4 {
			ok = false
			return nil
		}
		n := binary.BigEndian.Uint32(b)
		b = b[4:]
		var ss []string
		for range n {
			s, rest, fine := frame(b)
			if !fine {
				ok = false
				return nil
			}
			ss, b = append(ss, string(s)), rest
		}
		return ss
	}
	ok = true
	r.Args = strs()
	r.Env = strs()
	if !ok {
		return r, nil, false
	}
	event, b, ok = frame(b)
	return r, event, ok && len(b) == 0
}

// residentSocket is the server's socket for this executable and state
// dir, or "" when it cannot have one.
func (c *cli) residentSocket() string {
	if !residentAllowed || c.getenv("PICKET_RESIDENT") == "off" || c.getenv("HOME") == "" {
		return ""
	}
	exe := selfExe()
	if !exe.ok {
		return ""
	}
	return residentSocketPath(exe.path, exe.st, c.stateDir(), c.getenv("XDG_RUNTIME_DIR"))
}

// residentSocketPath names the socket of the server for the executable at
// path (st its stat) and the state dir: in the state dir's resident/, or,
// when that path is too long for a socket, in $XDG_RUNTIME_DIR/picket (the
// user's own, 0700); "" when neither will do. The name is a hash of the
// executable file's identity (a new build gets a new server), of its path
// (a hard link has a server of its own, whose mandatory denies name that
// path) and of the state dir.
func residentSocketPath(path string, st unix.Stat_t, stateDir, runtimeDir string) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%d:%d:%d.%d:%s\x00%s", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, path, stateDir)
	name := fmt.Sprintf("hook-%016x.sock", h.Sum64())
	for _, dir := range []string{filepath.Join(stateDir, "resident"), filepath.Join(runtimeDir, "picket")} {
		if sock := filepath.Join(dir, name); filepath.IsAbs(dir) && len(sock) < len(unix.RawSockaddrUnix{}.Path) {
			return sock
		}
	}
	return ""
}

// askResident hands the event to the resident server. It returns the
// hook's answer when the server gave one; residentLocal when the server
// said the hook must decide by itself; residentMissed when no server could
// be asked, and then, when none listens, start starts one, for the hook to
// call once it has answered.
func (c *cli) askResident(args []string, in []byte) (out []byte, start func(), status residentStatus) {
	sock := c.residentSocket()
	if sock == "" {
		return nil, nil, residentMissed
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, residentMissed
	}
	defer unix.Close(fd)
	tv := unix.NsecToTimeval(residentTimeout.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: sock}); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
			start = func() { startResident(c.env, sock) }
		}
		return nil, start, residentMissed
	}
	if !trustedServer(fd) {
		return nil, nil, residentMissed
	}
	umask := unix.Umask(0o077) // nothing is created meanwhile: the hook reads only
	unix.Umask(umask)
	if writeAll(fd, encodeResident(residentRequest{Umask: umask, Args: args, Env: c.env}, in)) != nil {
		return nil, nil, residentMissed
	}
	unix.Shutdown(fd, unix.SHUT_WR)
	resp, err := readAll(fd, 64<<20)
	switch {
	case err != nil || len(resp) < 9:
		return nil, nil, residentMissed
	case resp[0] == byte(residentLocal):
		return nil, nil, residentLocal
	case resp[0] != byte(residentAnswered):
		return nil, nil, residentMissed
	}
	stdout, rest, ok1 := frame(resp[1:])
	stderr, _, ok2 := frame(rest)
	if !ok1 || !ok2 {
		return nil, nil, residentMissed
	}
	if len(stderr) > 0 {
		c.stderr.Write(stderr)
	}
	return stdout, nil, residentAnswered
}

// selfExe is this process's executable file, looked up once.
var selfExe = sync.OnceValue(func() (e struct {
	path string
	st   unix.Stat_t
	ok   bool
}) {
	path, err := os.Executable()
	e.path, e.ok = path, err == nil && unix.Stat("/proc/self/exe", &e.st) == nil
	return e
})

// trustedServer reports whether the peer of fd is a process of this user
// running this very executable file.
func trustedServer(fd int) bool {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || cred.Pid <= 0 || int(cred.Uid) != os.Geteuid() {
		return false
	}
	var theirs unix.Stat_t
	mine := selfExe()
	if !mine.ok || unix.Stat("/proc/"+strconv.Itoa(int(cred.Pid))+"/exe", &theirs) != nil {
		return false
	}
	return theirs.Dev == mine.st.Dev && theirs.Ino == mine.st.Ino
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readAll reads fd to its end, at most max bytes.
func readAll(fd int, max int) ([]byte, error) {
	return readAllBy(fd, max, time.Time{})
}

// readAllBy is readAll, given up at deadline when it is set: each read
// may wait only for what is left of it (SO_RCVTIMEO bounds one read, and
// a peer sending a byte at a time would otherwise never time out).
func readAllBy(fd int, max int, deadline time.Time) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, unix.ETIMEDOUT
			}
			tv := unix.NsecToTimeval(left.Nanoseconds())
			unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > max {
			return nil, errors.New("answer too long")
		}
	}
}

// frame splits a length-prefixed part off b.
func frame(b []byte) (part, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// startResident starts a server for sock, detached: its own session, no
// terminal, stdio on /dev/null (the agent reads the hook's stdout to its
// end), in "/" (it holds no directory busy). A second server for the same
// socket exits at once.
func startResident(env []string, sock string) {
	if !ownDir(filepath.Dir(sock)) {
		return
	}
	// One try every few seconds: a server that cannot start must not cost
	// every call a process.
	tried := sock + ".start"
	if fi, err := os.Lstat(tried); err == nil && time.Since(fi.ModTime()) < residentRetry {
		return
	}
	os.Remove(tried)
	if f, err := os.OpenFile(tried, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600); err == nil {
		f.Close()
	} else {
		return // another hook is starting one
	}
	// Nothing the agent gave the hook may stay open in the server: the
	// agent could wait for its end.
	unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	// This very file, which the socket's name stands for, even if a new
	// build has since taken its path.
	cmd := exec.Command("/proc/self/exe", "hook-server", "--socket", sock)
	cmd.Args[0] = os.Args[0]
	cmd.Env = env
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

func init() { commands["hook-server"] = runHookServer }

// runHookServer is the resident server (see above). It is started by the
// hook, not by people, and is not in picket's usage.
func runHookServer(c *cli, args []string) int {
	fs := flag.NewFlagSet("hook-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sock := fs.String("socket", "", "the socket to serve")
	if fs.Parse(args) != nil || !filepath.IsAbs(*sock) {
		c.errorf("hook-server is started by picket hook")
		return 2
	}
	unix.Umask(0o077)
	if !ownDir(filepath.Dir(*sock)) {
		return 1
	}
	lock, err := os.OpenFile(*sock+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return 1
	}
	defer lock.Close()
	if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return 0 // another server has it
	}
	os.Remove(*sock) // a dead server's
	lfd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 1
	}
	if err := unix.Bind(lfd, &unix.SockaddrUnix{Name: *sock}); err != nil {
		return 1
	}
	defer os.Remove(*sock)
	if err := unix.Listen(lfd, 128); err != nil {
		return 1
	}
	var sockStat unix.Stat_t
	unix.Stat(*sock, &sockStat)
	var exeStat unix.Stat_t
	exe, _ := os.Executable()
	unix.Stat(exe, &exeStat)

	// The hook that started the server ignored these (see hooksig), and
	// an ignored signal stays ignored across exec: catch them, so that a
	// plain kill ends the server, and tidily.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, hookSignals...)
	go func() {
		<-stop
		os.Remove(*sock)
		os.Exit(0)
	}()
	s := &residentServer{self: selfWorld(), caches: map[string]*policyCache{}}
	s.last.Store(time.Now().UnixNano())
	go func() {
		// Exit when idle, when the socket is gone or another's, or when
		// the executable file changed (an upgrade must not keep deciding
		// with the old code).
		for range time.Tick(2 * time.Second) {
			var st unix.Stat_t
			idle := time.Since(time.Unix(0, s.last.Load()))
			gone := unix.Stat(*sock, &st) != nil || st.Ino != sockStat.Ino || st.Dev != sockStat.Dev
			var now unix.Stat_t
			changed := unix.Stat(exe, &now) != nil || now.Ino != exeStat.Ino || now.Mtim != exeStat.Mtim || now.Size != exeStat.Size
			if idle > residentIdle || gone || changed {
				if !gone {
					os.Remove(*sock)
				}
				os.Exit(0)
			}
		}
	}()
	// Requests are read side by side, so a hook that is slow to send
	// (stopped, or trickling) holds up no other; they are answered one at
	// a time, since a call runs with its hook's umask, the process's.
	received := make(chan hookRequest)
	go func() {
		for r := range received {
			s.last.Store(time.Now().UnixNano())
			s.serve(r)
			unix.Close(r.fd)
			s.last.Store(time.Now().UnixNano())
		}
	}()
	readers := make(chan struct{}, residentReaders)
	for {
		nfd, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED) {
				continue
			}
			return 1
		}
		s.last.Store(time.Now().UnixNano())
		readers <- struct{}{}
		go func() {
			defer func() { <-readers }()
			r, ok := receive(nfd)
			if !ok {
				unix.Close(nfd)
				return
			}
			received <- r
		}()
	}
}

// residentReaders bounds the requests a server reads at once.
const residentReaders = 32

// hookRequest is one hook's request, read in full.
type hookRequest struct {
	fd   int
	cred *unix.Ucred
	raw  []byte
}

// receive reads a hook's request, within residentTimeout in all: the
// request is read before anything is answered, since a reply to a hook
// whose request is still unread is lost to a reset connection.
func receive(fd int) (hookRequest, bool) {
	tv := unix.NsecToTimeval(residentTimeout.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Geteuid() {
		return hookRequest{}, false
	}
	raw, err := readAllBy(fd, hook.MaxEvent+1<<20, time.Now().Add(residentTimeout))
	if err != nil {
		return hookRequest{}, false
	}
	return hookRequest{fd: fd, cred: cred, raw: raw}, true
}

type residentServer struct {
	self   world
	last   atomic.Int64
	caches map[string]*policyCache // by the environment a policy depends on
}

// serve answers one hook's request, one at a time: the call runs with
// the hook's umask, which is the process's.
func (s *residentServer) serve(r hookRequest) {
	fd, cred, raw := r.fd, r.cred, r.raw
	answer := func(status residentStatus, stdout, stderr []byte) {
		msg := []byte{byte(status)}
		msg = binary.BigEndian.AppendUint32(msg, uint32(len(stdout)))
		msg = append(msg, stdout...)
		msg = binary.BigEndian.AppendUint32(msg, uint32(len(stderr)))
		msg = append(msg, stderr...)
		writeAll(fd, msg)
	}
	if !s.self.sees(fd, cred) {
		answer(residentLocal, nil, nil)
		return
	}
	if hungUp(fd) {
		// The hook gave up waiting (residentTimeout) and decides by
		// itself, logging its own line: deciding here too would log the
		// call twice.
		return
	}
	req, in, ok := decodeResident(raw)
	if !ok {
		return
	}
	umask := req.Umask
	var stdout, stderr bytes.Buffer
	c := &cli{env: req.Env, stdout: &stdout, stderr: &stderr, inServer: true,
		abandoned: func() bool { return hungUp(fd) }}
	if c.getenv("HOME") == "" {
		answer(residentLocal, nil, nil)
		return
	}
	fs, agent, _ := c.hookFlags()
	fs.SetOutput(io.Discard)
	if fs.Parse(req.Args) != nil || *agent != "claude" {
		answer(residentLocal, nil, nil)
		return
	}
	c.policies = s.cache(c).get
	prev := unix.Umask(umask)
	out := func() (out []byte) {
		defer func() {
			if r := recover(); r != nil {
				out = hook.ClaudeDeny(hook.ErrorMessage("", fmt.Errorf("internal error: %v", r)))
			}
		}()
		c.recoverQuarantine()
		return c.claudeEvent(in)
	}()
	unix.Umask(prev)
	if c.needLocal {
		answer(residentLocal, nil, nil)
		return
	}
	answer(residentAnswered, out, stderr.Bytes())
}

// cache is the policy cache for the environment c's policy depends on
// (see [decide.EnvFromOS]; the executable is the server's own).
func (s *residentServer) cache(c *cli) *policyCache {
	key := strings.Join([]string{c.getenv("HOME"), c.getenv("XDG_CONFIG_HOME"), c.getenv("XDG_STATE_HOME"), c.getenv("CLAUDE_PROJECT_DIR")}, "\x00")
	pc := s.caches[key]
	if pc == nil {
		if len(s.caches) >= 16 {
			for k, old := range s.caches {
				old.close()
				delete(s.caches, k)
			}
		}
		pc = newPolicyCache(&cli{env: c.env, stderr: io.Discard})
		s.caches[key] = pc
	}
	return pc
}

// world is what decides how a process sees the files: its groups, mount
// and user namespaces, root directory, effective capabilities (root
// without CAP_DAC_OVERRIDE cannot search a directory of another user's)
// and security (AppArmor, SELinux) label; its user is checked apart.
type world struct {
	gid       uint32
	groups    string
	mnt, user string
	rootDev   uint64
	rootIno   uint64
	caps      string
	label     string
	ok        bool
}

// worldOf is the world of process pid (0: this one).
func worldOf(pid int, groups []int, gid uint32) world {
	w := world{gid: gid, groups: groupKey(groups)}
	proc := "/proc/self"
	if pid != 0 {
		proc = "/proc/" + strconv.Itoa(pid)
	}
	dir, err := unix.Open(proc, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return w
	}
	defer unix.Close(dir)
	var err1, err2 error
	w.mnt, err1 = readlinkat(dir, "ns/mnt")
	w.user, err2 = readlinkat(dir, "ns/user")
	var st unix.Stat_t
	err3 := unix.Fstatat(dir, "root", &st, 0)
	w.rootDev, w.rootIno = st.Dev, st.Ino
	var err4 error
	w.caps, err4 = capsOf(pid)
	w.label = securityLabel(dir)
	w.ok = err1 == nil && err2 == nil && err3 == nil && err4 == nil
	return w
}

// capsOf is the effective capability set of process pid (0: this one).
func capsOf(pid int) (string, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3, Pid: int32(pid)}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x%08x", data[1].Effective, data[0].Effective), nil
}

// securityLabel is the LSM label of the process whose /proc directory is
// dir, or why there is none (EINVAL with no such module).
func securityLabel(dir int) string {
	fd, err := unix.Openat(dir, "attr/current", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "open: " + err.Error()
	}
	defer unix.Close(fd)
	b, err := readAll(fd, 4096)
	if err != nil {
		return "read: " + err.Error()
	}
	return string(b)
}

func readlinkat(dir int, name string) (string, error) {
	buf := make([]byte, 128)
	n, err := unix.Readlinkat(dir, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// selfWorld is the server's own world.
func selfWorld() world {
	groups, err := unix.Getgroups()
	w := worldOf(0, groups, uint32(os.Getegid()))
	w.ok = w.ok && err == nil
	return w
}

// sees reports whether the peer of fd lives in w: the same effective
// group and supplementary groups (SO_PEERGROUPS), namespaces and root.
func (w world) sees(fd int, cred *unix.Ucred) bool {
	if !w.ok || cred.Pid <= 0 || cred.Gid != w.gid {
		return false
	}
	groups, err := peerGroups(fd)
	if err != nil {
		return false
	}
	return w.admits(int(cred.Pid), cred.Gid, groups)
}

// admits reports whether process pid, with effective group gid and
// supplementary groups, lives in w.
func (w world) admits(pid int, gid uint32, groups []int) bool {
	theirs := worldOf(pid, groups, gid)
	return w.ok && theirs.ok && theirs == w
}

func peerGroups(fd int) ([]int, error) {
	buf := make([]uint32, 256)
	for {
		n := uint32(len(buf) * 4)
		_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
			uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
		if errno == unix.ERANGE && int(n/4) > len(buf) {
			buf = make([]uint32, n/4)
			continue
		}
		if errno != 0 {
			return nil, errno
		}
		out := make([]int, n/4)
		for i := range out {
			out[i] = int(buf[i])
		}
		return out, nil
	}
}

func groupKey(groups []int) string {
	g := slices.Clone(groups)
	slices.Sort(g)
	g = slices.Compact(g)
	return fmt.Sprint(g)
}

// ownDir makes dir (0700) if it is missing and reports whether it is a
// directory of this user's that no one else may enter: a server's socket
// is served, and a hook starts one, only from such a place.
func ownDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 == 0 && ownedBySelf(fi)
}

// ownedBySelf reports whether fi belongs to this process's user.
func ownedBySelf(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// hungUp reports whether the peer of fd has closed its end: a hook closes
// it when it stops waiting for the server (it shuts down only its writing
// side while it waits).
func hungUp(fd int) bool {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(pfd, 0)
	return err == nil && n > 0 && pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0
}
