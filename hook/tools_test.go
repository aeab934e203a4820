package hook

import "testing"

func TestLiteralPrefix(t *testing.T) {
	tests := []struct{ pat, prefix, rest string }{
		{"**/*.md", "", "**/*.md"},
		{"*.go", "", "*.go"},
		{"src/*.go", "src", "*.go"},
		{"../../etc/**", "../../etc", "**"},
		{"/etc/*", "/etc", "*"},
		{"/*", "/", "*"},
		{"a/b/c", "a/b/c", ""},
		{"a/[bc]/d", "a", "[bc]/d"},
		{"a/b?/d", "a", "b?/d"},
		{"{a,b}/c", "", "{a,b}/c"},
		{"", "", ""},
	}
	for _, tt := range tests {
		prefix, rest := literalPrefix(tt.pat)
		if prefix != tt.prefix || rest != tt.rest {
			t.Errorf("literalPrefix(%q) = %q, %q, want %q, %q", tt.pat, prefix, rest, tt.prefix, tt.rest)
		}
	}
}
