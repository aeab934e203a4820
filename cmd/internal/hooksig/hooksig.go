// Package hooksig ignores, for `picket hook`, the signals that would end
// it unanswered, early: in the init of a package with few dependencies,
// which runs before most of the packages picket imports are initialised
// (Go initialises a package as soon as its own imports are). Claude Code reads a hook killed by SIGHUP, SIGINT or
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
