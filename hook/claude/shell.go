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
// it, and Claude Code then loses track of the cwd.
func tmpDir(getenv func(string) string) string {
	dir := cmp.Or(getenv("TMPDIR"), getenv("TMP"), getenv("TEMP"))
	if len(dir) > 1 {
		dir = strings.TrimSuffix(dir, "/")
	}
	if dir == "" || dir == "/tmp" || decide.SystemTempDir(dir, getenv("HOME"), os.Getuid()).Ignored != "" {
		return ""
	}
	return dir
}
