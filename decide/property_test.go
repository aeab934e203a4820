package decide_test

import (
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// propTree is a small tree with names the random policies also use, and
// symlinks inside, outside and in between.
func propTree(t *testing.T) *tree {
	tr := newTree(t)
	for _, f := range []string{"ws/a/b/c.txt", "ws/a/.env", "ws/b/x.pem", "ws/c/a/b", "outside/a/secret.txt", "outside/b/x.pem", "home/.ssh/id_rsa"} {
		tr.file(f)
	}
	tr.link("a/b", "ws/l1")
	tr.link(tr.outside, "ws/out")
	tr.link("../outside/b", "ws/l2")
	tr.link(filepath.Join(tr.home, ".ssh"), "ws/keys")
	tr.link("l1/../../c", "ws/l3")
	return tr
}

var (
	propNames = []string{"a", "b", "c", ".env", "x.pem", "c.txt", "l1", "l2", "l3", "out", "keys", "id_rsa", "new", "..", "."}
	propGlobs = []string{"*", "?", "*.pem", "*.txt", ".env*", "[ab]", "[!a]", "**", "x.*", "c*"}
)

// randPattern builds a pattern in one of the forms picket accepts.
func randPattern(r *rand.Rand, tr *tree) string {
	part := func() string {
		if r.Intn(3) == 0 {
			return propGlobs[r.Intn(len(propGlobs))]
		}
		n := propNames[r.Intn(len(propNames)-2)] // no ".." or "." in patterns
		return n
	}
	var parts []string
	for i := r.Intn(3) + 1; i > 0; i-- {
		parts = append(parts, part())
	}
	rest := strings.Join(parts, "/")
	switch r.Intn(6) {
	case 0:
		return "**/" + rest
	case 1:
		return filepath.Join(tr.ws, rest)
	case 2:
		return filepath.Join(tr.outside, rest)
	case 3:
		return "~/" + rest
	case 4:
		return "."
	}
	return rest
}

func randPath(r *rand.Rand, tr *tree) string {
	var parts []string
	for i := r.Intn(4) + 1; i > 0; i-- {
		parts = append(parts, propNames[r.Intn(len(propNames))])
	}
	p := strings.Join(parts, "/")
	switch r.Intn(4) {
	case 0:
		return filepath.Join(tr.outside, p)
	case 1:
		return "~/" + p
	}
	return p
}

func randRules(r *rand.Rand, tr *tree, max int) []decide.Rule {
	var pats []string
	for i := r.Intn(max + 1); i > 0; i-- {
		pats = append(pats, randPattern(r, tr))
	}
	return rules(pats...)
}

func randSpec(r *rand.Rand, tr *tree) decide.Spec {
	s := tr.spec()
	s.Mode = []decide.Mode{decide.ReadOnly, decide.WorkspaceWrite, decide.Full}[r.Intn(3)]
	s.AllowRead, s.AllowWrite = randRules(r, tr, 3), randRules(r, tr, 3)
	s.DenyRead, s.DenyWrite = randRules(r, tr, 3), randRules(r, tr, 3)
	s.DefaultDenyRead = r.Intn(2) == 0
	s.StrictDenyRead = r.Intn(4) == 0
	s.CaseInsensitive = r.Intn(5) == 0
	for i := r.Intn(3); i > 0; i-- {
		s.Blocklist = append(s.Blocklist, rules(propGlobs[r.Intn(len(propGlobs))], propNames[r.Intn(len(propNames)-2)])[r.Intn(2)])
	}
	levels := []decide.Level{decide.LevelNone, decide.LevelView, decide.LevelRead, decide.LevelWrite}
	for i := r.Intn(3); i > 0; i-- {
		s.Permissions = append(s.Permissions, decide.Permission{Pattern: randPattern(r, tr), Permission: levels[r.Intn(4)], Priority: r.Intn(3), Source: "test"})
	}
	return s
}

// TestPropertyDenyWins: a path matched by any deny entry is never allowed,
// whatever the allow lists, the permissions and the mode say. A single-rule
// policy (in full mode, with nothing else) is the oracle for "matched".
func TestPropertyDenyWins(t *testing.T) {
	tr := propTree(t)
	r := rand.New(rand.NewSource(1))
	checked := 0
	for i := 0; i < 400; i++ {
		s := randSpec(r, tr)
		pol, err := decide.Compile(s)
		if err != nil {
			t.Fatalf("Compile(%+v): %v", s, err)
		}
		for j := 0; j < 10; j++ {
			path := randPath(r, tr)
			for _, acc := range []decide.Access{decide.List, decide.Read, decide.Write} {
				d := decide.Check(pol, acc, path, tr.ws, -1)
				if !d.Allow {
					continue
				}
				lists := map[string][]decide.Rule{decide.RuleDenyRead: s.DenyRead, decide.RuleBlocklist: s.Blocklist}
				if acc == decide.Write {
					lists = map[string][]decide.Rule{decide.RuleDenyWrite: s.DenyWrite, decide.RuleBlocklist: s.Blocklist}
				}
				for rule, list := range lists {
					for _, deny := range list {
						one := decide.Spec{Root: s.Root, Home: s.Home, Mode: decide.Full, CaseInsensitive: s.CaseInsensitive}
						switch rule {
						case decide.RuleDenyRead:
							one.DenyRead = []decide.Rule{deny}
						case decide.RuleDenyWrite:
							one.DenyWrite = []decide.Rule{deny}
						default:
							one.Blocklist = []decide.Rule{deny}
						}
						od := decide.Check(decide.MustCompile(one), acc, path, tr.ws, -1)
						checked++
						if !od.Allow && od.Rule == rule {
							t.Errorf("policy %d: Check(%s %s) = %s, but %s %q alone denies it\nspec: %+v", i, acc, path, show(d), rule, deny.Pattern, s)
						}
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d deny entries were checked against an allow", checked)
	}
}

// TestPropertyEmptyAllowWrite: with no allowWrite and no permissions, a
// write is allowed only where the mode adds it: the workspace in
// workspace-write, anywhere in full, nowhere in read-only.
func TestPropertyEmptyAllowWrite(t *testing.T) {
	tr := propTree(t)
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 400; i++ {
		s := randSpec(r, tr)
		s.AllowWrite, s.Permissions = nil, nil
		pol := decide.MustCompile(s)
		for j := 0; j < 10; j++ {
			path := randPath(r, tr)
			d := decide.Check(pol, decide.Write, path, tr.ws, -1)
			if !d.Allow {
				continue
			}
			inside := d.Resolved == tr.ws || strings.HasPrefix(d.Resolved, tr.ws+"/")
			if s.CaseInsensitive {
				inside = inside || strings.HasPrefix(strings.ToLower(d.Resolved), strings.ToLower(tr.ws)+"/")
			}
			switch {
			case s.Mode == decide.ReadOnly:
				t.Errorf("read-only: Check(write %s) = %s", path, show(d))
			case s.Mode == decide.WorkspaceWrite && !inside:
				t.Errorf("workspace-write with no allowWrite: Check(write %s) = %s, outside the workspace", path, show(d))
			}
		}
	}
}

// TestPropertyNoRuleDropped: a pattern that cannot compile is an error
// naming it, and one that compiles is applied: a deny on a literal path
// denies that path.
func TestPropertyNoRuleDropped(t *testing.T) {
	tr := propTree(t)
	r := rand.New(rand.NewSource(3))
	const alphabet = "ab.*?[]!^-\\{},/~"
	errs := 0
	for i := 0; i < 500; i++ {
		b := make([]byte, r.Intn(8)+1)
		for k := range b {
			b[k] = alphabet[r.Intn(len(alphabet))]
		}
		pat := string(b)
		for _, field := range []string{"denyRead", "permissions", "blocklist"} {
			s := tr.spec()
			switch field {
			case "denyRead":
				s.DenyRead = rules("**/*.pem", pat, "c")
			case "permissions":
				s.Permissions = []decide.Permission{{Pattern: pat, Permission: decide.LevelNone, Source: "test"}}
			case "blocklist":
				s.Blocklist = rules(".env", pat)
			}
			_, err := decide.Compile(s)
			if err != nil {
				errs++
				if msg := err.Error(); !strings.Contains(msg, strconv.Quote(pat)) {
					t.Errorf("Compile with %s %q: error %q does not name the pattern", field, pat, msg)
				}
			}
		}
	}
	t.Logf("%d of 1500 random patterns were refused", errs)

	// Literal patterns are never dropped: each denies its own path.
	for i := 0; i < 300; i++ {
		pat := randPattern(r, tr)
		if strings.ContainsAny(pat, "*?[") {
			continue
		}
		s := tr.spec()
		s.DenyRead = append(randRules(r, tr, 20), rules(pat)...)
		s.DenyWrite = rules(pat)
		pol := decide.MustCompile(s)
		path := strings.Replace(pat, "~", tr.home, 1)
		for _, acc := range []decide.Access{decide.Read, decide.Write} {
			if d := decide.Check(pol, acc, path+"/below", tr.ws, -1); d.Allow {
				t.Errorf("deny %q: Check(%s %s/below) = %s", pat, acc, path, show(d))
			}
		}
	}
}
