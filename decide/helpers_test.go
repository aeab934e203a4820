package decide_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/decide"
)

// tree is a real directory tree in t.TempDir(): a workspace, a fake home and
// an outside directory, all with their symlinks already resolved so expected
// paths can be written plainly.
type tree struct {
	t       testing.TB
	dir     string // the temp dir itself
	ws      string // workspace root
	home    string // fake $HOME
	outside string // a directory beside the workspace
}

func newTree(t testing.TB) *tree { t.Helper(); return newTreeIn(t, "") }

// newTreeIn is newTree one directory further down, named name.
func newTreeIn(t testing.TB, name string) *tree {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, name)
	tr := &tree{t: t, dir: dir, ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home"), outside: filepath.Join(dir, "outside")}
	for _, d := range []string{tr.ws, tr.home, tr.outside} {
		tr.mkdir(d)
	}
	return tr
}

// path joins names onto the temp dir, unless the first is absolute.
func (tr *tree) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(tr.dir, p)
}

func (tr *tree) mkdir(p string) string {
	tr.t.Helper()
	p = tr.path(p)
	if err := os.MkdirAll(p, 0o755); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

func (tr *tree) file(p string) string {
	tr.t.Helper()
	p = tr.path(p)
	tr.mkdir(filepath.Dir(p))
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

// link makes a symlink at link (relative to the temp dir) holding target
// exactly as given.
func (tr *tree) link(target, link string) string {
	tr.t.Helper()
	link = tr.path(link)
	tr.mkdir(filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		tr.t.Fatal(err)
	}
	return link
}

func (tr *tree) writeFile(p, content string) string {
	tr.t.Helper()
	p = tr.path(p)
	tr.mkdir(filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

// spec is a Spec rooted at the tree's workspace with its fake home.
func (tr *tree) spec() decide.Spec {
	return decide.Spec{Root: tr.ws, Home: tr.home}
}

func (tr *tree) compile(s decide.Spec) decide.Policy {
	tr.t.Helper()
	p, err := decide.Compile(s)
	if err != nil {
		tr.t.Fatalf("Compile: %v", err)
	}
	return p
}

func rules(patterns ...string) []decide.Rule { return decide.Rules("test", patterns...) }

// want is the expected outcome of one check: allow, or deny at a layer with
// a rule (and a pattern when one is named).
type want struct {
	allow   bool
	layer   decide.Layer
	rule    string
	pattern string
}

var allow = want{allow: true}

func denied(layer decide.Layer, rule string) want { return want{layer: layer, rule: rule} }

func (w want) at(pattern string) want { w.pattern = pattern; return w }

func (w want) check(t *testing.T, name string, d decide.Decision) {
	t.Helper()
	if d.Allow != w.allow {
		t.Errorf("%s = %s, want allow=%v", name, show(d), w.allow)
		return
	}
	if w.allow {
		return
	}
	if d.Layer != w.layer || d.Rule != w.rule || (w.pattern != "" && d.Pattern != w.pattern) {
		t.Errorf("%s = %s, want deny %s %s %q", name, show(d), w.layer, w.rule, w.pattern)
	}
}

func show(d decide.Decision) string {
	if d.Allow {
		return "allow " + d.Resolved
	}
	return "deny " + string(d.Layer) + " " + d.Rule + " " + d.Pattern + " " + d.Resolved + " (" + d.Reason + ")"
}
