package hook

import (
	"cmp"
	"errors"
	"runtime"

	"github.com/picketdev/picket/sandbox"
)

// ShellSandboxed reports whether picket run can build its shell sandbox on
// the operating system goos (a runtime.GOOS value; "" is the one picket
// runs on): on Linux only, for now. It is the one rule every agent's
// wiring follows: install wires an agent's shell to run under picket run
// (Claude Code's shell prefix), and a hook rewrites a shell command to
// run under it ([ShellRun.Line]), only where it holds. Elsewhere picket
// run refuses every command, so a wrapped shell would fail every time:
// the agent's shell runs as it would without picket, unfenced, and
// install ([InstallOptions.ShellSandboxed]) and picket show say so. The
// file tools are fenced either way. goos is a plain value, so the
// decisions made on it are tested on Linux too.
func ShellSandboxed(goos string) bool { return sandbox.Supported(cmp.Or(goos, runtime.GOOS)) }

// ErrShellUnsandboxed is what [ShellRun.Line] returns where picket run
// cannot build its sandbox ([ShellSandboxed] is false): the pipeline then
// leaves the shell command as the model wrote it.
var ErrShellUnsandboxed = errors.New("picket's shell sandbox needs Linux: the shell command runs unfenced")

// ShellSandboxed reports whether install is to wire the agent's shell to
// picket run: [ShellSandboxed] for o.GOOS. Where it is not, it tells the
// person that shell (the agent's shell commands, as "Claude Code's Bash
// commands") runs unfenced there, while the file tools are fenced.
func (o InstallOptions) ShellSandboxed(shell string) bool {
	if ShellSandboxed(o.GOOS) {
		return true
	}
	o.Warn("%s are not fenced on %s: picket's shell sandbox needs Linux, so install leaves them to run as they would without picket (the file tools are still fenced)", shell, cmp.Or(o.GOOS, runtime.GOOS))
	return false
}

// WarnShellSandbox tells the person when the shell sandbox cannot work on
// this machine, though its platform has one (bubblewrap missing, user
// namespaces off): until it does, shell (the agent's shell commands),
// which runs under picket run, fails with exit 126. On a platform without
// the sandbox, it says what [InstallOptions.ShellSandboxed] says.
func (o InstallOptions) WarnShellSandbox(shell string) {
	if !o.ShellSandboxed(shell) {
		return
	}
	st := sandbox.Probe(o.Getenv("PATH"), o.Getenv(sandbox.ProbeEnv))
	if st.Works() {
		return
	}
	o.Warn("%s: %s will fail (exit 126) until it works", st, shell)
	o.Hint("'picket run -- true' says what is missing and how to fix it")
}
