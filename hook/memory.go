package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
)

// Claude Code reads memory files (CLAUDE.md, CLAUDE.local.md) into the
// conversation without a tool call: those of a directory when a tool
// touches a file in it, and every file they import with "@path" (relative
// to the importing file, "~" for home, up to five levels deep). No hook
// runs for those reads, so a CLAUDE.md holding "@../.env", or one that is a
// symlink to it, would show the model what a Read is denied. picket judges
// them as reads: when the agent writes a memory file, and before a file
// tool call in a directory that has one.

// memoryNames are the memory files Claude Code loads from a directory.
var memoryNames = []string{"CLAUDE.md", "CLAUDE.local.md"}

// maxImportDepth is how deep Claude Code follows imports.
const maxImportDepth = 5

// maxMemoryRead bounds how much of one memory file picket reads.
const maxMemoryRead = 1 << 20

// isMemoryFile reports whether p names a file Claude Code loads as memory.
func isMemoryFile(p string) bool {
	base := filepath.Base(p)
	for _, n := range memoryNames {
		if base == n {
			return true
		}
	}
	return strings.Contains(p, "/.claude/rules/") && strings.HasSuffix(base, ".md")
}

// imports returns the "@path" references in memory text: a word starting
// with "@" after a line start or white space, as written and without
// trailing punctuation (either may be what Claude Code opens).
func imports(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		if p, ok := strings.CutPrefix(f, "@"); ok && p != "" {
			out = append(out, p)
			if t := strings.TrimRight(p, ".,;:!?)]}\"'`"); t != p && t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// importTarget resolves one import written in the memory file at file.
func importTarget(imp, file, home string) string {
	switch {
	case imp == "~" || strings.HasPrefix(imp, "~/"):
		return home + imp[1:]
	case filepath.IsAbs(imp):
		return imp
	}
	return filepath.Join(filepath.Dir(file), imp)
}

// checkImports judges every import of text, written in the memory file at
// file, as a read, following the imports of what they name down to
// depth. It returns the first denial.
func checkImports(p decide.Policy, text, file string, depth int, seen map[string]bool) (decide.Decision, bool) {
	if depth > maxImportDepth {
		return decide.Decision{}, false
	}
	for _, imp := range imports(text) {
		target := importTarget(imp, file, p.Spec().Home)
		d := decide.Check(p, decide.Read, target, filepath.Dir(file), -1)
		if !d.Allow {
			if d.Rule == decide.RuleCanonicalize {
				continue // no path Claude Code could open either: nothing is loaded
			}
			return d, true
		}
		if seen[d.Resolved] {
			continue
		}
		seen[d.Resolved] = true
		if sub, err := readMemory(d.Resolved); err == nil {
			if dd, denied := checkImports(p, sub, d.Resolved, depth+1, seen); denied {
				return dd, true
			}
		}
	}
	return decide.Decision{}, false
}

// readMemory reads a regular file, up to maxMemoryRead bytes.
func readMemory(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMemoryRead))
	return string(b), err
}

// writtenMemory denies a write that would leave a memory file importing a
// denied path: Write's content, Edit's new_string, MultiEdit's new strings.
func writtenMemory(p decide.Policy, c Call, d decide.Decision) (decide.Decision, bool) {
	if c.Agent != "claude" || !(isMemoryFile(d.Path) || isMemoryFile(d.Resolved)) {
		return d, false
	}
	var texts []string
	add := func(raw json.RawMessage) {
		if s, err := stringOf(raw); err == nil {
			texts = append(texts, s)
		}
	}
	add(c.Input["content"])
	add(c.Input["new_string"])
	var edits []map[string]json.RawMessage
	if json.Unmarshal(c.Input["edits"], &edits) == nil {
		for _, e := range edits {
			add(e["new_string"])
		}
	}
	for _, t := range texts {
		if hit, denied := checkImports(p, t, d.Resolved, 1, map[string]bool{}); denied {
			return memoryDeny(d, d.Resolved, hit), true
		}
	}
	return d, false
}

// loadedMemory denies a call in a directory whose memory files Claude Code
// would load with it, when one is, or imports, a path the policy denies.
// The directories from the target's up to the workspace root are asked.
func loadedMemory(p decide.Policy, c Call, d decide.Decision) (decide.Decision, bool) {
	if c.Agent != "claude" || d.Resolved == "" {
		return d, false
	}
	_, root, err := decide.Canonicalize(p.Spec().Root, "/", "/")
	if err != nil {
		return d, false
	}
	dir := d.Resolved
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	for ; isUnder(dir, root); dir = filepath.Dir(dir) {
		for _, n := range memoryNames {
			file := filepath.Join(dir, n)
			if _, err := os.Lstat(file); err != nil {
				continue
			}
			m := decide.Check(p, decide.Read, file, dir, -1)
			if !m.Allow {
				return memoryDeny(d, file, m), true
			}
			text, err := readMemory(m.Resolved)
			if err != nil {
				continue
			}
			if hit, denied := checkImports(p, text, file, 1, map[string]bool{}); denied {
				return memoryDeny(d, file, hit), true
			}
		}
		if dir == root || dir == "/" {
			break
		}
	}
	return d, false
}

// memoryDeny is the call's denial for a memory file that reaches hit.
func memoryDeny(d decide.Decision, file string, hit decide.Decision) decide.Decision {
	out := hit
	out.Access, out.Path = d.Access, d.Path
	if out.Resolved == "" {
		out.Resolved = d.Resolved
	}
	out.Reason = fmt.Sprintf("Claude Code would load the memory file %s into the conversation, and it reads %s, which the policy denies (%s)", file, hit.Resolved, hit.Rule)
	out.Suggestion = fmt.Sprintf("ask the person to remove that import from %s; memory files may not import denied paths", file)
	return out
}
