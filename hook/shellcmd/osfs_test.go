package shellcmd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAnalyzeRealFS runs on a real tree: globs, a symlinked directory,
// names with spaces and newlines, and existence.
func TestAnalyzeRealFS(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	for _, f := range []string{".env", "a b.txt", "x\ny", "src/main.go"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, "src"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	env := Env{Cwd: ws, Root: ws, Home: dir, Vars: map[string]string{"HOME": dir}}
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cat *", []string{"r " + ws + "/a b.txt", "r " + ws + "/link", "r " + ws + "/src", "r " + ws + "/x\ny"}},
		{"cat .e* link/*.go", []string{"r " + ws + "/.env", "r " + ws + "/link/main.go"}},
		{"cd link && cat *.go ../.env", []string{"l " + ws + "/link", "r " + ws + "/link/../.env", "r " + ws + "/link/main.go"}},
		{"cat ~/ws/.env /nonexistent/file", []string{"r " + dir + "/ws/.env"}},
	}
	for _, tt := range tests {
		res, err := Analyze(tt.cmd, env)
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.cmd, err)
			continue
		}
		if got := show(res.Targets); !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
