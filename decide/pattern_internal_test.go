package decide

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobwas/glob"
)

// FuzzTranslate holds the reason compile builds only patterns with a "["
// at load time: any other translated pattern, behind any quoted prefix,
// compiles, so a matcher built later can never fail.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"*.pem", "**/.env", "a{b,c}", `x\`, "]", "a]b", "?*", "**", "{", "}", ",", `\\`, "a/**/b"} {
		f.Add(s, "/home/u/[x]{y}")
	}
	f.Fuzz(func(t *testing.T, rest, prefix string) {
		if strings.Contains(rest, "[") || !utf8.ValidString(rest) || !utf8.ValidString(prefix) {
			return
		}
		src := translate(rest)
		if _, err := compiler.Compile(src); err != nil {
			t.Fatalf("translate(%q) = %q does not compile: %v", rest, src, err)
		}
		quoted := strings.TrimSuffix(glob.QuoteMeta(prefix), "/") + "/" + src
		if _, err := compiler.Compile(quoted); err != nil {
			t.Fatalf("%q behind prefix %q = %q does not compile: %v", rest, prefix, quoted, err)
		}
	})
}
