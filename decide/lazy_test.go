package decide_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestLazySetsConcurrent: a policy builds each list's index on first use.
// Many goroutines deciding at once on a fresh policy (as picket serve's
// do) get exactly the decisions of a policy used by one goroutine, and the
// race detector sees no unsynchronised build.
func TestLazySetsConcurrent(t *testing.T) {
	tr := newTree(t)
	tr.file("real/keys/k.txt")
	tr.link(filepath.Join(tr.dir, "real"), "ws/inlink")
	s := tr.spec()
	s.Mode = decide.WorkspaceWrite
	s.DenyRead = rules("inlink/keys", "**/*.pem")
	s.DenyWrite = rules("inlink/**", "gen/*.go")
	s.AllowWrite = rules(filepath.Join(tr.dir, "real"))
	s.Mandatory = rules("**/fence.jsonc")
	var reqs []struct {
		a decide.Access
		p string
	}
	for _, p := range []string{"a.go", "gen/x.go", "fence.jsonc", "inlink/keys/k.txt", filepath.Join(tr.dir, "real/keys/k.txt"),
		filepath.Join(tr.dir, "real/new"), "x.pem", filepath.Join(tr.outside, "o")} {
		for _, a := range []decide.Access{decide.Read, decide.Write, decide.List} {
			reqs = append(reqs, struct {
				a decide.Access
				p string
			}{a, p})
		}
	}
	want := map[string]decide.Decision{}
	seq := tr.compile(s)
	for _, r := range reqs {
		want[fmt.Sprint(r.a, r.p)] = decide.Check(seq, r.a, r.p, tr.ws, 1)
	}
	for round := range 5 {
		pol := tr.compile(s)
		var wg sync.WaitGroup
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range reqs {
					r := reqs[(i+g)%len(reqs)]
					if got := decide.Check(pol, r.a, r.p, tr.ws, 1); got != want[fmt.Sprint(r.a, r.p)] {
						t.Errorf("round %d: %s %s = %+v, want %+v", round, r.a, r.p, got, want[fmt.Sprint(r.a, r.p)])
					}
				}
			}()
		}
		wg.Wait()
	}
	// The link's resolved spelling is in effect both ways.
	if d := want[fmt.Sprint(decide.Read, filepath.Join(tr.dir, "real/keys/k.txt"))]; d.Allow {
		t.Errorf("read of the resolved path under a denied link = %+v, want a deny", d)
	}
	if d := want[fmt.Sprint(decide.Write, filepath.Join(tr.dir, "real/new"))]; d.Allow {
		t.Errorf("write below a denyWrite link's target = %+v, want a deny", d)
	}
}
