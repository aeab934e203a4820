//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/picketdev/picket/sandbox/first"
)

// Run runs cmd under p and returns its exit status. It returns an
// *[UnavailableError] when bubblewrap could not create the sandbox, and a
// *[SetupError] when it could not finish setting it up (then nothing ran).
func Run(p Plan, r Runner, cmd []string) (int, error) {
	if r.Bwrap == "" {
		return 0, &UnavailableError{What: "bubblewrap (bwrap) is not installed or not in PATH"}
	}
	if r.Stderr == nil {
		r.Stderr = io.Discard
	}
	// Once the sandbox ran, picket returns only once no ctime stamped
	// later can fall in its window: at once where the kernel's multigrain
	// floor is past it (see [floorPast]), otherwise after the coarse clock
	// has left it (see [waitPast]). Deferred before the release of the
	// placeholders, so it runs after it and a wait covers that work.
	var ended time.Time
	defer func() {
		if !ended.IsZero() && !floorPast(r.StateDir, ended) {
			waitPast(ended)
		}
	}()
	made, err := makePlaceholders(p, r.StateDir)
	if err != nil {
		return 0, err
	}
	// Once the sandbox is gone the placeholders go while the quarantine
	// runs (removing a directory can take a few tenths of a millisecond on
	// a filesystem that discards the freed block); the deferred call waits
	// for that.
	release := sync.OnceFunc(made)
	defer release()
	if err := makeTmpBinds(p.TmpBinds); err != nil {
		return 0, err
	}
	info, infoW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	args := bwrapArgs(p, cmd)
	if len(args) > bwrapMaxArgs {
		info.Close()
		infoW.Close()
		return 0, tooManyMounts(fmt.Sprintf("the sandbox needs %d bubblewrap arguments, more than the %d it takes", len(args), bwrapMaxArgs))
	}
	split, err := splitStderr(r.Stderr)
	if err != nil {
		info.Close()
		infoW.Close()
		return 0, err
	}
	c := exec.Command(r.Bwrap, args...)
	c.Env, c.Stdin, c.Stdout, c.Stderr = r.Env, r.Stdin, r.Stdout, split.bwrap
	c.ExtraFiles = []*os.File{infoW, nil, split.command} // InfoFD, HandoffFD, StderrFD
	keep, give := -1, (*os.File)(nil)
	if len(p.Listen) > 0 {
		if keep, give, err = handoffPair(); err != nil {
			info.Close()
			infoW.Close()
			split.started()
			split.wait()
			return 0, err
		}
		defer unix.Close(keep)
		c.ExtraFiles[HandoffFD-InfoFD] = give
	}
	// Its own process group: a terminal's Ctrl-C must reach picket, which
	// forwards it, not kill bubblewrap (and so the whole sandbox) at once.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, first.Forwarded...) // the command runs in its own session
	defer signal.Stop(sigs)
	started := coarseNow() // the clock ctimes come from (see quarantine.go)
	settled, err := leavePending(r.StateDir, p, started)
	if err != nil {
		info.Close()
		infoW.Close()
		split.started()
		r.Stderr.Write(split.wait())
		if give != nil {
			give.Close()
		}
		return 0, fmt.Errorf("failed to record the policy-file check: %w", err)
	}
	err = c.Start()
	if give != nil {
		give.Close() // the sandbox's first process holds it now
	}
	split.started()
	if err != nil {
		r.Stderr.Write(split.wait())
		settled(coarseNow())
		info.Close()
		infoW.Close()
		if errors.Is(err, syscall.E2BIG) {
			// Fewer arguments than bubblewrap takes, but longer in all
			// than the kernel passes to a new program.
			return 0, tooManyMounts(fmt.Sprintf("the sandbox's %d bubblewrap arguments are longer in all than the system lets a program be given", len(args)))
		}
		return 0, &UnavailableError{What: fmt.Sprintf("bubblewrap could not start: %v", err)}
	}
	infoW.Close()
	handed := r.receiveListeners(keep)
	defer handed()
	pid, ran := make(chan int, 1), make(chan bool, 1)
	go func() { ran <- readStatus(info, pid) }()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	child, signalled := 0, false
	for {
		select {
		case s := <-sigs:
			signalled = true
			target := child
			if target <= 0 {
				target = c.Process.Pid
			}
			syscall.Kill(target, s.(syscall.Signal))
		case child = <-pid:
		case err := <-done:
			if child == 0 {
				// Not read yet, or never sent: readStatus sends the
				// sandbox's PID, or -1 once the pipe ends, which it does
				// now that bubblewrap is gone.
				child = <-pid
			}
			ended = ctimeCeiling() // every process of the sandbox is gone
			go release()
			// bubblewrap is gone, so the status pipe has reached its end.
			code, err := exitStatus(c, err, child, <-ran || signalled)
			if se := (*SetupError)(nil); errors.As(err, &se) {
				se.Message = split.wait() // said only if no attempt runs the command
			} else {
				r.Stderr.Write(split.wait())
			}
			r.quarantine(p, started)
			settled(ended)
			return code, err
		}
	}
}

