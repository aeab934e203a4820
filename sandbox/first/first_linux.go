//go:build linux

package first

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

// Main is the first process inside the sandbox ("picket run
// --landlock-exec --write DIR... --socket PATH... --listen ADDR... --
// COMMAND..."): it opens the listeners picket serves the network proxy on
// and hands them over ([HandoffFD]), restricts itself with Landlock (best
// effort: a kernel without it leaves the mounts as the only layer), starts
// the command, passes on the signals picket forwards, reaps orphans as
// PID 1 must, and returns the command's exit status.
func Main(args []string, stderr io.Writer) int {
	if syscall.Dup3(StderrFD, 2, 0) == nil {
		syscall.Close(StderrFD)
	}
	// The first signal.Notify starts the runtime's signal thread and waits
	// for it (about half a millisecond): done meanwhile, and waited for
	// before the command starts.
	sigs, notified := make(chan os.Signal, 8), make(chan struct{})
	go func() {
		signal.Notify(sigs, Forwarded...)
		close(notified)
	}()
	var write, sockets, listen []string
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			fmt.Fprintf(stderr, "picket: error: bad %s arguments\n", Exec)
			return 126
		}
		switch args[0] {
		case "--write":
			write = append(write, args[1])
		case "--socket":
			sockets = append(sockets, args[1])
		case "--listen":
			listen = append(listen, args[1])
		default:
			fmt.Fprintf(stderr, "picket: error: unknown %s flag %q\n", Exec, args[0])
			return 126
		}
		args = args[2:]
	}
	if len(args) < 2 {
		fmt.Fprintf(stderr, "picket: error: %s needs -- COMMAND\n", Exec)
		return 126
	}
	cmd := args[1:]
	if len(listen) > 0 {
		if err := handoff(HandoffFD, listen); err != nil {
			fmt.Fprintf(stderr, "picket: error: %v; nothing ran\n", err)
			return 126
		}
	}
	// Landlock restricts this thread, which starts the command (in
	// supervise), so the command inherits the domain.
	runtime.LockOSThread()
	if err := restrict(ABI(), write, sockets); err != nil {
		fmt.Fprintf(stderr, "picket: error: failed to apply Landlock: %v\n", err)
		return 126
	}
	return supervise(cmd, sigs, notified, stderr)
}

// supervise runs cmd in its own process group and waits for it, passing
// on the signals sigs gets (once notified is closed) and reaping every
// other child (the sandbox's PID 1 inherits orphans).
func supervise(cmd []string, sigs chan os.Signal, notified chan struct{}, stderr io.Writer) int {
	bin, err := exec.LookPath(cmd[0])
	if err != nil {
		fmt.Fprintf(stderr, "picket: error: %s: command not found\n", cmd[0])
		return 127
	}
	<-notified
	proc, err := os.StartProcess(bin, cmd, &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		fmt.Fprintf(stderr, "picket: error: %v\n", err)
		return 126
	}
	pid := proc.Pid
	exited := make(chan int, 1)
	go func() { exited <- reap(pid) }()
	for {
		select {
		case s := <-sigs:
			syscall.Kill(-pid, s.(syscall.Signal))
		case code := <-exited:
			return code
		}
	}
}

// reap waits for every child until pid ends, and returns pid's status as
// a shell would: its exit code, or 128 plus the signal that ended it.
func reap(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 126
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}
