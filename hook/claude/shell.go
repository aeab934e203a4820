package claude

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
)

// cwdFiles names the file each Bash command line of Claude Code ends by
// writing its cwd to (`pwd -P >| /tmp/claude-XXXX-cwd`); Claude Code
// reads it from outside afterwards, so it must reach the host's /tmp.
const cwdFiles = "/tmp/claude-*-cwd"

// IsOwnHook reports whether a command line Claude Code hands its shell
// prefix is exactly the hook command install writes for the picket at
// exe. Equality is the only test: a Bash command line always carries
// Claude Code's `eval '…' && pwd -P >| …` wrapping, so it can never equal
// the hook command; a prefix or an environment variable could be
// imitated.
func IsOwnHook(line, exe string) bool { return exe != "" && line == HookCommand(exe) }

// ShellRunArgs are picket run's arguments for one Bash command line of
// Claude Code run in dir: Claude Code's cwd file reaches the host's /tmp,
// its shell snapshots (which each command line sources) stay readable
// under defaultDenyRead, and the command belongs to Claude Code's session
// (CLAUDE_CODE_SESSION_ID, which 2.1.197 sets for every Bash command), so
// a network grant "for this session" is that session's.
func ShellRunArgs(getenv func(string) string, dir, line string) []string {
	args := []string{"--cwd", dir, "--bind-tmp", cwdFiles}
	if t := tmpDir(getenv); t != "" {
		args = append(args, "--bind-tmp", filepath.Join(t, filepath.Base(cwdFiles)))
	}
	if id := getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		args = append(args, "--session", id)
	}
	if snap := snapshots(getenv); snap != "" {
		args = append(args, "--read", snap)
	}
	return append(args, "--", "bash", "-c", line)
}

// snapshots is where Claude Code keeps the shell snapshots.
func snapshots(getenv func(string) string) string {
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".claude")
	}
	return filepath.Join(dir, "shell-snapshots")
}

// tmpDir is where Claude Code writes its cwd files when that is not /tmp:
// Node's os.tmpdir(), TMPDIR (else TMP, else TEMP) without a trailing
// slash. It is bound through only where picket takes it as a temp dir
// (decide.SystemTempDir), else "": a TMPDIR of /etc gets no file made in
// it, and every Bash command then ends in an error, since the shell
// cannot write the cwd file ([IgnoredTmpDir] warns at install).
func tmpDir(getenv func(string) string) string {
	dir, why := nodeTmpDir(getenv)
	if why != "" {
		return ""
	}
	return dir
}

// nodeTmpDir is Node's os.tmpdir() when it is not /tmp, and why picket
// does not take it as a temp dir ("" when it does, or when it is /tmp).
func nodeTmpDir(getenv func(string) string) (dir, why string) {
	dir = cmp.Or(getenv("TMPDIR"), getenv("TMP"), getenv("TEMP"))
	if len(dir) > 1 {
		dir = strings.TrimSuffix(dir, "/")
	}
	if dir == "" || dir == "/tmp" {
		return "", ""
	}
	return dir, decide.SystemTempDir(dir, getenv("HOME"), os.Getuid()).Why
}

// IgnoredTmpDir says, when Claude Code would write its cwd file in a temp
// dir picket does not take (a TMPDIR below /var/lib, say), that every
// Bash command will end in an error there and what to do; "" otherwise.
func IgnoredTmpDir(getenv func(string) string) string {
	dir, why := nodeTmpDir(getenv)
	if why == "" {
		return ""
	}
	return "Claude Code writes its cwd file after every Bash command in its temp dir " + dir + ", which picket does not take as a temp dir (" + why + "), so the shell sandbox keeps it read-only and every Bash command will end in an error; unset TMPDIR, or set it to a directory of yours outside the system trees"
}
