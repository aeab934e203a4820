package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/e2e"
)

// namesTree makes a workspace and a home under a fresh directory and the
// given files (relative to it) with some content.
func namesTree(t *testing.T, files ...string) (base, ws, home string) {
	t.Helper()
	// Outside /tmp, which the sandbox replaces with a private one and so
	// does not walk (a link there would not be met in home).
	wd, _ := os.Getwd()
	base = e2e.ScratchDir(t, "PICKET_SANDBOX_TMP", filepath.Join(filepath.Dir(wd), ".cache", "sandbox-tmp"), "/var/lib/picket-test")
	ws, home = filepath.Join(base, "ws"), filepath.Join(base, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, ws, home
}

func hiddenPaths(x expansion) []string {
	var out []string
	for _, h := range x.hide {
		out = append(out, h.Path)
	}
	return out
}

// agreeHidden checks that every path check denies for reading is hidden by
// the expansion, and that those it allows are not.
func agreeHidden(t *testing.T, s decide.Spec, x expansion, deny, allow []string) {
	t.Helper()
	p := decide.MustCompile(s)
	hidden := hiddenPaths(x)
	for _, f := range deny {
		if d := decide.Check(p, decide.Read, f, s.Root, -1); d.Allow {
			t.Fatalf("check allows %q; the test expects a deny", f)
		}
		if !under(f, hidden) {
			t.Errorf("check denies reading %q, but the sandbox does not hide it (hidden: %q)", f, hidden)
		}
	}
	for _, f := range allow {
		if d := decide.Check(p, decide.Read, f, s.Root, -1); !d.Allow {
			t.Fatalf("check denies %q; the test expects an allow", f)
		}
		if under(f, hidden) {
			t.Errorf("check allows reading %q, but the sandbox hides it", f)
		}
	}
}

// A blocklist glob is matched by decide's syntax: "[!x]" is a negated
// class and a backslash is a literal character. The walk's prefilter must
// not read them as path.Match does, or it skips what check denies.
func TestExpandBlocklistGlobSyntax(t *testing.T) {
	_, ws, home := namesTree(t, "ws/secreta", "ws/secretx", `ws/tok\enABC`, "ws/sub/keyZ", "ws/sub/key1")
	s := decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite,
		Blocklist: decide.Rules("test", "secret[!x]", `tok\en*`, "key[^0-9]")}
	x, err := expand(s, decide.SandboxSettings{}, ws, home, walkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	agreeHidden(t, s, x,
		[]string{ws + "/secreta", ws + `/tok\enABC`, ws + "/sub/keyZ"},
		[]string{ws + "/secretx", ws + "/sub/key1"})
}

// A walk reused from the cache must name the same paths as the walk that
// made it, whatever bytes they hold: JSON would turn a name that is not
// UTF-8 into another (U+FFFD), hiding a path that does not exist and
// leaving the denied one readable.
func TestExpandCacheKeepsNamesNotUTF8(t *testing.T) {
	_, ws, home := namesTree(t, "ws/a\xff.secret", "ws/b\xfe\xff.lock", "ws/ok.secret")
	cache := filepath.Join(t.TempDir(), "cache")
	s := decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite,
		DenyRead: decide.Rules("test", "**/*.secret"), DenyWrite: decide.Rules("test", "**/*.lock")}
	for i, what := range []string{"the first walk", "a reused walk"} {
		x, err := expand(s, decide.SandboxSettings{}, ws, home, walkOptions{cacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && x.stats.Read == 0 {
			t.Logf("%s came from the cache", what)
		}
		agreeHidden(t, s, x, []string{ws + "/a\xff.secret", ws + "/ok.secret"}, nil)
		if !slices.Contains(x.protect, ws+"/b\xfe\xff.lock") {
			t.Errorf("%s: %q is not protected (protect: %q)", what, ws+"/b\xfe\xff.lock", x.protect)
		}
		for _, h := range hiddenPaths(x) {
			if _, err := os.Lstat(h); err != nil {
				t.Errorf("%s hides %q, which does not exist", what, h)
			}
		}
	}
}

// With caseInsensitive, check folds paths with strings.ToLower, which
// takes "İ" (U+0130) for "i": the other spellings on disk the sandbox
// fences must be found by the same folding, for literal rules and for the
// literal directories of glob rules outside the workspace and home.
func TestExpandCaseVariantsFoldAsCheck(t *testing.T) {
	base, ws, home := namesTree(t, "ws/pr\u0130vate/s", "ws/private/s", "srv/DATA/a.csv", "srv/DATA/b.txt")
	s := decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite, CaseInsensitive: true,
		DenyRead: decide.Rules("test", "./private", base+"/srv/Data/*.csv")}
	x, err := expand(s, decide.SandboxSettings{}, ws, home, walkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	agreeHidden(t, s, x,
		[]string{ws + "/pr\u0130vate/s", ws + "/private/s", base + "/srv/DATA/a.csv"},
		[]string{base + "/srv/DATA/b.txt"})
}

// Under defaultDenyRead, a symlink an allow rule names is recreated once:
// bubblewrap refuses a second --symlink at the same path ("File exists"),
// and then no command runs at all. The rule's links and those the walk
// met in home are the same symlinks.
func TestPlanLinksOnce(t *testing.T) {
	base, ws, home := namesTree(t, "out/data/x", "out/data2/x")
	for _, l := range [][2]string{{base + "/out/data", home + "/l1"}, {home + "/l2b", home + "/l2"}, {base + "/out/data2", home + "/l2b"}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite, DefaultDenyRead: true, StrictDenyRead: true,
		AllowRead: decide.Rules("test", "~/l1", "~/l2")}
	l := &decide.Loaded{Policy: decide.MustCompile(s), Env: decide.Env{Cwd: ws, Home: home}}
	p, err := NewPlan(l, Options{Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range p.Links {
		if seen[l.Path] {
			t.Errorf("link %s is recreated twice (links: %v)", l.Path, p.Links)
		}
		seen[l.Path] = true
	}
	for _, want := range []string{home + "/l1", home + "/l2", home + "/l2b"} {
		if !seen[want] {
			t.Errorf("link %s is not recreated (links: %v)", want, p.Links)
		}
	}
}
