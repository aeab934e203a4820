package claude

import (
	"slices"
	"strings"
	"testing"
)

func TestImports(t *testing.T) {
	got := imports("# Notes\n@README.md and @docs/a.md.\nmail me@example.com, see (@x) or @~/.ssh/id_rsa\n@ " +
		"@../.env#frag x\ufeff@b.md @my\\ file.md\u00a0@c.md")
	want := []string{"README.md", "docs/a.md.", "docs/a.md", "~/.ssh/id_rsa", "../.env", "b.md", "my file.md", "c.md"}
	if !slices.Equal(got, want) {
		t.Errorf("imports = %q, want %q", got, want)
	}
}

// FuzzImports: memory files are the agent's to write; every import read
// from one is a non-empty word, in which a space can only stand for an
// escaped one ("\\ ", as Claude Code reads "@my\\ file.md").
func FuzzImports(f *testing.F) {
	f.Add("@../.env\n")
	f.Add("x @a.md, @@b `@c` \u00a0@d")
	f.Add("@\\ ")
	f.Fuzz(func(t *testing.T, text string) {
		escaped := strings.Count(text, "\\ ")
		for _, imp := range imports(text) {
			if imp == "" || strings.ContainsFunc(imp, func(r rune) bool { return r == '\n' || r == '\t' || r == '\r' }) ||
				strings.Count(imp, " ") > escaped {
				t.Errorf("imports(%q) gave %q", text, imp)
			}
		}
	})
}
