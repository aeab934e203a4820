package main

import (
	"os"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/claude"
)

func init() {
	commands["shell-prefix"] = runShellPrefix
	// The spelling `install claude` writes into CLAUDE_CODE_SHELL_PREFIX:
	// Claude Code quotes everything before the prefix's last " -" as one
	// word (see claude.ShellPrefix).
	commands["--shell-prefix"] = runShellPrefix
}

// runShellPrefix is Claude Code's CLAUDE_CODE_SHELL_PREFIX: it gets one
// argument, a whole command line for a shell, for every Bash command and
// every hook command. A command line exactly equal to the hook command that
// `install claude` writes for this executable is picket's own hook: it runs
// unsandboxed, since it writes the audit log and grants that the sandbox
// protects, and in this process (a shell and a second picket would only
// repeat this start). Anything else runs in the shell sandbox, as picket
// run does, and fails with 126 when no sandbox can be built: it never runs
// unfenced.
func runShellPrefix(c *cli, args []string) int {
	if len(args) != 1 {
		c.errorf("shell-prefix needs exactly one argument, the command line, got %d", len(args))
		c.hintf("picket install claude sets CLAUDE_CODE_SHELL_PREFIX; Claude Code runs it")
		return 2
	}
	line := args[0]
	if exe, err := hook.Executable(""); err == nil && claude.IsOwnHook(line, exe) {
		return run(claude.HookArgs, c.env, c.stdin, c.stdout, c.stderr)
	}
	cwd, err := os.Getwd()
	if err != nil {
		c.errorf("failed to find the current directory: %v; nothing ran", err)
		return exitUnavailable
	}
	c.shellPrefix = true
	return runRun(c, claude.ShellRunArgs(c.getenv, cwd, line))
}
