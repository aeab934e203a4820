// Package bench measures the shell sandbox on a real-looking machine: a
// home of about 380,000 entries (a Go build cache, three other projects
// with node_modules) and a workspace of 10,000 to 1,000,000 files, built
// once in a directory outside the system temp dir and reused. See
// BenchmarkShellScale; it runs only under go test -bench.
package bench

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
)

// builder makes a tree of empty files and counts its entries.
type builder struct {
	rng     *rand.Rand
	entries int
	made    map[string]bool
}

func newBuilder(seed int64) *builder {
	return &builder{rng: rand.New(rand.NewSource(seed)), made: map[string]bool{}}
}

func (b *builder) mkdir(d string) {
	if b.made[d] || d == filepath.Dir(d) {
		return
	}
	b.mkdir(filepath.Dir(d))
	if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
		panic(err)
	}
	b.made[d] = true
	b.entries++
}

func (b *builder) file(p, content string) {
	b.mkdir(filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		panic(err)
	}
	b.entries++
}

func (b *builder) link(target, p string) {
	b.mkdir(filepath.Dir(p))
	if err := os.Symlink(target, p); err != nil && !os.IsExist(err) {
		panic(err)
	}
	b.entries++
}

// size draws a directory's file count as node_modules has them: median
// about 4, mean about 13, a few in the hundreds (measured on the
// node_modules of Claude Code and Pi: 21,261 entries in 1,603
// directories).
func (b *builder) size() int {
	n := int(2 * math.Pow(b.rng.Float64(), -0.9))
	return min(max(n, 1), 600)
}

// pkg makes one npm package, now and then with its own node_modules.
func (b *builder) pkg(dir string, depth int) {
	for _, f := range []string{"package.json", "README.md", "LICENSE"} {
		b.file(filepath.Join(dir, f), "")
	}
	for i, n := 0, b.size(); i < n; i++ {
		b.file(filepath.Join(dir, fmt.Sprintf("m%d.js", i)), "")
	}
	for s, ns := 0, b.rng.Intn(4); s < ns; s++ {
		sub := filepath.Join(dir, []string{"lib", "dist", "types", "esm"}[s])
		for d := 0; b.rng.Intn(3) == 0 && d < 6; d++ {
			sub = filepath.Join(sub, fmt.Sprintf("part%d", b.rng.Intn(3)))
		}
		for i, n := 0, b.size(); i < n; i++ {
			b.file(filepath.Join(sub, fmt.Sprintf("f%d.js", i)), "")
		}
	}
	if depth < 3 && b.rng.Intn(12) == 0 {
		for i, n := 0, 1+b.rng.Intn(3); i < n; i++ {
			b.pkg(filepath.Join(dir, "node_modules", fmt.Sprintf("dep%d", i)), depth+1)
		}
	}
}

// nodeModules makes packages under dir until it holds target entries,
// with the .bin links npm makes.
func (b *builder) nodeModules(dir string, target int) {
	start := b.entries
	for i := 0; b.entries-start < target; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg-%d", i))
		if i%6 == 0 {
			p = filepath.Join(dir, fmt.Sprintf("@scope%d", i%30), fmt.Sprintf("pkg-%d", i))
		}
		b.pkg(p, 0)
		if i%10 == 0 {
			rel, _ := filepath.Rel(filepath.Join(dir, ".bin"), filepath.Join(p, "m0.js"))
			b.link(rel, filepath.Join(dir, ".bin", fmt.Sprintf("bin%d", i)))
		}
	}
}

// Secret is one file the benchmark's policy denies reading.
type Secret struct{ Path, Content string }

// buildHome makes the home: dotfiles and credentials, a Go build cache,
// and three projects with a git dir, sources and node_modules. It returns
// the secrets it planted.
func buildHome(home string) (int, []Secret) {
	b := newBuilder(380)
	secrets := []Secret{
		{filepath.Join(home, ".ssh", "id_rsa"), "SECRET-HOME-SSH"},
		{filepath.Join(home, ".aws", "credentials"), "SECRET-HOME-AWS"},
		{filepath.Join(home, "src", "beta", "node_modules", "pkg-700", "test", "fixtures", "keys", "a", "b", "c", "d", "e", "id_rsa"), "SECRET-HOME-NODE-MODULES-KEY"},
	}
	for _, f := range []string{".bashrc", ".profile", ".gitconfig", ".ssh/config", ".ssh/known_hosts", ".ssh/id_rsa.pub",
		".config/gh/config.yml", ".local/share/recently-used.xbel", ".npmrc"} {
		b.file(filepath.Join(home, f), "")
	}
	for i := 0; i < 256; i++ {
		for f := 0; f < 290; f++ {
			b.file(filepath.Join(home, ".cache", "go-build", fmt.Sprintf("%02x", i), fmt.Sprintf("%02x%058d-d", i, f)), "")
		}
	}
	for _, p := range []string{"alpha", "beta", "gamma"} {
		proj := filepath.Join(home, "src", p)
		for _, f := range []string{".git/HEAD", ".git/config", ".git/description", "package.json", "README.md"} {
			b.file(filepath.Join(proj, f), "")
		}
		for i := 0; i < 200; i++ {
			b.file(filepath.Join(proj, "src", fmt.Sprintf("mod%d", i%10), fmt.Sprintf("c%d.ts", i)), "")
		}
		b.nodeModules(filepath.Join(proj, "node_modules"), 100000)
	}
	for _, s := range secrets {
		b.file(s.Path, s.Content)
	}
	return b.entries, secrets
}

// Policy is the project policy.
const Policy = `{ "extends": "code", "picket": { "blocklist": [".env", ".env.*"] } }`

// buildWorkspace makes a workspace of about n files: pkgNN/modN with 100
// files each, a git dir, the policy and four secrets (the root's .env, one
// in a package's config, one deep in the last package, a key).
func buildWorkspace(ws string, n int) (int, []Secret) {
	b := newBuilder(int64(n))
	pkgs := max(n/1000, 1)
	width := len(fmt.Sprint(pkgs - 1))
	pkg := func(i int) string { return fmt.Sprintf("pkg%0*d", width, i) }
	secrets := []Secret{
		{filepath.Join(ws, ".env"), "SECRET-WS-ROOT-ENV"},
		{filepath.Join(ws, pkg(pkgs/2), "config", ".env.local"), "SECRET-WS-ENV-LOCAL"},
		{filepath.Join(ws, pkg(pkgs-1), "mod9", "deep", "er", ".env"), "SECRET-WS-DEEP-ENV"},
		{filepath.Join(ws, "keys", "deploy", "id_ed25519"), "SECRET-WS-KEY"},
	}
	b.file(filepath.Join(ws, "fence.jsonc"), Policy)
	b.file(filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	for _, f := range []string{".git/config", "README.md", "go.mod"} {
		b.file(filepath.Join(ws, f), "")
	}
	for p := 0; p < pkgs; p++ {
		for m := 0; m < 10; m++ {
			for f := 0; f < 100; f++ {
				b.file(filepath.Join(ws, pkg(p), fmt.Sprintf("mod%d", m), fmt.Sprintf("file%03d.go", f)), "")
			}
		}
	}
	for _, s := range secrets {
		b.file(s.Path, s.Content)
	}
	return b.entries, secrets
}
