package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestPiSearchFilters: Pi's grep (ripgrep, its glob whole) and find (fd
// --glob, with --full-path for a pattern holding a slash) must not reach
// a denied path through their filter; each deny below was checked against
// fd 10.2.0 and ripgrep 14.1.1 run with Pi 0.73.1's flags, each of which
// printed the denied name or line.
func TestPiSearchFilters(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, f := range []string{"docs/.ENV", "docs/.ENV.é", "docs/a.md", "bang/secrets/!secrets", "bang/a.go", "src/main.go", "src2/.env", "Docs2/.env", "nest/secrets/src/k.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("SECRET"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Links to denied paths, which neither tool follows below its path.
	os.MkdirAll(filepath.Join(ws, "links"), 0o755)
	for link, target := range map[string]string{"links/keys": "../bang/secrets", "links/env.txt": "../src2/.env", "links/a.go": "../bang/a.go"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := decide.MustCompile(decide.Spec{Root: ws, Home: filepath.Join(base, "home"), Mode: decide.WorkspaceWrite,
		DenyRead: decide.Rules("test", "**/secrets/**"), Blocklist: decide.Rules("test", ".env", ".env.*")})
	docs, src := ws+"/docs", ws+"/src"
	tests := []struct {
		cwd, tool string
		in        map[string]string
		allow     bool
	}{
		// fd folds ASCII case for a lowercase pattern and matches bytes:
		// "??" takes the é of .ENV.é.
		{ws, "find", map[string]string{"pattern": ".env.??", "path": docs}, false},
		// A leading "*" takes the empty name before an absolute path's
		// first slash: fd --full-path matches the absolute path, and
		// ripgrep one outside its working directory.
		{ws, "find", map[string]string{"pattern": "*" + docs + "/.ENV*", "path": docs}, false},
		{src, "grep", map[string]string{"pattern": "S", "path": docs, "glob": "*" + docs + "/.ENV*"}, false},
		// ripgrep strips its working directory from a path by bytes, not
		// by name: from src, src2/.env is matched as "2/.env".
		{src, "grep", map[string]string{"pattern": "S", "path": ws + "/src2", "glob": "2/.env"}, false},
		{src, "grep", map[string]string{"pattern": "S", "path": "../src2", "glob": "2/*"}, false},
		// fd reads no gitignore line: "!*" is every name starting with
		// "!", bang/secrets/!secrets too, not a negation of everything.
		{ws, "find", map[string]string{"pattern": "!*", "path": ws + "/bang"}, false},
		{ws, "find", map[string]string{"pattern": "!{*,x}", "path": ws + "/bang"}, false},
		// fd walks only its path, and matches an absolute pattern against
		// the absolute paths below it, case folded when the pattern is
		// all lowercase: /…/Docs2/.env is listed for "/…/docs2/*".
		{ws, "find", map[string]string{"pattern": strings.ToLower(ws) + "/docs2/*", "path": ws + "/Docs2"}, false},
		{ws, "find", map[string]string{"pattern": strings.ToLower(ws) + "/docs2/*"}, false},
		// Pi puts "**/" before a pattern with a slash: fd matches it from
		// any directory, one inside a denied directory too (found by
		// TestScanAgainstTools: fd listed nest/secrets/src/k.txt).
		{ws, "find", map[string]string{"pattern": "src/*", "path": ws + "/nest"}, false},
		// ... and never a "..": nothing is listed for "../bang/secrets/*".
		{src, "find", map[string]string{"pattern": "../bang/secrets/*"}, true},
		// A link below the path is not followed: ripgrep skips it, fd
		// lists its own name (checked against ripgrep 14.1.1 and fd
		// 10.2.0 by TestScanAgainstTools); a link named as the path is
		// followed by both.
		{ws, "grep", map[string]string{"pattern": "S", "path": ws + "/links"}, true},
		{ws, "find", map[string]string{"pattern": "*", "path": ws + "/links"}, true},
		{ws, "find", map[string]string{"pattern": "*", "path": ws + "/links/keys"}, false},
		{ws, "grep", map[string]string{"pattern": "S", "path": ws + "/links/keys"}, false},
		{ws, "grep", map[string]string{"pattern": "S", "path": "links/env.txt"}, false},
		// What fd surely keeps away from every denied path passes.
		{ws, "find", map[string]string{"pattern": "*.md", "path": docs}, true},
		{ws, "find", map[string]string{"pattern": "#.env", "path": docs}, true}, // a name, not a comment
		{ws, "find", map[string]string{"pattern": "*/src/*.go", "path": docs}, true},
		{ws, "grep", map[string]string{"pattern": "S", "path": docs, "glob": "*.md"}, true},
	}
	for _, tt := range tests {
		in := map[string]json.RawMessage{}
		for k, v := range tt.in {
			b, _ := json.Marshal(v)
			in[k] = b
		}
		c := Call{Agent: "pi", Session: "s", Turn: "0", Cwd: tt.cwd, Tool: tt.tool, Input: in}
		targets, err := Targets(c)
		if err != nil {
			t.Fatalf("Targets(%s %v): %v", tt.tool, tt.in, err)
		}
		d, err := Judge(p, c, targets, Ledger{})
		if err != nil {
			t.Fatalf("Judge(%s %v): %v", tt.tool, tt.in, err)
		}
		if d.Allow != tt.allow {
			t.Errorf("%s %v from %s: allow %v (%s %s), want %v", tt.tool, tt.in, tt.cwd, d.Allow, d.Rule, d.Resolved, tt.allow)
		}
	}
}
