package hook

import (
	"slices"
	"testing"
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
		{"a**b", false, "x/y", false, true}, // fused globstar: assume the worst
		{"[", false, "x", false, true},      // malformed: counts as a match
	}
	for _, tt := range tests {
		w := walker{filter: tt.filter, grep: tt.grep}
		if got := w.reachable(tt.rel, tt.dir); got != tt.want {
			t.Errorf("reachable(filter %q, grep %v, %q, dir %v) = %v, want %v", tt.filter, tt.grep, tt.rel, tt.dir, got, tt.want)
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
