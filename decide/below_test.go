package decide

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// belowPatterns are rule patterns of every shape the index files apart:
// literal directories, globs under a literal directory, "**/" names and
// extensions, "dir/**", classes, "**" inside a name, home and absolute.
var belowPatterns = []string{
	"**/secrets/**", "**/id_rsa", "~/.ssh/id_*", "~/.aws", "src/*.pem", "**/*.key", "**/.env*",
	"/etc/ssl/private", "a/**/b", "**/x/*/y", "sub/[ab]*", "**/[!a]*.txt", "~/**/cred*", "*.log",
	"**/d?r/**", "lib/**", "vendor", "a**b/c", "/w/p/gen/*/out/**", "**/Sub", "x/*", "**/*", "src",
	"**/b/**", "/w/*/src/*.go", "~/notes/**", "b", "lib", "/w/p/b", "**/b",
}

var belowNames = []string{"w", "p", "h", "u", "src", "secrets", "a", "b", "x", "y", "lib", "vendor", ".env",
	".env.local", "id_rsa", "k.pem", "dir", "dar", "gen", "out", "Sub", "sub", "cred.txt", "z.key", "aXb",
	"c", "t.txt", "q.log", ".ssh", ".aws", "notes", "SECRETS", "main.go", "é", "[x]"}

// randomSpec is a policy drawn from belowPatterns, with every setting
// that changes what Decide reads.
func randomSpec(r *rand.Rand) Spec {
	pick := func(n int) []Rule {
		var out []Rule
		for range r.IntN(n + 1) {
			out = append(out, Rule{Pattern: belowPatterns[r.IntN(len(belowPatterns))], Source: "test"})
		}
		return out
	}
	s := Spec{Root: "/w/p", Home: "/h/u", Mode: []Mode{WorkspaceWrite, ReadOnly, Full}[r.IntN(3)],
		DenyRead: pick(4), AllowRead: pick(2), AllowWrite: pick(2),
		DefaultDenyRead: r.IntN(3) == 0, StrictDenyRead: r.IntN(6) == 0, CaseInsensitive: r.IntN(4) == 0}
	for _, b := range []string{".env", ".env.*", "*.pem", "id_rsa*", "sec[r]et"} {
		if r.IntN(3) == 0 {
			s.Blocklist = append(s.Blocklist, Rule{Pattern: b, Source: "test"})
		}
	}
	// Permissions compete by priority: a higher one can let a directory
	// through that a lower one denies, and not its entries.
	for range r.IntN(5) {
		pm := Permission{Pattern: belowPatterns[r.IntN(len(belowPatterns))], Source: "test",
			Permission: []Level{LevelNone, LevelView, LevelRead, LevelWrite}[r.IntN(4)], Priority: r.IntN(4)}
		if !HasGlob(pm.Pattern) && r.IntN(2) == 0 {
			pm.Type = []string{"file", "directory"}[r.IntN(2)]
		}
		s.Permissions = append(s.Permissions, pm)
	}
	return s
}

func randomDir(r *rand.Rand) string {
	parts := []string{"", "/w/p", "/h/u", "/w/p/src", "/etc"}[r.IntN(5):][:1]
	for range r.IntN(4) {
		parts = append(parts, belowNames[r.IntN(len(belowNames))])
	}
	d := strings.Join(parts, "/")
	if d == "" {
		return "/"
	}
	return d
}

// TestBelowClearsOnlyAllows: for random policies, directories Decide
// allows (under one spelling or two) and entry names, an entry Clear
// clears is one Decide allows; and for the code template's kind of policy
// it clears the ordinary entries, so a search is not judged entry by
// entry.
func TestBelowClearsOnlyAllows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cleared, checked := 0, 0
	policies := 600
	if raceOn {
		policies = 60
	}
	for range policies {
		p, err := Compile(randomSpec(r))
		if err != nil {
			continue
		}
		for range 20 {
			res := randomDir(r)
			spelled := res
			if r.IntN(3) == 0 {
				spelled = randomDir(r) // a link's spelling
			}
			for _, a := range []Access{Read, List} {
				if !Decide(p, Request{Access: a, Path: spelled, Resolved: res, Size: -1}).Allow {
					continue
				}
				d := p.Below(a, spelled, res)
				for _, n := range belowNames {
					if !d.Clear(n) {
						continue
					}
					cleared++
					c := Decide(p, Request{Access: a, Path: join(spelled, n), Resolved: join(res, n), Size: -1})
					if !c.Allow {
						t.Fatalf("Below(%s, %q, %q).Clear(%q) = true, but Decide denies it (%s %s)\nspec: %+v",
							a, spelled, res, n, c.Rule, c.Pattern, p.Spec())
					}
				}
				checked++
			}
		}
	}
	if cleared == 0 || checked == 0 {
		t.Fatalf("cleared %d entries in %d directories: the test reaches nothing", cleared, checked)
	}
	t.Logf("cleared %d entries in %d directories", cleared, checked)

	code := MustCompile(Spec{Root: "/h/u/src/ws", Home: "/h/u", Mode: WorkspaceWrite,
		DenyRead:  Rules("test", "~/.ssh/id_*", "**/id_rsa", "~/.aws", "/etc/ssl/private", "~/.bash_history"),
		Blocklist: Rules("test", ".env", ".env.*")})
	d := code.Below(Read, "/h/u/src/ws/pkg1/src", "/h/u/src/ws/pkg1/src")
	for _, n := range []string{"a.js", "index.ts", "README.md", "node_modules"} {
		if !d.Clear(n) {
			t.Errorf("code policy: Clear(%q) = false, want it cleared", n)
		}
	}
	for _, n := range []string{".env", ".env.local", "id_rsa"} {
		if d.Clear(n) {
			t.Errorf("code policy: Clear(%q) = true, want it decided", n)
		}
	}
	if code.Below(Read, "/h/u", "/h/u").Clear(".ssh") {
		t.Errorf("code policy: Clear(.ssh) in home = true, want it decided (a rule is below it)")
	}
	if code.Below(Write, "/h/u/src/ws", "/h/u/src/ws").Clear("a.js") {
		t.Errorf("Clear for a write = true, want writes decided")
	}
}
