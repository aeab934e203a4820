package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/internal/testenv"
)

func TestWildmatch(t *testing.T) {
	for _, tt := range []struct {
		pat, name string
		match, ok bool
	}{
		{"*.go", "a/b/c.go", true, true},
		{"*.go", "c.go", true, true},
		{"*.go", "c.gox", false, true},
		{"src/*", "src/a/b", true, true},
		{"s?c", "s/c", true, true},
		{"sub[+-1].env", "sub/.env", true, true}, // a range over "/"
		{"[!a]x", "bx", true, true},
		{"[^a]x", "ax", false, true},
		{"[]]", "]", true, true},
		{"[a-]", "-", true, true},
		{`\*`, "*", true, true},
		{`\*`, "x", false, true},
		{"{a,b}.env", "{a,b}.env", true, true},
		{"{a,b}.env", "a.env", false, true},
		{"a*b*c", "axxbyyc", true, true},
		{"a*b*c", "axxbyy", false, true},
		{"", "", true, true},
		{"[[:alpha:]]", "a", false, false},
		{"[ab", "a", false, false},
		{`ab\`, "ab", false, true},
		{`x\`, "xy", false, false},
	} {
		m, ok := wildmatch(tt.pat, tt.name)
		if m != tt.match || ok != tt.ok {
			t.Errorf("wildmatch(%q, %q) = %v, %v; want %v, %v", tt.pat, tt.name, m, ok, tt.match, tt.ok)
		}
	}
}

func TestFnmatchReaches(t *testing.T) {
	for _, tt := range []struct {
		pat, rel  string
		dir, want bool
	}{
		{"*.go", "sub/.env", false, false},
		{"*.go", "sub", true, true},
		{"sub*", "sub/.env", false, true}, // git: "*" spans the slash
		{"src", "src/.env", false, true},  // a literal directory takes all below it
		{"src/", "src/.env", false, true},
		{"./src", "src/.env", false, true},
		{"src", "srcx/.env", false, false},
		{"src/*.go", "lib", true, false},
		{"src/*.go", "src", true, true},
		{"src/a*", "src/ab", true, true},
		{"src/a*", "src", true, true},
		{"s?c/x", "s/c", true, true},
		{"{a,b}.env", "sub/{a,b}.env", false, true}, // grep --include: the base name, no braces
		{".ENV", ".env", false, true},
		{":(exclude)x", ".env", false, true},
		{"../proj/.env", ".env", false, true},
		{"/abs/.env", ".env", false, true},
		{"[[:alpha:]]*", ".env", false, true},
	} {
		if got := fnmatchReaches(tt.pat, tt.rel, tt.dir); got != tt.want {
			t.Errorf("fnmatchReaches(%q, %q, dir %v) = %v, want %v", tt.pat, tt.rel, tt.dir, got, tt.want)
		}
	}
}

// TestFnmatchAgainstGit: every file the real git grep and GNU grep search
// for a pathspec or --include glob is one fnmatchReaches says they
// reach, with every directory on its way.
func TestFnmatchAgainstGit(t *testing.T) {
	for _, tool := range []string{"git", "grep"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, tool+" is not installed")
		}
	}
	root := t.TempDir()
	files := []string{".env", "a.go", "sub/.env", "sub/b.go", "src/x/y.go", "src/x/.env", "srcx/.env",
		"{a,b}.env", "deep/{a,b}.env", "s/c", "A.GO", "sub.d/z.txt", "-dash/f.go", "sp ace/f.go"}
	for _, f := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("needle\n"), 0o644)
	}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "LC_ALL=C")
	git := exec.Command("git", "init", "-q")
	git.Dir, git.Env = root, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	pats := []string{"*.go", "sub*", "src", "src/", "./src", "s?c", "src/*", "*/.env", "*.env", "{a,b}.env",
		"*.GO", "sub[+-1].env", "[!a]*", "?", "*", "s*/c", "src/x", "sub.d", "*x*"}
	for _, pat := range pats {
		gitCmd := exec.Command("git", "grep", "-l", "--untracked", "-n", "-E", "--ignore-case", "needle", "--", pat)
		grepCmd := exec.Command("grep", "-r", "-l", "-I", "-i", "--include="+pat, "needle", ".")
		for _, cmd := range []*exec.Cmd{gitCmd, grepCmd} {
			cmd.Dir, cmd.Env = root, env
			out, _ := cmd.Output() // exit 1: nothing found
			for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f = strings.TrimPrefix(f, "./")
				if f == "" {
					continue
				}
				if !fnmatchReaches(pat, f, false) {
					t.Errorf("%s searches %s for %q; fnmatchReaches says it does not reach it", cmd.Args[0], f, pat)
				}
				for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
					if !fnmatchReaches(pat, d, true) {
						t.Errorf("%s searches %s for %q; fnmatchReaches does not let it into %s", cmd.Args[0], f, pat, d)
					}
				}
			}
		}
	}
}

// TestFindDeniedFnmatch: a filter git reads as reaching below a
// directory blocks the search when the tool may run git grep, and not
// when only ripgrep's reading counts.
func TestFindDeniedFnmatch(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", ".env"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(ws, "sub", "a.go"), []byte("x"), 0o644)
	p := decide.MustCompile(decide.Spec{Root: ws, Home: filepath.Join(base, "home"), Mode: decide.WorkspaceWrite,
		Blocklist: decide.Rules("test", ".env")})
	for _, tt := range []struct {
		filter  string
		fnmatch bool
		want    string
	}{
		{"sub*", false, ""},
		{"sub*", true, "sub/.env"},
		{"*.go", true, ""},
		{"sub", true, "sub/.env"},
		{"", true, "sub/.env"},
	} {
		hit, err := FindDenied(p, decide.Read, ws, ws, Scan{Filter: tt.filter, Grep: true, Fnmatch: tt.fnmatch, Links: LinksFollowed})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if hit != nil {
			got = hit.Rel
		}
		if got != tt.want {
			t.Errorf("FindDenied(filter %q, fnmatch %v) found %q, want %q", tt.filter, tt.fnmatch, got, tt.want)
		}
	}
}
