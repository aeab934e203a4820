package main

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

func init() {
	commands["shell-prefix"] = runShellPrefix
	// The spelling `install claude` writes into CLAUDE_CODE_SHELL_PREFIX:
	// Claude Code quotes everything before the prefix's last " -" as one
	// word (see hook.ClaudeShellPrefix).
	commands["--shell-prefix"] = runShellPrefix
}

// claudeCwdFiles names the file each Bash command line of Claude Code ends
// by writing its cwd to (`pwd -P >| /tmp/claude-XXXX-cwd`); Claude Code
// reads it from outside afterwards, so it must reach the host's /tmp.
const claudeCwdFiles = "/tmp/claude-*-cwd"

// runShellPrefix is Claude Code's CLAUDE_CODE_SHELL_PREFIX: it gets one
// argument, a whole command line for a shell, for every Bash command and
// every hook command. A command line exactly equal to the hook command that
// `install claude` writes for this executable is picket's own hook: it runs
// unsandboxed, since it writes the audit log and grants that the sandbox
// protects, and in this process (the line names this very executable with
// hook.ClaudeHookArgs, so a shell and a second picket would only repeat
// this start). Anything else runs in the shell sandbox, as picket run does,
// and fails with 126 when no sandbox can be built: it never runs unfenced.
//
// Equality is the only test. A Bash command line always carries Claude
// Code's `eval '…' && pwd -P >| …` wrapping, so it can never equal the hook
// command; a prefix or an environment variable could be imitated.
func runShellPrefix(c *cli, args []string) int {
	if len(args) != 1 {
		c.errorf("shell-prefix needs exactly one argument, the command line, got %d", len(args))
		c.hintf("picket install claude sets CLAUDE_CODE_SHELL_PREFIX; Claude Code runs it")
		return 2
	}
	line := args[0]
	if c.isOwnHook(line) {
		return run(hook.ClaudeHookArgs, c.env, c.stdin, c.stdout, c.stderr)
	}
	cwd, err := os.Getwd()
	if err != nil {
		c.errorf("failed to find the current directory: %v; nothing ran", err)
		return exitUnavailable
	}
	run := []string{"--cwd", cwd, "--bind-tmp", claudeCwdFiles}
	if dir := c.claudeTmpDir(); dir != "" {
		run = append(run, "--bind-tmp", filepath.Join(dir, filepath.Base(claudeCwdFiles)))
	}
	if snap := c.claudeSnapshots(); snap != "" {
		run = append(run, "--read", snap)
	}
	c.shellPrefix = true
	return runRun(c, append(run, "--", "bash", "-c", line))
}

// claudeTmpDir is where Claude Code writes its cwd files when that is not
// /tmp: Node's os.tmpdir(), TMPDIR (else TMP, else TEMP) without a
// trailing slash. It is bound through only where picket takes it as a
// temp dir (decide.SystemTempDir), else "": a TMPDIR of /etc gets no file
// made in it, and Claude Code then loses track of the cwd.
func (c *cli) claudeTmpDir() string {
	dir := cmp.Or(c.getenv("TMPDIR"), c.getenv("TMP"), c.getenv("TEMP"))
	if len(dir) > 1 {
		dir = strings.TrimSuffix(dir, "/")
	}
	if dir == "" || dir == "/tmp" || decide.SystemTempDir(dir, c.getenv("HOME"), os.Getuid()).Ignored != "" {
		return ""
	}
	return dir
}

// isOwnHook reports whether line is exactly the hook command install
// writes for this executable.
func (c *cli) isOwnHook(line string) bool {
	exe, err := c.picketExe("")
	return err == nil && line == hook.ClaudeHookCommand(exe)
}

// claudeSnapshots is where Claude Code keeps the shell snapshots each Bash
// command line sources, kept readable under defaultDenyRead.
func (c *cli) claudeSnapshots() string {
	dir := c.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := c.getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".claude")
	}
	return filepath.Join(dir, "shell-snapshots")
}
