package decide_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
)

// fuzzTree is propTree plus a loop and a dangling link, for fuzzers (which
// take a *testing.F, not a *testing.T).
func fuzzTree(f *testing.F) *tree {
	tr := newTree(f)
	for _, p := range []string{"ws/a/b/c.txt", "ws/a/.env", "ws/b/x.pem", "outside/a/secret.txt", "home/.ssh/id_rsa"} {
		tr.file(p)
	}
	tr.link("a/b", "ws/l1")
	tr.link(tr.outside, "ws/out")
	tr.link("../outside/a", "ws/l2")
	tr.link(filepath.Join(tr.home, ".ssh"), "ws/keys")
	tr.link("loop2", "ws/loop1")
	tr.link("loop1", "ws/loop2")
	tr.link("../outside/created", "ws/dangling")
	tr.link("l1/../../b", "ws/l3")
	return tr
}

// canonSeeds are the paths of the table tests.
var canonSeeds = []string{
	"a/b/c.txt", "./a//b/./c.txt", "l1/../b/x.pem", "l1/../../x", "out/a/secret.txt", "l2/../../ws",
	"loop1/x", "dangling", "dangling/deeper", "missing/../l1/c.txt", "l1/missing/../../..", "a/b/c.txt/x",
	"~/.ssh/id_rsa", "~", "keys/id_rsa", "../ws-evil/x", "a\x00b", strings.Repeat("a/", 2500), "/", "/..",
	"a/b/", "l3/x.pem", "..", "../../../../..", "l1/../l1/../l1",
}

// FuzzCanonicalize: Canonicalize never panics, is idempotent, and for a path
// that exists names the same file os.Stat reaches.
func FuzzCanonicalize(f *testing.F) {
	tr := fuzzTree(f)
	for _, s := range canonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, resolved, err := decide.Canonicalize(p, tr.ws, tr.home)
		if err != nil {
			var pe interface{ Unwrap() error }
			if !errors.As(err, &pe) || resolved != "" {
				t.Fatalf("Canonicalize(%q) = %q, %v: want an unwrappable error and no path", p, resolved, err)
			}
			if fi, serr := os.Stat(abs); serr == nil && inTree(tr, abs) {
				t.Fatalf("Canonicalize(%q) = %v, but os.Stat reaches %s", p, err, fi.Name())
			}
			return
		}
		if !filepath.IsAbs(resolved) || filepath.Clean(resolved) != resolved {
			t.Fatalf("Canonicalize(%q) = %q: not a clean absolute path", p, resolved)
		}
		_, again, err := decide.Canonicalize(resolved, "/", tr.home)
		if err != nil || again != resolved {
			t.Fatalf("Canonicalize(%q) = %q, but Canonicalize(%q) = %q, %v", p, resolved, resolved, again, err)
		}
		// /proc's magic links do not name paths; keep to the tree.
		if !inTree(tr, resolved) {
			return
		}
		want, err := os.Stat(abs)
		if err != nil {
			return
		}
		got, err := os.Stat(resolved)
		if err != nil || !os.SameFile(want, got) {
			t.Fatalf("Canonicalize(%q) = %q (%v), which is not the file os.Stat(%q) reaches", p, resolved, err, abs)
		}
	})
}

func inTree(tr *tree, p string) bool {
	return p == tr.dir || strings.HasPrefix(p, tr.dir+"/")
}

