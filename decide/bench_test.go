package decide_test

import (
	"fmt"
	"testing"

	"github.com/picketdev/picket/decide"
)

// benchSpec spreads n realistic rules over denyRead, allowRead, allowWrite
// and denyWrite: literal directories (absolute, relative and under ~),
// "**/name", "**/*.ext" and "~/..." globs.
func benchSpec(tr *tree, n int) decide.Spec {
	s := tr.spec()
	s.DefaultDenyRead = true
	s.Blocklist = rules(".env", "*.pem", "id_rsa*")
	lists := []*[]decide.Rule{&s.DenyRead, &s.AllowRead, &s.AllowWrite, &s.DenyWrite}
	for i := 0; i < n; i++ {
		var p string
		switch i % 6 {
		case 0:
			p = fmt.Sprintf("src/mod%d", i)
		case 1:
			p = fmt.Sprintf("/opt/vendor%d/lib", i)
		case 2:
			p = fmt.Sprintf("**/node_modules%d", i)
		case 3:
			p = fmt.Sprintf("**/*.ext%d", i)
		case 4:
			p = fmt.Sprintf("~/.config/app%d/*.json", i)
		case 5:
			p = fmt.Sprintf("~/.cache/tool%d", i)
		}
		l := lists[(i/6)%4]
		*l = append(*l, decide.Rule{Pattern: p, Source: "bench"})
	}
	s.AllowRead = append(s.AllowRead, rules(".")...)
	return s
}

// benchRequests are requests on a real tree, canonicalized once.
func benchRequests(b *testing.B, tr *tree) []decide.Request {
	paths := []string{
		"ws/src/mod6/pkg/deep/file.go", "ws/src/main.go", "ws/a/b/c/d/e/f.txt", "ws/web/node_modules2/x/index.js",
		"ws/data/blob.ext3", "home/.config/app4/settings.json", "home/.cache/tool5/x", "outside/x/y.txt",
		"ws/.env", "ws/new/dir/file.txt",
	}
	var reqs []decide.Request
	for i, p := range paths {
		if i < 7 {
			tr.file(p)
		}
		for _, acc := range []decide.Access{decide.Read, decide.Write} {
			abs, res, err := decide.Canonicalize(tr.path(p), tr.ws, tr.home)
			if err != nil {
				b.Fatal(err)
			}
			reqs = append(reqs, decide.Request{Access: acc, Path: abs, Resolved: res, Size: -1})
		}
	}
	return reqs
}

func BenchmarkDecide(b *testing.B) {
	tr := newTree(b)
	reqs := benchRequests(b, tr)
	for _, n := range []int{10, 100, 1000, 10000} {
		pol := decide.MustCompile(benchSpec(tr, n))
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				decide.Decide(pol, reqs[i%len(reqs)])
			}
		})
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	tr := newTree(b)
	tr.file("ws/a/b/c/d/e/f.txt")
	tr.link("a/b/c", "ws/link")
	for _, bc := range []struct{ name, path string }{
		{"existing-6-deep", "a/b/c/d/e/f.txt"},
		{"missing-tail", "a/b/c/missing/x/y/z.txt"},
		{"through-symlink", "link/d/e/f.txt"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := decide.Canonicalize(bc.path, tr.ws, tr.home); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchSpecMatches keeps the benchmark honest: its rules do match its
// requests, so the index is not measured on misses only.
func TestBenchSpecMatches(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/web/node_modules2/x/index.js")
	tr.file("ws/data/blob.ext3")
	pol := decide.MustCompile(benchSpec(tr, 100))
	d := decide.Check(pol, decide.Read, "web/node_modules2/x/index.js", tr.ws, -1)
	denied(decide.LayerBlocklist, decide.RuleDenyRead).at("**/node_modules2").check(t, "Check(read node_modules2/x/index.js)", d)
	d = decide.Check(pol, decide.Read, "data/blob.ext3", tr.ws, -1)
	denied(decide.LayerBlocklist, decide.RuleDenyRead).at("**/*.ext3").check(t, "Check(read data/blob.ext3)", d)
}