// stderrSplit keeps bubblewrap's own messages apart from the command's
// stderr: bubblewrap writes to a pipe picket reads, and the sandbox's
// first process puts command, passed as [StderrFD], in place of its
// stderr before the command starts.
type stderrSplit struct {
	bwrap, command *os.File
	started        func()        // closes picket's copies of the child's ends
	wait           func() []byte // once bubblewrap is gone: what it wrote
}

func splitStderr(w io.Writer) (stderrSplit, error) {
	br, bw, err := os.Pipe()
	if err != nil {
		return stderrSplit{}, err
	}
	command, ok := w.(*os.File)
	var copied chan struct{}
	if !ok {
		cr, cw, err := os.Pipe()
		if err != nil {
			br.Close()
			bw.Close()
			return stderrSplit{}, err
		}
		command, copied = cw, make(chan struct{})
		go func() {
			defer close(copied)
			io.Copy(w, cr)
			cr.Close()
		}()
	}
	var msgs bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		msgs.ReadFrom(br)
		br.Close()
	}()
	return stderrSplit{bwrap: bw, command: command,
		started: func() {
			bw.Close()
			if !ok {
				command.Close()
			}
		},
		wait: func() []byte {
			<-read
			if copied != nil {
				<-copied
			}
			return msgs.Bytes()
		},
	}, nil
}

// receiveListeners takes the sandbox's listeners from fd (none when fd
// is -1) in a goroutine and passes them to r.Listeners. The returned
// function, called once the sandbox is gone, waits for that goroutine.
func (r Runner) receiveListeners(fd int) (wait func()) {
	if fd < 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		addrs, files, err := receive(fd)
		if err != nil {
			return // the sandbox ended first: nothing to serve
		}
		if r.Listeners == nil {
			for _, f := range files {
				f.Close()
			}
			return
		}
		r.Listeners(addrs, files)
	}()
	return func() {
		unix.Shutdown(fd, unix.SHUT_RDWR) // wakes a receive still waiting
		<-done
	}
}

// quarantine moves aside the policy files the command created (see
// [quarantine]) and says so on stderr and through r.Quarantined.
func (r Runner) quarantine(p Plan, started time.Time) {
	moved, complete := quarantine(p.changedStamps(), p.Protect, started)
	for _, m := range moved {
		ReportQuarantined(r.Stderr, m)
		if r.Quarantined != nil {
			r.Quarantined(m)
		}
	}
	if !complete {
		fmt.Fprintf(r.Stderr, "picket: warning: the command made more than %d new entries; picket did not check them all for policy files it may have created\n", quarantineBudget)
	}
}

// changedStamps are the writable directories the quarantine looks at:
// the walk's stamps of them, or, when a keeper made the walk, those it saw
// change since (the others cannot hold anything new), or, should it not
// answer, those of the walk it keeps on disk.
func (p Plan) changedStamps() []dirStamp {
	k := p.keeper
	if k == nil {
		return p.stamps
	}
	var under []string
	if p.Root != RootWritable {
		under = p.Write
	}
	if rep, ok := askKeeper(k.dir, k.key, keeperRequest{Op: "changed", ID: k.id, Since: k.gen, Under: under}); ok {
		return changedStamps(rep.Changed)
	}
	all, _ := readStamps(p.walkFile)
	var out []dirStamp
	for _, d := range all {
		if p.writable(d.Path) {
			out = append(out, d)
		}
	}
	return out
}

// readStatus reads bubblewrap's --json-status-fd until it ends: it sends
// the sandbox's PID on pid as soon as it comes (-1 when none does), and
// reports whether the command started, which bubblewrap says by giving an
// exit code only when the sandbox's setup finished.
func readStatus(r io.ReadCloser, pid chan<- int) (started bool) {
	defer r.Close()
	sent := false
	for d := json.NewDecoder(r); ; {
		var s struct {
			ChildPID *int `json:"child-pid"`
			ExitCode *int `json:"exit-code"`
		}
		if d.Decode(&s) != nil {
			break
		}
		if s.ChildPID != nil && !sent {
			pid <- *s.ChildPID
			sent = true
		}
		started = started || s.ExitCode != nil
	}
	if !sent {
		pid <- -1
	}
	return started
}

// exitStatus maps bubblewrap's end to the command's status. bubblewrap
// failing before it reported the sandbox's PID means no sandbox existed,
// so nothing ran: most often, user namespaces are disabled. Failing after
// it, with started false, means the setup failed before the command
// started; started is true also when picket passed a signal on, which
// ends a setup too, and must not read as a path that changed.
func exitStatus(c *exec.Cmd, err error, child int, started bool) (int, error) {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, err
	}
	code := c.ProcessState.ExitCode()
	ws, ok := c.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if child <= 0 && code != 0 {
		return 0, &UnavailableError{What: "bubblewrap could not create the sandbox's namespaces (are unprivileged user namespaces disabled?)", Userns: true}
	}
	if !started && code != 0 && !(ok && ws.Signaled()) {
		return 0, &SetupError{Status: code}
	}
	return code, nil
}

