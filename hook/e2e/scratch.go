package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// ScratchDir makes a directory for one test run outside every place the
// `code` template makes writable (/tmp, /var/tmp, ~/.cache), so a tree in
// it says something about the fence: in the directory the environment
// variable override names, else under preferred unless that is itself in
// such a place (CI may clone anywhere, /tmp included), else under
// fallback. Symlinks in its path are resolved. It is removed unless the
// test fails.
func ScratchDir(t testing.TB, override, preferred, fallback string) string {
	t.Helper()
	parent := os.Getenv(override)
	if parent == "" {
		parent = preferred
		if writableByDefault(parent) {
			parent = fallback
		}
	}
	if writableByDefault(parent) {
		t.Fatalf("scratch dir %s is under a directory the code template makes writable; set %s", parent, override)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(parent, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept %s for inspection", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// writableByDefault reports whether dir (its parent resolved) is under
// /tmp, /var/tmp or ~/.cache.
func writableByDefault(dir string) bool {
	real := dir
	if r, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		real = filepath.Join(r, filepath.Base(dir))
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{"/tmp", "/var/tmp", filepath.Join(home, ".cache")} {
		if real == p || strings.HasPrefix(real, p+"/") {
			return true
		}
	}
	return false
}

// TempDirOverride names the directory below which [OwnTempDir] makes its
// directories, in place of the ones it tries.
const TempDirOverride = "PICKET_TEST_TMPDIR"

// OwnTempDir makes a directory for one test run that picket takes as the
// system temp dir (decide.SystemTempDir does not ignore a TMPDIR set to
// it) and that lies outside /tmp, /var/tmp and ~/.cache, so a test of a
// TMPDIR elsewhere (as on macOS and many CI runners) means the same
// wherever the clone lives. picket refuses a TMPDIR in a system tree, and
// CI may clone under /var/lib or /opt, so it tries below
// $PICKET_TEST_TMPDIR when set (and nothing else), else below preferred
// (the repository's .cache), ~/.picket-test-tmpdir and
// /srv/picket-test-tmpdir in turn, and takes the first picket takes. When
// none fits the test fails, naming each place and why. Symlinks in the
// path are resolved; it is removed unless the test fails.
func OwnTempDir(t testing.TB, preferred string) string {
	t.Helper()
	parents := []string{os.Getenv(TempDirOverride)}
	if parents[0] == "" {
		parents = []string{preferred, "/srv/picket-test-tmpdir"}
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			parents = slices.Insert(parents, 1, filepath.Join(home, ".picket-test-tmpdir"))
		}
	}
	var whyNot []string
	for _, parent := range parents {
		dir, why := ownTempDirBelow(t, parent)
		if why == "" {
			t.Cleanup(func() {
				if !t.Failed() {
					os.RemoveAll(dir)
				}
			})
			return dir
		}
		whyNot = append(whyNot, parent+": "+why)
	}
	t.Fatalf("found no directory picket takes as a TMPDIR outside /tmp (set %s to a directory of yours outside /tmp, /var/tmp, ~/.cache and the system trees):\n%s", TempDirOverride, strings.Join(whyNot, "\n"))
	return ""
}

// ownTempDirBelow makes a fresh directory below parent and returns it, or
// removes it again and says why picket would not take it as TMPDIR.
func ownTempDirBelow(t testing.TB, parent string) (dir, whyNot string) {
	if writableByDefault(parent) {
		return "", "the code template makes it writable anyway"
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err.Error()
	}
	dir, err := os.MkdirTemp(parent, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		return "", err.Error()
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if td := decide.SystemTempDir(dir, "", os.Getuid()); td.Ignored != "" {
		os.RemoveAll(dir)
		return "", "picket ignores it as TMPDIR: " + td.Why
	}
	return dir, ""
}
