package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/picketdev/picket/hook"
)

// Gemini CLI applies a BeforeTool hook's tool_input without an "allow",
// replacing the call's whole input, and its shell tool then runs the
// command with `bash -c` in dir_path (the workspace when unset). picket
// rewrites the command to run that very line under picket run, in the
// same directory, so it gets the shell sandbox; the model reads the
// command's output and "[System] Tool input parameters were modified by
// a hook before execution." Gemini CLI's own approval then asks about
// the rewritten command.

// rewrite is the Agent's Rewrite: the shell command under picket run,
// and a search without dir_path held to the workspace root, the one
// directory picket scanned (Gemini CLI's glob, and its grep without
// ripgrep, would search every workspace directory, --include-directories
// and /directory add included, which the hook cannot know).
func rewrite(c hook.Call, run hook.ShellRun) (map[string]json.RawMessage, error) {
	switch c.Tool {
	case toolShell:
		return wrapShell(c, run)
	case toolEdit:
		return pinEdit(c)
	case toolGlob, toolGrep, toolGrepOld:
		if d, err := stringField(c.Input, "dir_path", false); err != nil || d != "" {
			return nil, err // set: searched where it names (judged as such)
		}
		in := maps.Clone(c.Input)
		in["dir_path"] = json.RawMessage(`"."`)
		return in, nil
	}
	return nil, nil
}

// pinEdit holds a replace whose relative file_path names no file to the
// path picket judged: Gemini CLI would otherwise edit whatever single
// file in its workspace directories has a path ending in it (its
// correctPath). The path is absolute, with its "%" spelled "%25", as
// Gemini CLI decodes an absolute file_path once.
func pinEdit(c hook.Call) (map[string]json.RawMessage, error) {
	p, err := stringField(c.Input, "file_path", true)
	if err != nil || strings.HasPrefix(p, "/") {
		return nil, err
	}
	root := c.Dir()
	if exists(jsResolve(root, defensive(root, p))) {
		return nil, nil // Gemini CLI edits that file, the one judged
	}
	paths, err := filePaths(root, p)
	if err != nil {
		return nil, err
	}
	pinned, _ := json.Marshal(strings.ReplaceAll(paths[0], "%", "%25"))
	in := maps.Clone(c.Input)
	in["file_path"] = pinned
	return in, nil
}

// wrapShell is run_shell_command's input with its command run under
// picket run in the directory Gemini CLI would run it in, with
// GEMINI_PROJECT_DIR naming the workspace (so the shell's policy is the
// file tools'). A command Gemini CLI refuses to run (command
// substitution) is denied: wrapped, it would be quoted past that check.
func wrapShell(c hook.Call, run hook.ShellRun) (map[string]json.RawMessage, error) {
	cmd, err := stringField(c.Input, "command", true)
	if err != nil {
		return nil, err
	}
	if substitution(cmd) {
		return nil, errors.New("command substitution ($(), backticks, <() or >()): Gemini CLI refuses to run such a command, and picket's wrapping would hide it from that check; run the inner command first and pass its output")
	}
	root := c.Dir()
	dir := root
	if d, err := stringField(c.Input, "dir_path", false); err != nil {
		return nil, err
	} else if d != "" {
		if strings.ContainsRune(d, 0) {
			return nil, errNUL
		}
		dir = jsResolve(root, d)
	}
	line, err := run.Line(dir, "bash", "-c", cmd)
	if err != nil {
		return nil, err
	}
	wrapped, err := json.Marshal(projectDirEnv + "=" + hook.ShellQuote(root) + " " + line)
	if err != nil {
		return nil, fmt.Errorf("cannot quote the command: %w", err)
	}
	in := maps.Clone(c.Input)
	in["command"] = wrapped
	return in, nil
}

// shellWrapper is Gemini CLI's stripShellWrapper pattern: a command that
// is itself `sh -c`, `bash -c` or `zsh -c` is checked for substitution
// inside its quoted argument.
var shellWrapper = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c\s+`)
})

// substitution reports whether Gemini CLI's detectCommandSubstitution
// refuses cmd: "$(", a backtick, or "<(" or ">(" outside single quotes,
// in the command or in the argument of a leading `bash -c`. It reads
// the quotes as Gemini CLI does; reading both the command and the inner
// argument may refuse a little more than Gemini CLI, never less.
func substitution(cmd string) bool {
	if detectBash(cmd) {
		return true
	}
	if m := shellWrapper().FindStringIndex(cmd); m != nil {
		inner := strings.TrimSpace(cmd[m[1]:])
		if len(inner) >= 2 && (inner[0] == '"' || inner[0] == '\'') && inner[len(inner)-1] == inner[0] {
			if inner[0] == '"' {
				// What the shell makes of a double-quoted word: Gemini
				// CLI reads it with shell-quote's parser.
				inner = doubleQuoted.Replace(inner[1 : len(inner)-1])
			} else {
				inner = inner[1 : len(inner)-1]
			}
		}
		return detectBash(inner)
	}
	return false
}

// doubleQuoted undoes the backslash escapes of a double-quoted shell word.
var doubleQuoted = strings.NewReplacer(`\$`, "$", "\\`", "`", `\"`, `"`, `\\`, `\`, "\\\n", "")

// detectBash is Gemini CLI's detectBashSubstitution, character for
// character (JavaScript strings are UTF-16; every character it looks at
// is ASCII, so bytes do).
func detectBash(s string) bool {
	single, double := false, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' && !double:
			single = !single
			i++
			continue
		case c == '"' && !single:
			double = !double
			i++
			continue
		case single:
			i++
			continue
		case c == '\\' && i+1 < len(s):
			if !double || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
				i += 2
				continue
			}
		}
		if c == '$' && i+1 < len(s) && s[i+1] == '(' {
			return true
		}
		if !double && (c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '(' {
			return true
		}
		if c == '`' {
			return true
		}
		i++
	}
	return false
}
