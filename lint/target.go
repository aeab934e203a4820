package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/schema"
	"github.com/tailscale/hujson"
)

// target is the policy under lint and what the checks share: the spec, the
// source of each file of the chain, and a policy holding only its denies.
type target struct {
	loaded *decide.Loaded
	spec   decide.Spec
	docs   map[string]*doc
	denies *decide.Policy // nil when the denies do not compile on their own
}

// doc is one file of the chain: its bytes and its decoded content.
type doc struct {
	src []byte
	v   any
}

func newTarget(l *decide.Loaded) *target {
	t := &target{loaded: l, spec: l.Policy.Spec(), docs: map[string]*doc{}}
	s := t.spec
	p, err := decide.Compile(decide.Spec{
		Root: s.Root, Home: s.Home, Mode: decide.Full, CaseInsensitive: s.CaseInsensitive,
		DenyRead: s.DenyRead, DenyWrite: s.DenyWrite, Blocklist: s.Blocklist, Mandatory: s.Mandatory,
	})
	if err == nil {
		t.denies = &p
	}
	return t
}

// entry is one pattern of the policy and the list that holds it.
type entry struct {
	rule  decide.Rule
	field string // dotted name: "filesystem.allowRead"
}

// Field names of the lists lint reads.
const (
	fieldAllowRead   = "filesystem.allowRead"
	fieldDenyRead    = "filesystem.denyRead"
	fieldAllowWrite  = "filesystem.allowWrite"
	fieldDenyWrite   = "filesystem.denyWrite"
	fieldBlocklist   = "picket.blocklist"
	fieldPermissions = "picket.permissions"
)

// entries returns the rules of the named lists, in list order.
func (t *target) entries(fields ...string) []entry {
	var out []entry
	for _, f := range fields {
		for _, r := range t.rules(f) {
			out = append(out, entry{rule: r, field: f})
		}
	}
	return out
}

func (t *target) rules(field string) []decide.Rule {
	s := t.spec
	switch field {
	case fieldAllowRead:
		return s.AllowRead
	case fieldDenyRead:
		return s.DenyRead
	case fieldAllowWrite:
		return s.AllowWrite
	case fieldDenyWrite:
		return s.DenyWrite
	case fieldBlocklist:
		return s.Blocklist
	case fieldPermissions:
		out := make([]decide.Rule, len(s.Permissions))
		for i, pm := range s.Permissions {
			out[i] = decide.Rule{Pattern: pm.Pattern, Source: pm.Source}
		}
		return out
	}
	panic("lint: bug: unknown field " + field)
}

// warn is a warning about e, placed at e's pattern in its file.
func (t *target) warn(e entry, code, format string, args ...any) Warning {
	line, col := t.position(e)
	return Warning{File: e.rule.Source, Line: line, Col: col, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// position finds e's pattern in its source file: the first element of the
// list equal to it (the merge drops later duplicates, so the first is the
// one in force). It returns 0, 0 when the file or the entry is gone.
func (t *target) position(e entry) (line, col int) {
	d := t.doc(e.rule.Source)
	if d == nil {
		return 0, 0
	}
	ptr := "/" + strings.ReplaceAll(e.field, ".", "/")
	list, _ := lookup(d.v, strings.Split(e.field, ".")).([]any)
	for i, el := range list {
		p := fmt.Sprintf("%s/%d", ptr, i)
		if m, ok := el.(map[string]any); ok && e.field == fieldPermissions {
			el, p = m["pattern"], p+"/pattern"
		}
		if s, ok := el.(string); ok && decide.ExpandTempDir(s, t.loaded.Env.TempDir) == e.rule.Pattern {
			return schema.Position(d.src, p)
		}
	}
	return 0, 0
}

func lookup(v any, keys []string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// doc reads and decodes one source of the chain once: a file, or a
// built-in template.
func (t *target) doc(source string) *doc {
	if d, ok := t.docs[source]; ok {
		return d
	}
	var d *doc
	if src, err := readSource(source); err == nil {
		d = &doc{src: src}
		if std, err := hujson.Standardize(bytes.Clone(src)); err == nil {
			json.Unmarshal(std, &d.v)
		}
	}
	t.docs[source] = d
	return d
}

func readSource(source string) ([]byte, error) {
	if name, ok := strings.CutPrefix(source, "builtin:"); ok {
		if src, found := decide.Template(name); found {
			return src, nil
		}
		return nil, fmt.Errorf("no built-in template %q", name)
	}
	src, _, err := decide.ReadPolicyFile(source)
	return src, err
}

// resolve canonicalizes an absolute path as decide would for a request;
// a path that cannot be resolved is kept as written.
func (t *target) resolve(p string) string {
	if _, r, err := decide.Canonicalize(p, t.spec.Root, t.spec.Home); err == nil {
		return r
	}
	return p
}

// matcher returns whether rule, alone in allowRead or allowWrite, matches
// a path, using decide's own matching. The probe policy is read-only with
// strictDenyRead, so a read passes the boundary only through the allow
// lists: exactly when the rule matches. A rule that does not compile on its
// own matches nothing.
func (t *target) matcher(field string, rule decide.Rule) func(path string) bool {
	s := decide.Spec{
		Root: t.spec.Root, Home: t.spec.Home, Mode: decide.ReadOnly,
		StrictDenyRead: true, CaseInsensitive: t.spec.CaseInsensitive,
	}
	if field == fieldAllowWrite {
		s.AllowWrite = []decide.Rule{rule}
	} else {
		s.AllowRead = []decide.Rule{rule}
	}
	p, err := decide.Compile(s)
	if err != nil {
		return func(string) bool { return false }
	}
	return func(path string) bool {
		r := decide.Request{Access: decide.Read, Path: path, Resolved: t.resolve(path), Size: -1}
		return decide.Decide(p, r).Allow
	}
}

// denied returns the decision of the policy's denies alone (denyRead,
// denyWrite, picket.blocklist and the mandatory denies) for access to path.
func (t *target) denied(access decide.Access, path string) (decide.Decision, bool) {
	if t.denies == nil {
		return decide.Decision{}, false
	}
	d := decide.Decide(*t.denies, decide.Request{Access: access, Path: path, Resolved: t.resolve(path), Size: -1})
	return d, !d.Allow
}

// home spells p with "~" when it is under the home directory.
func (t *target) home(p string) string {
	h := strings.TrimSuffix(t.spec.Home, "/")
	if h != "" && strings.HasPrefix(p, h+"/") {
		return "~" + p[len(h):]
	}
	return p
}
