package claude

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// Claude Code reads memory files (CLAUDE.md, CLAUDE.local.md) into the
// conversation without a tool call: those of a directory when a tool
// touches a file in it, and every file they import with "@path" (relative
// to the importing file, "~" for home, up to five levels deep). No hook
// runs for those reads, so a CLAUDE.md holding "@../.env", or one that is a
// symlink to it, would show the model what a Read is denied. picket judges
// them as reads: when the agent writes a memory file, and before a file
// tool call in a directory that has one.

// memoryNames are the memory files Claude Code loads from a directory
// (AGENTS.md where there is no CLAUDE.md, in recent versions); rules holds
// more, at any depth.
var memoryNames = []string{"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".claude/CLAUDE.md", ".claude/AGENTS.md"}

const memoryRules = ".claude/rules"

// maxImportDepth is how deep Claude Code follows imports.
const maxImportDepth = 5

// maxMemoryRead bounds how much of one memory file picket reads: what
// Claude Code reads of one.
const maxMemoryRead = 4 << 20

// maxRuleFiles bounds the .claude/rules files looked at in one directory.
const maxRuleFiles = 256

// isMemoryFile reports whether p names a file Claude Code loads as memory.
func isMemoryFile(p string) bool {
	for _, n := range memoryNames {
		if strings.HasSuffix(p, "/"+n) || p == n {
			return true
		}
	}
	return strings.Contains(p, "/"+memoryRules+"/") && strings.HasSuffix(p, ".md")
}

// imports returns the "@path" references in memory text as Claude Code
// finds them, /(?:^|\s)@((?:[^\s\\]|\\ )+)/g with JavaScript's white
// space: "\ " is a space in the path, and a "#" starts a fragment that is
// not part of it. Each is given as found and, when it ends in punctuation,
// without it too (either may be what a version opens). Imports inside
// code blocks are included: Claude Code skips them, picket judges them
// anyway.
func imports(text string) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		prevSpace := i == 0
		if i > 0 {
			pr, _ := utf8.DecodeLastRuneInString(text[:i])
			prevSpace = hook.IsJSSpace(pr)
		}
		i += size
		if r != '@' || !prevSpace {
			continue
		}
		var b strings.Builder
		for i < len(text) {
			if strings.HasPrefix(text[i:], "\\ ") {
				b.WriteByte(' ')
				i += 2
				continue
			}
			c, n := utf8.DecodeRuneInString(text[i:])
			if hook.IsJSSpace(c) || c == '\\' {
				break
			}
			b.WriteRune(c)
			i += n
		}
		p, _, _ := strings.Cut(b.String(), "#")
		add(p)
		add(strings.TrimRight(p, ".,;:!?)]}\"'`"))
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

// checkImports judges every import of text, written in the memory file
// spelled file (resolved real), as a read, following the imports of what
// they name down to depth. A relative import is taken from both the
// file's directory and its real one (Claude Code reads a symlinked memory
// file's imports from the target's). It returns the first denial.
func checkImports(p decide.Policy, text, file, real string, depth int, seen map[string]bool) (decide.Decision, bool) {
	if depth > maxImportDepth {
		return decide.Decision{}, false
	}
	for _, imp := range imports(text) {
		targets := []string{importTarget(imp, file, p.Spec().Home)}
		if t := importTarget(imp, real, p.Spec().Home); t != targets[0] {
			targets = append(targets, t)
		}
		for _, target := range targets {
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
				if dd, denied := checkImports(p, sub, d.Resolved, d.Resolved, depth+1, seen); denied {
					return dd, true
				}
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
// denied path. It judges the file as the write leaves it: Write's content,
// or the current file with Edit's or MultiEdit's replacements made (an
// edit of "@../.enX" to "@../.env" adds no "@" of its own).
func writtenMemory(p decide.Policy, c hook.Call, d decide.Decision) (decide.Decision, bool) {
	if !(isMemoryFile(d.Path) || isMemoryFile(d.Resolved)) {
		return d, false
	}
	text, ok := afterWrite(c, d.Resolved)
	if !ok {
		return d, false
	}
	if hit, denied := checkImports(p, text, d.Path, d.Resolved, 1, map[string]bool{}); denied {
		return memoryDeny(d, d.Resolved, hit), true
	}
	return d, false
}

// afterWrite returns the content a Write, Edit or MultiEdit call leaves in
// file, as Claude Code applies it; ok is false when it cannot tell (the
// edit would fail).
func afterWrite(c hook.Call, file string) (string, bool) {
	if raw, ok := c.Input["content"]; ok {
		s, err := hook.StringOf(raw)
		return s, err == nil
	}
	cur, _ := readMemory(file)
	type edit struct {
		Old        string `json:"old_string"`
		New        string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	var edits []edit
	if raw, ok := c.Input["edits"]; ok {
		if json.Unmarshal(raw, &edits) != nil {
			return "", false
		}
	} else {
		var e edit
		b, _ := json.Marshal(c.Input)
		if json.Unmarshal(b, &e) != nil {
			return "", false
		}
		edits = []edit{e}
	}
	for _, e := range edits {
		n := 1
		if e.ReplaceAll {
			n = -1
		}
		if e.Old == "" {
			cur = e.New // an empty old_string writes the file whole
			continue
		}
		cur = strings.Replace(cur, e.Old, e.New, n)
	}
	return cur, true
}

// loadedMemory denies a call in a directory whose memory files Claude Code
// would load with it, when one is, or imports, a path the policy denies.
// The directories from the target's up to the workspace root are asked;
// skip is a memory file the call itself writes (judged as it leaves it).
func loadedMemory(p decide.Policy, c hook.Call, d decide.Decision, skip string) (decide.Decision, bool) {
	if d.Resolved == "" {
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
		for _, file := range memoryFiles(dir) {
			if file == skip {
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
			if hit, denied := checkImports(p, text, file, m.Resolved, 1, map[string]bool{}); denied {
				return memoryDeny(d, file, hit), true
			}
		}
		if dir == root || dir == "/" {
			break
		}
	}
	return d, false
}

// memoryFiles lists the memory files in dir: the named ones that exist
// and the .md files below .claude/rules (bounded).
func memoryFiles(dir string) []string {
	var out []string
	for _, n := range memoryNames {
		if f := filepath.Join(dir, n); exists(f) {
			out = append(out, f)
		}
	}
	rules := filepath.Join(dir, memoryRules)
	if !exists(rules) {
		return out
	}
	n := 0
	filepath.WalkDir(rules, func(f string, e os.DirEntry, err error) error {
		if err != nil || n >= maxRuleFiles {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(f, ".md") {
			out = append(out, f)
			n++
		}
		return nil
	})
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
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

// loads is the Agent's Loads: Claude Code loads memory files with reads
// and writes alike, and a write is judged as it leaves the file.
func loads(p decide.Policy, c hook.Call, t hook.Target, d decide.Decision) (decide.Decision, bool) {
	skip := ""
	if t.Access == decide.Write {
		if dd, denied := writtenMemory(p, c, d); denied {
			return dd, true
		}
		skip = d.Resolved // judged above as the write leaves it
	}
	return loadedMemory(p, c, d, skip)
}

// isUnder reports whether p is dir or below it.
func isUnder(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == '/'
}
