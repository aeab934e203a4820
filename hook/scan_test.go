package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

func TestReachable(t *testing.T) {
	tests := []struct {
		filter string
		grep   bool
		rel    string
		dir    bool
		want   bool
	}{
		{"", true, ".env", false, true},
		{"*.md", true, ".env", false, false},
		{"*.md", true, "docs/a.md", false, true},
		{"*.md", true, "secrets", true, true}, // a base-name glob reaches below any dir
		{"*.{md,go}", true, ".env", false, false},
		{"*.{md,env}", true, "x.env", false, true},
		{"!*.md", true, ".env", false, true}, // ripgrep: everything but *.md
		{"*.md,.env", true, ".env", false, true},
		{"*.md .env", true, ".env", false, true},
		{"*.md, *.go", true, ".env", false, false},
		{" ", true, ".env", false, true}, // no glob at all
		{".[!x]nv", true, ".env", false, true},
		{".[!e]nv", true, ".env", false, false}, // a shell class negation, read as such
		{"docs/**/*.md", true, ".env", false, false},
		{"docs/**/*.md", true, "docs", true, true},
		{"docs/**/*.md", true, "src", true, false},
		{"/docs/*.md", true, "docs/a.md", false, true},
		{"**/*.md", false, ".env", false, false},
		{"**/*.md", false, "a/b/c.md", false, true},
		{"**/*", false, ".env", false, true},
		{"src/*.go", false, "secrets", true, false},
		{"src/*.go", false, "src", true, true},
		{"{src,lib}/*.go", false, "lib/x.go", false, true},
		{"a**b", false, "x/y", false, true},                         // fused globstar: assume the worst
		{"[", false, "x", false, true},                              // malformed: counts as a match
		{"*.pem", false, "p/sub/dir/cert.pem", false, true},         // no slash: any depth, Glob too
		{"sub/secrets/*", true, "p/sub/secrets/k.txt", false, true}, // anchored above the walk's root
		{"sub/secrets/*", true, "p/sub/other/k.txt", false, false},
		{"sub/secrets/*", true, "/w/p", true, true},       // the anchor, /w/p/sub, is below: the way down is reachable
		{"../etc/*", false, "p/etc/passwd", false, false}, // ripgrep never walks a ".."
		// Found against Pi's grep (ripgrep, glob whole) and find (fd):
		{"{nothing/x,**/secrets/**}", true, "p/secrets/key.txt", false, true}, // braces around slashes
		{"{x/y,secrets}/*", false, "p/secrets/key.txt", false, true},
		{"pro[j]/secrets/*", false, "w/Proj/secrets/key.txt", false, true}, // fd's smart case
		{"*env", false, "p/.ENV", false, true},
		{"{.ENV,a b}", true, "p/.ENV", false, true}, // not split, as Pi passes it
		// Negations alone: what one surely names is not reached.
		{"!.env", true, "p/.env", false, false},
		{"!.env", true, "p/.ENV", false, true}, // ripgrep matches case
		{"!.env", true, "p/src", true, true},
		{"!secrets/", true, "p/secrets", true, false},
		{"!secrets/", true, "p/secrets", false, true},
		{"!{.env,*.pem}", true, "p/k.pem", false, false},
		{"!.env,!*.pem", true, "p/.env", false, true}, // whole, as Pi passes it, it names neither
		{"!.env *.md", true, "p/.env", false, true},
		{"!sub/.env", true, "p/sub/.env", false, true}, // a slash: not judged
		{"!./.env", true, "p/.env", false, true},       // ripgrep excludes nothing with it
		// A slash anywhere in a glob anchors all of it, braces included.
		{"!{.env,secrets,x/y}", true, "p/src/secrets", true, true},
		{"!{.env,secrets,x/y}", true, "p/src/.env", false, true},
		{"!{secrets/,.env}", true, "p/secrets", true, true}, // no path ends in a slash
		{"!{.env,secrets}", true, "p/src/secrets", true, false},
		{"!{a,secrets}/", true, "p/src/secrets", true, false},
		// Braces as globset reads them: escapes and classes are literal.
		{"!{x\\,.env}", true, "p/.env", false, true},         // one alternative, "x,.env"
		{"!\\{secrets,.env}", true, "p/secrets", true, true}, // no group at all
		{"!{[,]x,.env}", true, "p/.env", false, false},
		{"!{[,]x,.env}", true, "p/]x", false, true},
		// ripgrep's globs match bytes, case and all: "?" or a class takes
		// one byte, not an "é"; "\\[!x]" names "[!x]" (checked against
		// Claude Code 2.1.197's ripgrep 14.1.1).
		{".env.??", true, "p/.env.é", false, true},
		{".env.??", false, "p/.env.é", false, true},
		// fd (Pi's find) folds case for an all-lowercase pattern, ASCII
		// only, and still matches bytes: ".env.??" lists ".ENV.é".
		{".env.??", false, "p/.ENV.é", false, true},
		{"*/p/.env.??", false, "/w/P/.ENV.é", false, true},
		{".env.[!a][!a]", true, "p/.env.é", false, true},
		{".env.[Z-a]", true, "p/.env._", false, true},
		{".env.[Z-a]", false, "p/.env._", false, true},
		{"!.env.?", true, "p/.env.é", false, true},
		{"!.env.?", true, "p/.env.a", false, false},
		{"!.env.?", false, "p/.env.é", false, true},
		{"!.env.é", true, "p/.env.é", false, false},
		{"!.env.[!a]", true, "p/.env.é", false, true},
		{"!.env.[é]", true, "p/.env.é", false, true},
		{"!.env.[!b]", true, "p/.env.a", false, false},
		{"!.env.\\[!x]", true, "p/.env.[^x]", false, true},
		{"!.env.\\[!x]", false, "p/.env.[^x]", false, true},
		// An absolute path (ripgrep's, searched outside its working
		// directory; fd's --full-path, always) starts with an empty name
		// before its first slash, which a leading "*" matches.
		{"*/w/p/docs/.ENV", true, "/w/p/docs/.ENV", false, true},
		{"*/w/p/docs/.ENV", false, "/w/p/docs/.ENV", false, true},
		{"*/w/p/docs/.ENV", false, "/w/p/src/.ENV", false, false},
		// ripgrep strips its working directory from a path by bytes: from
		// /w/p/sub, /w/p/sub2/.env is matched as "2/.env".
		{"2/.env", true, "/w/p/sub2/.env", false, true},
		{"2/*", false, "/w/p/sub2/.env", false, true}, // Claude Code's Glob runs ripgrep too
		{"2/*", true, "/w/p/sub/.env", false, false},
	}
	for _, tt := range tests {
		w := walker{filter: tt.filter, grep: tt.grep, anchor: "/w/p/sub"}
		if got := w.reachable(tt.rel, tt.dir); got != tt.want {
			t.Errorf("reachable(filter %q, grep %v, %q, dir %v) = %v, want %v", tt.filter, tt.grep, tt.rel, tt.dir, got, tt.want)
		}
	}
}

