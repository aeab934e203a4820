package persist

import (
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestGrantNamesNothingBelow: a persisted grant is one exact path. A file
// the agent has not created yet (a Write's new file) must not become a
// rule for a whole tree once the agent makes it a directory: an entry for
// "newfile" that also matched "newfile/evil.sh" would let every later
// session write below it without asking.
func TestGrantNamesNothingBelow(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/srv/out/newfile", "/srv/out/notes.txt", "/srv/out/-", "/srv/out/a*b"} {
		for _, access := range []string{"read", "write"} {
			res, err := grant(Options{Root: root, Access: access, Path: path, Now: clock()})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := decode([]byte(readFile(t, res.File)))
			if err != nil {
				t.Fatal(err)
			}
			key := map[string]string{"read": "allowRead", "write": "allowWrite"}[access]
			list := doc.(map[string]any)["filesystem"].(map[string]any)[key].([]any)
			entry := list[len(list)-1].(string)
			spec := decide.Spec{Root: "/nonexistent-workspace", Home: "/nonexistent", Mode: decide.WorkspaceWrite,
				DefaultDenyRead: true, StrictDenyRead: true}
			a := decide.Read
			if access == "write" {
				spec.AllowWrite, a = decide.Rules("test", entry), decide.Write
			} else {
				spec.AllowRead = decide.Rules("test", entry)
			}
			p := decide.MustCompile(spec)
			for q, want := range map[string]bool{path: true, path + "/evil.sh": false, path + "/sub/deep": false, path + "x": false} {
				d := decide.Decide(p, decide.Request{Access: a, Path: q, Resolved: q, Size: -1})
				if d.Allow != want {
					t.Errorf("persisted %s of %s as %q: %s allowed %v, want %v", access, path, entry, q, d.Allow, want)
				}
			}
		}
	}
}
