package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// Gemini CLI reads context files (GEMINI.md, or the names in the
// settings' context.fileName) into the conversation without a tool call:
// when read_file, write_file, replace or list_directory touch a path, the
// context files of its directory and of every directory above it up to
// the git root ("Newly Discovered Project Context"), and every file they
// import with "@path". No hook runs for those reads, so a GEMINI.md that
// imports "@../.env", or is a link to it, would show the model what a
// read_file is denied. picket judges them as reads: when the agent
// writes a context file (as the write leaves it), and before each call
// that would load them. Gemini CLI skips the files it loaded already;
// picket judges them every time, the cautious side.

// defaultContextName is the context file Gemini CLI always loads.
const defaultContextName = "GEMINI.md"

// maxImports bounds the imported files picket reads for one call, and
// maxImportDepth how deep it follows them (Gemini CLI stops at 5 in its
// "tree" import format; its "flat" format has no bound): past either the
// call is denied, as picket cannot tell what it would show.
const (
	maxImports     = 512
	maxImportDepth = 64
	maxContextRead = 4 << 20
)

// loadingTools are the tools after which Gemini CLI loads context files.
var loadingTools = []string{toolRead, toolWrite, toolEdit, toolList, toolReadMany, toolStartContext}

// startContextTargets are the project's context files Gemini CLI loads
// when a session starts in root: those of root and of each directory
// above it up to the git root (root itself without one), short of its
// own ~/.gemini. Each is a read, and [loads] judges what it imports.
// With none, there is nothing to judge.
func startContextTargets(root string) ([]hook.Target, error) {
	home := os.Getenv("HOME")
	names := contextNames(home, root, os.Getenv)
	ceiling := root
	if top := decide.GitTop(root); top != "" {
		ceiling = top
	}
	stop := filepath.Join(geminiHome(home, os.Getenv), ".gemini")
	var out []hook.Target
	for dir := root; dir != stop; dir = filepath.Dir(dir) {
		for _, n := range names {
			if f := filepath.Join(dir, n); exists(f) {
				out = append(out, hook.Target{Access: decide.Read, Path: f, Size: -1})
			}
		}
		if dir == ceiling || dir == "/" {
			break
		}
	}
	if len(out) == 0 {
		return nil, hook.ErrNotJudged
	}
	return out, nil
}

// loads is the Agent's Loads.
func loads(p decide.Policy, c hook.Call, t hook.Target, d decide.Decision) (decide.Decision, bool) {
	if !slices.Contains(loadingTools, c.Tool) || d.Resolved == "" {
		return d, false
	}
	names := contextNames(p.Spec().Home, c.Dir(), os.Getenv)
	skip := ""
	if t.Access == decide.Write {
		if dd, denied := writtenContext(p, c, d, names); denied {
			return dd, true
		}
		skip = d.Resolved // judged above, as the write leaves it
	}
	return loadedContext(p, c, d, names, skip)
}

// isContextFile reports whether p names a context file.
func isContextFile(p string, names []string) bool {
	for _, n := range names {
		if p == n || strings.HasSuffix(p, "/"+n) {
			return true
		}
	}
	return false
}

// privateMemoryName is the index of Gemini CLI's private project memory,
// which it loads, with everything it imports, into every session of the
// project (and tells the model to write with write_file and replace).
const privateMemoryName = "MEMORY.md"

// privateMemory reports whether the resolved path p is a project's
// private memory index: <gemini home>/.gemini/tmp/<project>/memory/MEMORY.md.
func privateMemory(p, home string, getenv func(string) string) bool {
	if filepath.Base(p) != privateMemoryName || filepath.Base(filepath.Dir(p)) != "memory" {
		return false
	}
	tmp := filepath.Join(geminiHome(home, getenv), ".gemini", "tmp")
	if _, r, err := decide.Canonicalize(tmp, "/", "/"); err == nil {
		tmp = r
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(p))) == tmp
}

