package hook

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
)

// Judge decides every path a call touches against p; the first denial
// wins. targets are what the agent's Targets read from c: the caller lets
// a tool picket does not judge pass, and denies a call whose targets
// cannot be read, before it gets here. An error is the caller's to answer
// with a deny. [Agent.Judge] also asks the agent's Loads.
func Judge(p decide.Policy, c Call, targets []Target, ledger Ledger) (decide.Decision, error) {
	return judge(p, c, targets, ledger, nil)
}

// Judge is [Judge] with what the agent loads by itself judged too.
func (a *Agent) Judge(p decide.Policy, c Call, targets []Target, ledger Ledger) (decide.Decision, error) {
	return judge(p, c, targets, ledger, a.Loads)
}

func judge(p decide.Policy, c Call, targets []Target, ledger Ledger, loads func(decide.Policy, Call, Target, decide.Decision) (decide.Decision, bool)) (d decide.Decision, err error) {
	for _, t := range bothReadings(p, c, targets) {
		d = decide.Check(p, t.Access, t.Path, c.Dir(), t.Size)
		if d.Grantable() && c.Granted != nil && c.Granted(t.Access, d.Resolved) {
			d = decide.Decide(p, decide.Request{Access: t.Access, Path: d.Path, Resolved: d.Resolved, Size: t.Size, Granted: true})
		}
		if !d.Allow {
			return d, nil
		}
		if t.Recursive {
			if dd, denied, err := scan(p, c, t, d); err != nil || denied {
				return dd, err
			}
		}
		if t.Listing {
			if dd, denied := listsHidden(p, c, d); denied {
				return dd, nil
			}
		}
		if loads != nil {
			if dd, denied := loads(p, c, t, d); denied {
				return dd, nil
			}
		}
		if t.Access == decide.Write && p.Spec().WriteGuards.ReadBeforeEdit && t.Edit {
			if dd, denied, err := readBeforeEdit(d, c, ledger, readBeforeEditSource(p)); err != nil || denied {
				return dd, err
			}
		}
	}
	return d, nil
}

// bothReadings puts before a recursive or listing target whose path
// holds ".." the same target at the path read by text (decide.Lexical),
// as most agents read it: decide.Check judges both readings of the root,
// and the scan must walk both trees, the listing look in both directories.
func bothReadings(p decide.Policy, c Call, targets []Target) []Target {
	out := make([]Target, 0, len(targets))
	for _, t := range targets {
		if lex, ok := decide.Lexical(t.Path, c.Dir(), p.Spec().Home); ok && (t.Recursive || t.Listing) {
			l := t
			l.Path = lex
			out = append(out, l)
		}
		out = append(out, t)
	}
	return out
}

// scan denies a recursive tool whose root holds a denied path it would
// reach: a Grep over the project must not return a line of .env.
func scan(p decide.Policy, c Call, t Target, root decide.Decision) (decide.Decision, bool, error) {
	tool := c.Tool
	if _, err := os.Stat(root.Resolved); t.Root && errors.Is(err, fs.ErrNotExist) {
		// The agent may search another spelling of it (Claude Code trims
		// and normalizes after the hook), one picket cannot scan.
		d := root
		d.Allow, d.Layer, d.Rule = false, decide.LayerBoundary, "picket.scan"
		d.Reason = fmt.Sprintf("%s does not exist, so picket cannot tell what a search of it would reach", root.Resolved)
		d.Suggestion = "search a directory that exists, spelled exactly (no surrounding spaces)"
		return d, true, nil
	}
	links := t.Links
	if links == LinksSkipped && c.RipgrepConfig {
		links = LinksFollowed
	}
	hit, err := FindDenied(p, t.Access, root.Path, root.Resolved, Scan{Filter: t.Filter, Grep: t.FilterBase,
		Split: t.Split, Plain: t.Plain, Fnmatch: t.Fnmatch, Links: links, Cwd: c.Dir(), Granted: c.Granted})
	if err != nil {
		d := root
		d.Allow, d.Layer, d.Rule = false, decide.LayerBoundary, "picket.scan"
		d.Reason = err.Error()
		d.Suggestion = "search a narrower path"
		return d, true, nil
	}
	if hit == nil {
		return root, false, nil
	}
	d := hit.Decision
	if hidden(d) {
		// A direct call answers "no such file or directory" for a path
		// the policy hides (permission none): the block names the root
		// searched, not the path, its rule or where it is.
		h := root
		h.Allow, h.Layer, h.Rule, h.Pattern, h.Source = false, d.Layer, d.Rule, "", ""
		h.Reason = fmt.Sprintf("%s over %s would reach a path the policy hides", tool, root.Resolved)
		h.Suggestion = "search a narrower path, or pass a glob filter that limits the search to what you need"
		return h, true, nil
	}
	d.Reason = fmt.Sprintf("%s over %s would reach %s, which the policy denies (%s)", tool, root.Resolved, hit.Rel, d.Rule)
	if d.Suggestion == "" || d.Rule == decide.RulePermissions {
		d.Reason = fmt.Sprintf("%s over %s would reach a path the policy hides", tool, root.Resolved)
	}
	d.Suggestion = fmt.Sprintf("search a narrower path that does not contain %s, or pass a glob filter that excludes it", hit.Rel)
	return d, true, nil
}

