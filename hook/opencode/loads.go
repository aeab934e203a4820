package opencode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// opencode's read tool adds instruction files to what it returns, without
// a tool call of their own: for every directory from the read file's up
// to (not including) the session's directory, the first of AGENTS.md,
// CLAUDE.md and CONTEXT.md there (read through symlinks), unless the
// session already has it. A planted sub/AGENTS.md that is a symlink to
// ../.env would show the model a file picket denies, so picket judges
// each as a read.

// instructionNames are the files opencode 1.18 looks for in a directory,
// in its order; it takes the first that exists.
var instructionNames = []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md"}

// loads is the Agent's Loads: a read of a file in a directory below the
// session's is denied when an instruction file opencode would add to it
// is a path the policy denies reading.
func loads(p decide.Policy, c hook.Call, t hook.Target, d decide.Decision) (decide.Decision, bool) {
	if c.Tool != "read" || t.Access != decide.Read {
		return d, false
	}
	session := filepath.Clean(c.Dir())
	// opencode walks from the file as the plugin pinned it (the resolved
	// path) and as the model wrote it: both are judged.
	for _, file := range uniq(d.Resolved, abs(t.Path, session)) {
		for dir := filepath.Dir(file); strings.HasPrefix(dir, session) && dir != session; dir = filepath.Dir(dir) {
			f := instructionFile(dir)
			if f == "" || f == file {
				continue
			}
			if m := decide.Check(p, decide.Read, f, dir, -1); !m.Allow && m.Rule != decide.RuleCanonicalize {
				return instructionDeny(d, f, m), true
			}
		}
	}
	return d, false
}

// instructionFile is the instruction file opencode would load from dir, or
// "".
func instructionFile(dir string) string {
	for _, n := range instructionNames {
		f := filepath.Join(dir, n)
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return ""
}

// instructionDeny is the read's denial for an instruction file that is
// denied.
func instructionDeny(d decide.Decision, file string, hit decide.Decision) decide.Decision {
	out := hit
	out.Access, out.Path = d.Access, d.Path
	if out.Resolved == "" {
		out.Resolved = d.Resolved
	}
	out.Reason = fmt.Sprintf("opencode would add the instruction file %s to what this read returns, and it reads %s, which the policy denies (%s)", file, hit.Resolved, hit.Rule)
	out.Suggestion = fmt.Sprintf("ask the person to remove or fix %s", file)
	return out
}

func uniq(a, b string) []string {
	if a == "" || a == b {
		return []string{b}
	}
	return []string{a, b}
}