// TestExpandBracesBounded: every brace group at least doubles a glob's
// alternatives; past maxAlternatives the expansion stops (twenty groups
// took seconds and would grow without bound), and a filter past it
// reaches everything.
func TestExpandBracesBounded(t *testing.T) {
	many := strings.Repeat("{a,b}", 20)
	if alts, ok := expandBraces(many + ".env"); ok || len(alts) > maxAlternatives+1 {
		t.Errorf("expandBraces(20 groups) = %d alternatives, ok %v; want at most %d and not ok", len(alts), ok, maxAlternatives+1)
	}
	if alts, ok := expandBraces("{a,b}{c,d}.env"); !ok || len(alts) != 4 {
		t.Errorf("expandBraces(2 groups) = %q, %v", alts, ok)
	}
	for _, filter := range []string{"!" + many, "*.md,!.env" + many, many + "*.md"} {
		for _, grep := range []bool{true, false} {
			w := walker{filter: filter, grep: grep, split: grep}
			if !w.reachable("p/.env", false) {
				t.Errorf("reachable(filter %q, grep %v, p/.env) = false, want the worst assumed", filter, grep)
			}
		}
	}
}

// TestReachableClaudeSplit: Claude Code splits Grep's glob before ripgrep
// reads it, and ripgrep obeys the last glob that matches an entry.
func TestReachableClaudeSplit(t *testing.T) {
	tests := []struct {
		filter string
		rel    string
		dir    bool
		want   bool
	}{
		{"!.env,!secrets", "p/.env", false, false},
		{"!.env !secrets", "p/secrets", true, false},
		{"!.env,!secrets", "p/src", true, true},
		{"*.md,!secrets", "p/secrets", true, false}, // the negation comes last
		{"*,!.env", "p/.env", false, false},
		{"!secrets,*.md", "p/secrets", true, true}, // a later positive may take it back
		{"!.env,*,!x", "p/.env", false, true},
		{"*,!secrets/", "p/secrets", false, true}, // names directories only
		{"*.md,!sub/secrets", "p/sub/secrets", true, true},
		{"*.go,!.env", "p/.env", false, false},
		{"*.go,!.env", "p/secrets", true, true},
		{"*,!.env.?", "p/.env.é", false, true}, // "?" takes one byte
		{"*,!.env.[^a]", "p/.env.é", false, true},
		{"*,!.env.\\[!x]", "p/.env.[^x]", false, true},
		{"*,!.env.[!x]", "p/.env.a", false, false},
	}
	for _, tt := range tests {
		w := walker{filter: tt.filter, grep: true, split: true, anchor: "/w/p/sub"}
		if got := w.reachable(tt.rel, tt.dir); got != tt.want {
			t.Errorf("reachable(filter %q, split, %q, dir %v) = %v, want %v", tt.filter, tt.rel, tt.dir, got, tt.want)
		}
	}
}