// writtenContext denies a write that would leave a context file loading
// a denied path: write_file's content (and what Gemini CLI's unescaping
// makes of it), or replace's edit made on the file as it is. An edit
// whose old_string is not in the file is one Gemini CLI would apply by a
// looser match, whose result picket cannot tell: denied.
func writtenContext(p decide.Policy, c hook.Call, d decide.Decision, names []string) (decide.Decision, bool) {
	if !isContextFile(d.Path, names) && !isContextFile(d.Resolved, names) && !privateMemory(d.Resolved, p.Spec().Home, os.Getenv) {
		return d, false
	}
	texts, err := afterWrite(c, d.Resolved)
	if err != nil {
		out := d
		out.Allow, out.Layer, out.Rule = false, decide.LayerBoundary, "picket.context"
		out.Reason = fmt.Sprintf("Gemini CLI loads %s into the conversation, and %v", d.Resolved, err)
		out.Suggestion = "write the whole file with write_file, or give old_string exactly as it is in the file"
		return out, true
	}
	b := newBudget()
	for _, text := range texts {
		if hit, denied := checkImports(p, text, d.Path, d.Resolved, 1, b); denied {
			return contextDeny(d, d.Resolved, hit), true
		}
	}
	return d, false
}

// afterWrite returns the contents a write_file or replace call may leave
// in file.
func afterWrite(c hook.Call, file string) ([]string, error) {
	if c.Tool == toolWrite {
		s, err := hook.StringOf(c.Input["content"])
		if err != nil {
			return nil, fmt.Errorf("tool input field content: %w", err)
		}
		return []string{s, unescapeGeminiBug(s)}, nil
	}
	old, err := stringField(c.Input, "old_string", false)
	if err != nil {
		return nil, err
	}
	repl, err := stringField(c.Input, "new_string", false)
	if err != nil {
		return nil, err
	}
	var all bool
	json.Unmarshal(c.Input["allow_multiple"], &all)
	if old == "" {
		return []string{repl}, nil // a new file holding new_string
	}
	cur, _ := readContext(file)
	if !strings.Contains(cur, old) {
		return nil, fmt.Errorf("old_string is not in the file as written, so Gemini CLI would apply the edit by a looser match whose result picket cannot tell")
	}
	n := 1
	if all {
		n = -1
	}
	after := strings.Replace(cur, old, repl, n)
	return []string{after, unescapeGeminiBug(after)}, nil
}

// geminiBugEscapes is the pattern of Gemini CLI's unescapeStringForGeminiBug,
// which it may apply to written content.
var geminiBugEscapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\\\+(n|t|r|'|\"|`|\\\\|\n)")
})

// unescapeGeminiBug is Gemini CLI's unescapeStringForGeminiBug.
func unescapeGeminiBug(s string) string {
	return geminiBugEscapes().ReplaceAllStringFunc(s, func(m string) string {
		switch c := m[len(m)-1]; c {
		case 'n', '\n':
			return "\n"
		case 't':
			return "\t"
		case 'r':
			return "\r"
		default:
			return string(c)
		}
	})
}

// loadedContext denies a call after which Gemini CLI would load a
// context file that is, or imports, a path the policy denies: those of
// the target's directory (the target itself when it is one) and of each
// directory above it up to the git root above the workspace (the
// workspace root without one), or, for a path outside the workspace, up
// to its own git root or "/". skip is a context file the call writes
// (judged as it leaves it).
func loadedContext(p decide.Policy, c hook.Call, d decide.Decision, names []string, skip string) (decide.Decision, bool) {
	start := d.Resolved
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		start = filepath.Dir(start)
	}
	_, root, err := decide.Canonicalize(c.Dir(), "/", "/")
	if err != nil {
		return d, false
	}
	ceiling := root
	if !isUnder(start, root) {
		ceiling = start
	}
	if top := decide.GitTop(ceiling); top != "" {
		ceiling = top
	} else if !isUnder(start, root) {
		ceiling = "/"
	}
	stop := ""
	if _, r, err := decide.Canonicalize(filepath.Join(geminiHome(p.Spec().Home, os.Getenv), ".gemini"), "/", "/"); err == nil {
		stop = r
	}
	b := newBudget()
	for dir := start; dir != stop; dir = filepath.Dir(dir) {
		for _, n := range names {
			file := filepath.Join(dir, n)
			if file == skip || !exists(file) {
				continue
			}
			m := decide.Check(p, decide.Read, file, dir, -1)
			if !m.Allow {
				return contextDeny(d, file, m), true
			}
			if m.Resolved == skip {
				continue
			}
			text, err := readContext(m.Resolved)
			if err != nil {
				continue
			}
			if hit, denied := checkImports(p, text, file, m.Resolved, 1, b); denied {
				return contextDeny(d, file, hit), true
			}
		}
		if dir == ceiling || dir == "/" {
			break
		}
	}
	return d, false
}

