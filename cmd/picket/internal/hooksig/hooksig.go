// Package hooksig ignores, for `picket hook`, the signals that would end
// it unanswered, as early as a Go program can: in the init of a package
// with few dependencies, before the other packages picket imports are
// initialised. Claude Code reads a hook killed by SIGHUP, SIGINT or
// SIGTERM (exit 129, 130, 143) as "go ahead". Between the exec and this
// init (the Go runtime starting, about a millisecond) a signal still ends
// the process; nothing in a Go program runs earlier.
package hooksig

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals are the signals the hook ignores outside a prompt.
var Signals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}

func init() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		signal.Ignore(Signals...)
	}
}
