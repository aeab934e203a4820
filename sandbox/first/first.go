// Package first is the sandbox's first process: the program bubblewrap
// starts inside the sandbox ("picket run --landlock-exec …"), which hands
// over the network proxy's listeners, applies Landlock and supervises the
// command as PID 1 (see [Main]).
//
// It imports little on purpose. picket's command dispatches to it from
// the init of an early package (cmd/internal/firststart), before the
// packages of the rest of picket are initialised, since Go initialises a
// package as soon as its own imports are: the first process is started
// on every sandboxed command, and needs none of them.
package first

import (
	"os"
	"syscall"
)

// Exec is the hidden flag of "picket run" that marks the first process
// inside the sandbox: it applies the plan's Landlock layer and starts the
// command.
const Exec = "--landlock-exec"

// HandoffFD is the descriptor the first process hands the plan's
// listeners to picket over; picket passes one end of a socket pair there.
const HandoffFD = 4

// StderrFD is where the first process finds the command's stderr, which
// it puts in place of its own before anything runs: bubblewrap's stderr
// is a pipe to picket, so a message about a setup that failed and is then
// tried again does not reach the command's reader.
const StderrFD = 5

// Forwarded are the signals picket passes on to the sandbox, and the
// first process to the command. The command runs in its own session, so
// the terminal's Ctrl-C and resizes reach picket, not the command.
var Forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}

// IsExec reports whether args (a process's os.Args) start the first
// process: "picket run --landlock-exec …".
func IsExec(args []string) bool {
	return len(args) > 2 && args[1] == "run" && args[2] == Exec
}
