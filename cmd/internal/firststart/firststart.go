// Package firststart runs the sandbox's first process (package
// sandbox/first) from its init, when picket is started as one ("picket
// run --landlock-exec …"), and exits with its status: before most of the
// packages picket imports are initialised, since Go initialises a package
// as soon as its own imports are and this one imports only os and
// sandbox/first. Every sandboxed command starts that process, and it needs
// nothing of the rest of picket.
package firststart

import (
	"os"

	"github.com/picketdev/picket/sandbox/first"
)

func init() {
	if first.IsExec(os.Args) {
		os.Exit(first.Main(os.Args[3:], os.Stderr))
	}
}