func TestGrepGlobs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"*.md", []string{"*.md"}},
		{"*.md,*.go", []string{"*.md", "*.go"}},
		{"*.md *.go", []string{"*.md", "*.go"}},
		{"*.{md,go}", []string{"*.{md,go}"}},
		{"*.{md,go} !x,y", []string{"*.{md,go}", "!x", "y"}},
		{",, ", nil},
	}
	for _, tt := range tests {
		if got := grepGlobs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("grepGlobs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFindDeniedSpellings: the walk judges every entry as the tool reaches
// it (its spelling below the root) and as resolved, and a spelling the
// filter reaches nothing below does not use up the directory it names;
// links are skipped, listed or followed as the tool does.
func TestFindDeniedSpellings(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	for _, f := range []string{"ws/real/.env", "ws/real/a.txt", "home/vault/key.txt", "ws/clean/b.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, f), []byte("SECRET"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/a-link":      "real",              // sorts before real/: the same directory, another spelling
		"ws/cfg/secrets": home + "/vault",     // a denied spelling whose target no rule names
		"ws/clean/loop":  ".",                 // a loop back to the directory itself
		"ws/clean/self":  ws + "/clean/b.txt", // a link to a file
		"ws/named/.env":  "../clean/b.txt",    // a denied name leading to an allowed file
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(base, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := decide.MustCompile(decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite,
		DenyRead: decide.Rules("test", "**/secrets/*.txt"), Blocklist: decide.Rules("test", ".env")})
	tests := []struct {
		root, real, filter string
		grep               bool
		links              LinkMode
		want               string // the rel of the hit, "" for none
	}{
		{ws, ws, "real/.env", true, LinksFollowed, "real/.env"},
		{ws, ws, "real/*", true, LinksFollowed, "real/.env"},
		{ws, ws, "r*/.env", false, LinksFollowed, "real/.env"},
		// The filter reaches into a-link, but not to its .env: real/ is
		// still walked under its own spelling, which ripgrep reaches.
		{ws, ws, "{a-link/x,real/.env}", false, LinksFollowed, "real/.env"},
		{ws, ws, "{a-link/x,real/.env}", true, LinksFollowed, "real/.env"},
		{ws, ws, "*.txt", true, LinksFollowed, "named/.env"}, // the tree before what links lead to
		{ws + "/cfg", ws + "/cfg", "", true, LinksFollowed, "secrets/key.txt"},
		{ws + "/cfg", ws + "/cfg", "*.txt", true, LinksFollowed, "secrets/key.txt"},
		{ws + "/cfg/secrets", home + "/vault", "", true, LinksFollowed, "key.txt"},
		{ws + "/clean", ws + "/clean", "", true, LinksFollowed, ""},
		{ws + "/named", ws + "/named", "", true, LinksFollowed, ".env"},
		// ripgrep without --follow neither lists nor reads a link below
		// its root; one named as the root it follows.
		{ws, ws, "*.txt", true, LinksSkipped, ""},
		{ws + "/cfg", ws + "/cfg", "", true, LinksSkipped, ""},
		{ws + "/cfg/secrets", home + "/vault", "", true, LinksSkipped, "key.txt"},
		{ws + "/named", ws + "/named", "", true, LinksSkipped, ""},
		{ws, ws, "", true, LinksSkipped, "real/.env"},
		// fd lists a link by its own name: a denied name is a hit, a
		// denied target is not.
		{ws + "/cfg", ws + "/cfg", "", false, LinksListed, ""},
		{ws + "/named", ws + "/named", "", false, LinksListed, ".env"},
		{ws + "/clean", ws + "/clean", "", false, LinksListed, ""},
	}
	for _, tt := range tests {
		hit, err := FindDenied(p, decide.Read, tt.root, tt.real, Scan{Filter: tt.filter, Grep: tt.grep, Links: tt.links})
		if err != nil {
			t.Fatalf("FindDenied(%s, filter %q): %v", tt.root, tt.filter, err)
		}
		got := ""
		if hit != nil {
			got = hit.Rel
		}
		if got != tt.want {
			t.Errorf("FindDenied(%s, filter %q, grep %v, links %d) found %q, want %q", tt.root, tt.filter, tt.grep, tt.links, got, tt.want)
		}
	}
}

func TestGitignoreLine(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"*.md", "*.md", true},
		{"#x", "", false},
		{"\\#x", "\\#x", true},
		{".env\n", ".env", true},
		{"**/.env\u00a0", "**/.env", true},
		{" ", "", false},
		{"x\\ ", "x\\ ", true}, // an escaped trailing space stays
		{"!.env  ", "!.env", true},
	} {
		got, ok := gitignoreLine(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("gitignoreLine(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestScanHidesHiddenPath: a Grep or Glob over a tree holding a path with
// permission none is denied without naming that path, its rule or its
// policy file, as a direct Read of it is told it does not exist.
func TestScanHidesHiddenPath(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "private", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "private", "inner", "codename.txt"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := decide.MustCompile(decide.Spec{Root: ws, Home: ws, Mode: decide.WorkspaceWrite,
		Permissions: []decide.Permission{{Pattern: "private/**", Permission: decide.LevelNone, Source: "/policy/fence.jsonc"}}})
	for _, tool := range []string{"Grep", "Glob"} {
		c := Call{Agent: "claude", Cwd: ws, Tool: tool, Input: map[string]json.RawMessage{"pattern": json.RawMessage(`"*"`)}}
		targets, err := Targets(c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Judge(p, c, targets, Ledger{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow {
			t.Fatalf("%s over %s allowed", tool, ws)
		}
		msg := BlockMessage(tool, d)
		for _, leak := range []string{"private", "codename", "fence.jsonc"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s block names %q:\n%s", tool, leak, msg)
			}
		}
	}
}

// TestListingHidesHiddenPath: a listing (LS, Pi's ls) of a directory
// holding a path with permission none is denied without naming it, as a
// direct call is told it does not exist; a listing beside it, inside it
// is the path's own deny, and names that are only denied (.env) show.
func TestListingHidesHiddenPath(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"private/codename.txt", "src/a.go", ".env", "src/sub/b.go"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("SECRET"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// up/.. is src to the kernel, the workspace to a tool that cleans
	// the path first (Node's path.resolve, as Pi's ls does).
	if err := os.Symlink("src/sub", filepath.Join(ws, "up")); err != nil {
		t.Fatal(err)
	}
	spec := decide.Spec{Root: ws, Home: ws, Mode: decide.WorkspaceWrite,
		DenyRead:    []decide.Rule{{Pattern: ".env"}},
		Permissions: []decide.Permission{{Pattern: "private/**", Permission: decide.LevelNone, Source: "/policy/fence.jsonc"}}}
	hiding := decide.MustCompile(spec)
	spec.Permissions = nil
	plain := decide.MustCompile(spec)
	tests := []struct {
		agent, tool, path string
		p                 decide.Policy
		allow             bool
	}{
		{"claude", "LS", ws, hiding, false},
		{"pi", "ls", ws, hiding, false},
		{"pi", "ls", "", hiding, false}, // the cwd, by default
		{"claude", "LS", filepath.Join(ws, "src"), hiding, true},
		{"claude", "LS", filepath.Join(ws, "src", "a.go"), hiding, true},
		{"claude", "LS", filepath.Join(ws, "private"), hiding, false},
		{"claude", "LS", ws, plain, true}, // .env's name may show
		{"claude", "LS", filepath.Join(ws, "up") + "/..", hiding, false},
		{"pi", "ls", "up/..", hiding, false},
		{"pi", "ls", ws, plain, true},
	}
	for _, tt := range tests {
		in := map[string]json.RawMessage{}
		if tt.path != "" {
			in["path"], _ = json.Marshal(tt.path)
		}
		c := Call{Agent: tt.agent, Cwd: ws, Tool: tt.tool, Input: in}
		targets, err := Targets(c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Judge(tt.p, c, targets, Ledger{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow != tt.allow {
			t.Errorf("%s %s %q = %v (%s), want allowed %v", tt.agent, tt.tool, tt.path, d.Allow, d.Reason, tt.allow)
			continue
		}
		if msg := BlockMessage(tt.tool, d); !d.Allow && strings.Contains(msg, "codename") || strings.Contains(msg, "fence.jsonc") {
			t.Errorf("%s %s block names the hidden path:\n%s", tt.agent, tt.tool, msg)
		}
	}
}
