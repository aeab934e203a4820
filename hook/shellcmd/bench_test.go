package shellcmd

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAnalyze is a typical agent shell call, analysed on the real
// filesystem: it runs before every shell command of an agent whose shell
// picket cannot wrap.
func BenchmarkAnalyze(b *testing.B) {
	dir := b.TempDir()
	for _, f := range []string{"src/main.go", "src/util.go", "README.md", ".env"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := Env{Cwd: dir, Root: dir, Home: "/root", Vars: map[string]string{"HOME": "/root", "PATH": "/usr/bin:/bin"}}
	for _, bc := range []struct{ name, cmd string }{
		{"cat", "cat README.md"},
		{"codex", `bash -lc "cd src && rg -n 'func main' *.go | head -20"`},
		{"pipeline", "git status --short && ls -la src && sed -n '1,80p' src/main.go 2>&1 | tee /tmp/out.log"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(bc.cmd, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