// tooManyMounts is the refusal for a plan too big to hand to bubblewrap.
func tooManyMounts(what string) *UnavailableError {
	return &UnavailableError{What: what + ": the policy hides or protects too many paths one by one (patterns that match thousands of files)",
		Fix: "narrow those patterns, or name the directories that hold the files (picket show lists what the sandbox mounts)"}
}

// bwrapMaxArgs is bubblewrap's limit on its arguments (MAX_ARGS); past
// it, it exits before making a namespace, which would read as userns
// being off.
const bwrapMaxArgs = 9000

// makeTmpBinds creates the host files bound through the private /tmp that
// do not exist yet: never following a symlink, never changing one that
// exists.
func makeTmpBinds(files []string) error {
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			unix.Close(fd)
			continue
		}
		if !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("failed to create %s: %w", f, err)
		}
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; it is not bound through", f)
		}
	}
	return nil
}

// makePlaceholders creates the plan's missing protected paths as empty
// directories on the host, so they can be mounted over (spare ones renamed
// into place where it keeps some, see spare_linux.go). Every sandbox
// holds a shared lock while it runs, whether it made placeholders or not:
// one that another sandbox made may be among its mounts, and removing a
// directory detaches the mounts on it in every namespace. The last one out
// removes the placeholders it finds still empty, so none outlive the
// sandboxes.
func makePlaceholders(p Plan, stateDir string) (release func(), err error) {
	if stateDir == "" {
		return func() {}, nil
	}
	missing := p.Placeholders()
	dir := filepath.Join(stateDir, "sandbox")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "placeholders.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_SH); err != nil {
		lock.Close()
		return nil, err
	}
	registry := filepath.Join(dir, "placeholders")
	var made []string
	var spare *spares
	for _, m := range missing {
		if spare == nil {
			spare = listSpares(stateDir)
		}
		err := spare.place(m)
		if err != nil && !errors.Is(err, os.ErrExist) && !errors.Is(err, os.ErrNotExist) {
			err = os.Mkdir(m, 0o755)
		}
		switch {
		case err == nil:
			made = append(made, m)
		case errors.Is(err, os.ErrExist), errors.Is(err, os.ErrPermission):
			// exists now, or the person cannot create it either
		case errors.Is(err, os.ErrNotExist):
			// its directory went since the plan: the strict bind of it
			// fails the setup, and the caller plans again
		default:
			lock.Close()
			return nil, fmt.Errorf("failed to create placeholder %s: %w", m, err)
		}
	}
	if len(made) > 0 {
		if f, err := os.OpenFile(registry, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.WriteString(strings.Join(made, "\n") + "\n")
			f.Close()
		}
	}
	return func() {
		defer lock.Close()
		if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			return // another sandbox still runs; the last one cleans up
		}
		b, _ := os.ReadFile(registry)
		// Deepest first: a sandbox started while another ran made its
		// placeholders inside the other's (.claude/commands in .claude).
		made := strings.Split(string(b), "\n")
		slices.SortFunc(made, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
		spare := listSpares(stateDir)
		for _, m := range made {
			if m != "" {
				spare.keep(m) // only an empty directory goes
			}
		}
		os.Truncate(registry, 0)
	}, nil
}

// Probe finds out what the sandbox can use: it looks bubblewrap up in
// path and runs it with a user namespace (a few milliseconds), again
// when a run fails (see [probeUserNS]). probe, when not empty, is run
// with sh -c instead of that bubblewrap run, so tests can simulate
// disabled user namespaces.
func Probe(path, probe string) Status {
	s := Status{Bwrap: FindBwrap(path), Landlock: LandlockABI()}
	if s.Bwrap == "" {
		return s
	}
	s.UserNS = probeUserNS(func() error {
		c := exec.Command(s.Bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--", "true")
		if probe != "" {
			c = exec.Command("/bin/sh", "-c", probe)
		}
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		return c.Run()
	}, time.Sleep)
	return s
}

// waitPast returns once the ctime clock has moved past t (a tick, a few
// ms at most): a file the person writes after picket returns must not
// share the window's last tick, which counts as the command's.
//
// It sleeps until the tick it expects (the coarse clock's last tick plus
// its resolution) with nanosleep, then by 50 µs steps: time.Sleep rounds
// up to a millisecond here, which overshot the tick by half of one on
// average.
func waitPast(t time.Time) {
	tick := coarseTick()
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		c := coarseNow()
		if c.After(t) {
			return
		}
		d := time.Until(c.Add(tick)) + 20*time.Microsecond
		if d < 50*time.Microsecond || d > tick+time.Millisecond {
			d = 50 * time.Microsecond
		}
		ts := unix.NsecToTimespec(d.Nanoseconds())
		unix.Nanosleep(&ts, nil)
	}
}