// budget counts the imported files one call's judgement reads.
type budget struct {
	seen map[string]bool
	left int
}

func newBudget() *budget { return &budget{seen: map[string]bool{}, left: maxImports} }

// imports returns the "@path" imports in context text as Gemini CLI's
// findImports finds them: an "@" at the start or after a space, tab or
// line break, then everything up to the next one, when that starts with
// ".", "/" or an ASCII letter. Imports inside code spans are included:
// Gemini CLI skips them, picket judges them anyway.
func imports(text string) []string {
	var out []string
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '@')
		if j < 0 {
			break
		}
		i += j
		if i > 0 && !space(text[i-1]) {
			i++
			continue
		}
		k := i + 1
		for k < len(text) && !space(text[k]) {
			k++
		}
		imp := text[i+1 : k]
		if imp != "" && (imp[0] == '.' || imp[0] == '/' || 'a' <= imp[0]|0x20 && imp[0]|0x20 <= 'z') && !slices.Contains(out, imp) {
			out = append(out, imp)
		}
		i = k + 1
	}
	return out
}

// urlImport matches the imports Gemini CLI refuses to read.
var urlImport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(file|https?)://`) })

// checkImports judges every import of text, written in the context file
// spelled file (resolved real), as a read, following the imports of what
// they name. A relative import is taken from both the file's directory
// (as Gemini CLI resolves it) and its real one. It returns the first
// denial.
func checkImports(p decide.Policy, text, file, real string, depth int, b *budget) (decide.Decision, bool) {
	for _, imp := range imports(text) {
		if urlImport().MatchString(imp) {
			continue
		}
		targets := []string{jsResolve(filepath.Dir(file), imp)}
		if t := jsResolve(filepath.Dir(real), imp); t != targets[0] {
			targets = append(targets, t)
		}
		for _, target := range targets {
			d := decide.Check(p, decide.Read, target, filepath.Dir(target), -1)
			if !d.Allow {
				if d.Rule == decide.RuleCanonicalize {
					continue // no file Gemini CLI could open either
				}
				return d, true
			}
			if b.seen[d.Resolved] {
				continue
			}
			b.seen[d.Resolved] = true
			if b.left--; b.left < 0 || depth > maxImportDepth {
				out := d
				out.Allow, out.Layer, out.Rule = false, decide.LayerBoundary, "picket.context"
				out.Reason = fmt.Sprintf("more imports than picket follows (%d files, %d deep)", maxImports, maxImportDepth)
				return out, true
			}
			if sub, err := readContext(d.Resolved); err == nil {
				if dd, denied := checkImports(p, sub, target, d.Resolved, depth+1, b); denied {
					return dd, true
				}
			}
		}
	}
	return decide.Decision{}, false
}

// readContext reads a regular file, up to maxContextRead bytes.
func readContext(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxContextRead))
	return string(data), err
}

// contextDeny is the call's denial for a context file that reaches hit.
func contextDeny(d decide.Decision, file string, hit decide.Decision) decide.Decision {
	out := hit
	out.Access, out.Path = d.Access, d.Path
	if out.Resolved == "" {
		out.Resolved = d.Resolved
	}
	out.Reason = fmt.Sprintf("Gemini CLI would load the context file %s into the conversation, and it reads %s, which the policy denies (%s)", file, hit.Resolved, hit.Rule)
	out.Suggestion = fmt.Sprintf("ask the person to remove that import from %s; context files may not import denied paths", file)
	return out
}

// isUnder reports whether p is dir or below it.
func isUnder(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == '/'
}