// listsHidden denies a directory listing that would show the name of a
// path the policy hides (picket.permissions none), which a direct call is
// told does not exist. Other denied names (.env) may show: a listing
// holds no content. Only a policy that hides something pays for the look.
func listsHidden(p decide.Policy, c Call, dir decide.Decision) (decide.Decision, bool) {
	if !slices.ContainsFunc(p.Spec().Permissions, func(pm decide.Permission) bool { return pm.Permission == decide.LevelNone }) {
		return dir, false
	}
	f, err := os.Open(dir.Resolved)
	if err != nil {
		return dir, false // the tool cannot list it either
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return dir, false // a file lists as its own name
	}
	names, err := f.Readdirnames(ScanLimit + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(names) > ScanLimit {
		d := dir
		d.Allow, d.Layer, d.Rule = false, decide.LayerBoundary, "picket.scan"
		d.Reason = fmt.Sprintf("%s cannot list %s: picket could not read all of it to see that none of it is hidden", c.Tool, dir.Resolved)
		d.Suggestion = "list a smaller directory"
		return d, true
	}
	for _, n := range names {
		cd := decide.Check(p, decide.List, filepath.Join(dir.Resolved, n), c.Dir(), -1)
		if cd.Allow || !hidden(cd) {
			continue
		}
		d := dir
		d.Allow, d.Layer, d.Rule = false, cd.Layer, cd.Rule
		d.Reason = fmt.Sprintf("%s of %s would show a path the policy hides", c.Tool, dir.Resolved)
		d.Suggestion = "list a narrower directory, or name the files you need"
		return d, true
	}
	return dir, false
}

// hidden reports whether d denies a path the policy hides entirely
// (picket.permissions none), which a direct call is told does not exist.
func hidden(d decide.Decision) bool {
	return d.Rule == decide.RulePermissions && d.Reason == hiddenReason
}

// hiddenReason is decide's reason for a path the policy hides.
const hiddenReason = "no such file or directory"

// readBeforeEdit denies a write to an existing file whose content differs
// from what the agent last read (or that it never read in this session).
// source is the policy file that turned the guard on.
func readBeforeEdit(d decide.Decision, c Call, ledger Ledger, source string) (decide.Decision, bool, error) {
	if fi, err := os.Stat(d.Resolved); err != nil || !fi.Mode().IsRegular() {
		return d, false, nil // a new file: nothing to have read
	}
	seen, err := ledger.Seen(c.Session, d.Resolved)
	if err != nil {
		return d, true, err
	}
	now, err := HashFile(d.Resolved)
	if err != nil {
		return d, true, err
	}
	if seen == now {
		return d, false, nil
	}
	d.Allow, d.Layer, d.Rule, d.Pattern, d.Source = false, decide.LayerWriteGuard, decide.RuleReadBeforeEdit, "", source
	d.Reason = "the file changed since it was last read in this session, or was never read"
	if seen == "" {
		d.Reason = "the file was not read in this session"
	}
	d.Suggestion = "read the file again, then retry the edit"
	return d, true, nil
}

// BlockMessage is the reason the model reads: a plain first line, then a
// JSON object it can parse. A path the policy hides entirely (permission
// none) gets no pattern or source, so the model learns nothing about it.
func BlockMessage(tool string, d decide.Decision) string {
	type body struct {
		Tool       string        `json:"tool"`
		Access     decide.Access `json:"access"`
		Path       string        `json:"path"`
		Resolved   string        `json:"resolved"`
		Layer      decide.Layer  `json:"layer"`
		Rule       string        `json:"rule"`
		Pattern    string        `json:"pattern"`
		Source     string        `json:"source"`
		Reason     string        `json:"reason,omitempty"`
		Suggestion string        `json:"suggestion"`
	}
	b := body{tool, d.Access, d.Path, d.Resolved, d.Layer, d.Rule, d.Pattern, d.Source, d.Reason, d.Suggestion}
	if d.Reason == hiddenReason {
		b.Pattern, b.Source = "", ""
	}
	js, _ := json.MarshalIndent(b, "", "  ")
	return fmt.Sprintf("picket: blocked %s %s\n%s", oneLine(tool), oneLine(d.Path), asciiSafeJSON(js))
}

// ErrorMessage is the reason for a call denied because picket itself
// failed (bad input, broken policy, deadline).
func ErrorMessage(tool string, err error) string {
	return fmt.Sprintf("picket: error: %s denied: %s", oneLine(dashIfEmpty(tool)), oneLine(err.Error()))
}

// oneLine returns s as it is, or quoted by [escape.Field] when it holds
// anything picket's escaping rule escapes: a line break, a terminal escape
// (C1 controls included), a bidi override, a zero-width or blank rune, an
// invalid byte. Claude Code shows this line to the person too.
func oneLine(s string) string {
	if escape.Text(s) != s {
		return escape.Field(s)
	}
	return s
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "call"
	}
	return s
}

// asciiSafeJSON writes every rune beyond ASCII that escape does not show
// as itself (bidi overrides, zero-width and C1 characters, invisible
// letters) as a \uXXXX escape: the same JSON, but a path in it cannot
// reorder or hide text where the reason is displayed. encoding/json
// already escapes the controls below 0x20.
func asciiSafeJSON(js []byte) []byte {
	out := make([]byte, 0, len(js))
	for len(js) > 0 {
		r, size := utf8.DecodeRune(js)
		switch {
		case r < utf8.RuneSelf || escape.Shown(r):
			out = append(out, js[:size]...)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, "\\u%04x\\u%04x", hi, lo)
		default:
			out = fmt.Appendf(out, "\\u%04x", r)
		}
		js = js[size:]
	}
	return out
}

// readBeforeEditSource names the policy file that turned readBeforeEdit
// on; a Spec built in code may not record one, and then the file a person
// would edit stands in.
func readBeforeEditSource(p decide.Policy) string {
	s := p.Spec()
	return cmp.Or(s.Sources[decide.RuleReadBeforeEdit], s.Origin)
}