// configSeeds are policy files of the config tests, good and bad.
var configSeeds = []string{
	`{}`, ``, "  \n", `{"extends": "@base"}`, `{"extends": "code-strict"}`, `{"extends": "./other.jsonc"}`,
	`{"extends": "./fence.jsonc"}`, `{"extends": "nope"}`,
	`{"extends": "code", "filesystem": {"denyRead": ["**/ok", "src/[z-a].txt"]}}`,
	`{"picket": {"blocklist": ["a/b", "[z-a]"], "permissions": [{"pattern": "[9-0]", "permission": "none"}]}}`,
	`{"picket": {"caseInsensitive": true}, "filesystem": {"allowRead": ["[Z-a]"]}}`,
	"{\n  // comment\n  \"filesystem\": {\"defaultDenyRead\": true, \"allowRead\": [\".\"], \"allowWrite\": [\".\"],},\n}",
	`{"filesystem": {"denyRead": ["~/.ssh/**", "**/*.pem", "[", "a[b"], "denyWrite": ["**/.env"]}}`,
	`{"picket": {"mode": "read-only", "blocklist": [".env", "*.pem"], "writeGuards": {"maxBytes": 10, "denyExtensions": [".exe"]}}}`,
	`{"picket": {"permissions": [{"pattern": "**", "permission": "read"}, {"pattern": "secrets", "permission": "none", "type": "directory", "priority": 5}]}}`,
	`{"picket": {"caseInsensitive": "auto"}}`, `{"picket": {"caseInsensitive": 3}}`,
	`{"bogus": 1}`, `{"filesystem": {"allowRead": [. ]}}`, `{"filesystem": {"allowRead": [1]}}`, `[]`, `null`, `{"a":`,
	`{"network": {"allowedDomains": ["example.com"]}, "$schema": "x"}`,
	`{"network":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	"{\"filesystem\": {\"denyRead\": [\"key\xff\", \"k\\ud800\"]}}",
	`{"filesystem": {"denyRead": ["**/secrets/", "secrets/*/", "**/secrets//*", "sub/*/./b.txt", "sub/*/../x"]}}`,
	"hvs.CAESIJsupersecret\n", `{"extends": "/dev/zero"}`, `{"extends": "./fifo.jsonc"}`,
}

// FuzzLoad: loading any policy file never panics or hangs; it gives a
// policy or an error, an error from a file's shape names the file, a
// pattern that does not compile is a problem at file:line:col, and no
// loaded pattern holds U+FFFD (bytes that were not UTF-8).
func FuzzLoad(f *testing.F) {
	tr := fuzzTree(f)
	tr.writeFile("ws/other.jsonc", `{"filesystem": {"denyRead": ["x"]}}`)
	if err := syscall.Mkfifo(tr.path("ws/fifo.jsonc"), 0o600); err != nil {
		f.Fatal(err)
	}
	for _, s := range configSeeds {
		f.Add(s)
	}
	fence := filepath.Join(tr.ws, "fence.jsonc")
	env := decide.Env{Cwd: tr.ws, Home: tr.home, ConfigHome: tr.path("xdg"), StateHome: tr.path("state"), ProjectDir: tr.ws}
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(fence, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := decide.Load(env)
		if err != nil {
			if l != nil {
				t.Fatalf("Load = %v and a policy", err)
			}
			var pe *decide.ProblemsError
			if !errors.As(err, &pe) && (strings.Contains(err.Error(), "does not compile") || strings.Contains(err.Error(), "blocklist entry")) {
				t.Fatalf("Load = %v: a pattern problem without a position", err)
			}
			if errors.As(err, &pe) {
				for _, p := range pe.Problems {
					if p.File == "" || p.Line < 1 || p.Col < 1 {
						t.Fatalf("problem without a position: %+v", p)
					}
				}
			}
			return
		}
		if len(l.Chain) == 0 || l.Chain[len(l.Chain)-1] != fence {
			t.Fatalf("Load chain = %q, want it to end in %s", l.Chain, fence)
		}
		sp := l.Policy.Spec()
		for _, r := range slices.Concat(sp.AllowRead, sp.DenyRead, sp.AllowWrite, sp.DenyWrite) {
			if strings.ContainsRune(r.Pattern, utf8.RuneError) {
				t.Fatalf("Load of %q kept pattern %q, which holds U+FFFD", src, r.Pattern)
			}
		}
		decide.Check(l.Policy, decide.Read, "a/b/c.txt", tr.ws, -1)
	})
}

// patternSeeds are patterns of the table tests.
var patternSeeds = []string{
	"**/secrets/**", "secrets/**", "**/*.pem", "~/.ssh/id_*", ".", "./src", "src/**", "*.pem", "a[1]", "[", "[]", "[^a]",
	"{a,b}", `\`, "**", "~", "/", "**/.env*", "l1/**", "out", "a/**/c.txt", "/tmp", "x/../y", "\x00",
	"src/[z-a].txt", "[Z-a]", "a/b", "id_[9-0]*", `[\]`,
}

// FuzzCompilePattern: compiling any pattern never panics, an error names
// the pattern, and adding it as a deny rule never turns a deny into an
// allow.
func FuzzCompilePattern(f *testing.F) {
	tr := fuzzTree(f)
	for i, s := range patternSeeds {
		f.Add(s, canonSeeds[i%len(canonSeeds)], uint8(i))
	}
	base := tr.spec()
	base.DefaultDenyRead = true
	base.AllowRead = rules(".", "~/.cache")
	base.DenyRead = rules("**/*.pem", "~/.ssh")
	base.DenyWrite = rules("**/.env")
	base.Blocklist = rules("id_rsa*")
	base.Permissions = []decide.Permission{{Pattern: "a/**", Permission: decide.LevelRead, Source: "test"}}
	basePol := decide.MustCompile(base)
	f.Fuzz(func(t *testing.T, pattern, path string, which uint8) {
		s := base
		field := []string{"denyRead", "denyWrite", "blocklist", "permissions none"}[which%4]
		switch which % 4 {
		case 0:
			s.DenyRead = append(append([]decide.Rule{}, base.DenyRead...), rules(pattern)...)
		case 1:
			s.DenyWrite = append(append([]decide.Rule{}, base.DenyWrite...), rules(pattern)...)
		case 2:
			s.Blocklist = append(append([]decide.Rule{}, base.Blocklist...), rules(pattern)...)
		case 3:
			// A "none" rule outranking every other permission is a deny too.
			s.Permissions = append(append([]decide.Permission{}, base.Permissions...),
				decide.Permission{Pattern: pattern, Permission: decide.LevelNone, Priority: 1 << 20, Source: "test"})
		}
		pol, err := decide.Compile(s)
		if err != nil {
			if pattern == "" && strings.Contains(err.Error(), "empty") {
				return
			}
			if !strings.Contains(err.Error(), strconv.Quote(pattern)) {
				t.Fatalf("Compile with %s %q: error %q does not name it", field, pattern, err)
			}
			return
		}
		abs, resolved, err := decide.Canonicalize(path, tr.ws, tr.home)
		if err != nil {
			return
		}
		for _, acc := range []decide.Access{decide.List, decide.Read, decide.Write} {
			req := decide.Request{Access: acc, Path: abs, Resolved: resolved, Size: -1}
			before, after := decide.Decide(basePol, req), decide.Decide(pol, req)
			if !before.Allow && after.Allow {
				t.Fatalf("adding %s %q turned %s of %q from %s into an allow", field, pattern, acc, path, show(before))
			}
		}
	})
}
