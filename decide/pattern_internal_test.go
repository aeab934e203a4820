package decide

import (
	"math/rand/v2"
	"path"
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

// FuzzTranslateMap: the offset map a syntax error is placed with has an
// entry for each byte of the translation and its end, never goes back,
// and stays inside the pattern; mapping changes nothing translated.
func FuzzTranslateMap(f *testing.F) {
	for _, s := range []string{"src/[z-a].txt", "[^a]", `[\]`, "[]x", "a{b,c}", "[", `x\`, "**/[9-0]*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		src, from := translateMap(p, true)
		if src != translate(p) || len(from) != len(src)+1 || from[len(src)] != len(p) {
			t.Fatalf("translateMap(%q) = %q, %v; translate = %q", p, src, from, translate(p))
		}
		for i := 1; i < len(from); i++ {
			if from[i] < from[i-1] || from[i] > len(p) {
				t.Fatalf("translateMap(%q) = %q, %v: offset %d out of order", p, src, from, i)
			}
		}
	})
}

// FuzzLiteralPattern: the quoted pattern of an absolute path matches that
// path and what is below it, and nothing else.
func FuzzLiteralPattern(f *testing.F) {
	for _, s := range []string{"/w/sec/*", "/h/**", "/w/[ab]/x", "/a?b", "/a[", "/a]b", "/x/[*]", `/a\*`, "/{a,b}"} {
		f.Add(s, "/w/sec/a")
		f.Add(s, s)
		f.Add(s, s+"/x")
	}
	f.Fuzz(func(t *testing.T, p, q string) {
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p || !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 ||
			!strings.HasPrefix(q, "/") || path.Clean(q) != q || !utf8.ValidString(q) {
			return
		}
		r := Rule{Pattern: LiteralPattern(p), Source: "test"}
		pt, err := writtenPattern(r, "/root", "/home", false)
		if err != nil {
			t.Fatalf("LiteralPattern(%q) = %q does not compile: %v", p, r.Pattern, err)
		}
		want := q == p || p == "/" || strings.HasPrefix(q, p+"/")
		if got := pt.matchUnder(q); got != want {
			t.Fatalf("LiteralPattern(%q) = %q matches %q: %v, want %v", p, r.Pattern, q, got, want)
		}
	})
}

// TestSplitLiteralAndQuoteMeta holds the allocation-free forms to the
// plain ones they replace: split on "/" and join, and gobwas' QuoteMeta.
func TestSplitLiteralAndQuoteMeta(t *testing.T) {
	ref := func(abs string) (string, string) {
		parts := strings.Split(abs, "/")
		for i, part := range parts {
			if hasMeta(part) {
				return strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
			}
		}
		return abs, ""
	}
	alphabet := []string{"/", "a", "*", "?", "[", "]", "{", "}", "\\", ",", ".", "é", "!", "-"}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", "/", "//", "/a/b", "/a/*/b", "*", "a/", "/a/b/", "/a/b*", "**/x", "/a//b*/c"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		gp, gr := splitLiteral(s)
		wp, wr := ref(s)
		if gp != wp || gr != wr {
			t.Fatalf("splitLiteral(%q) = %q, %q; want %q, %q", s, gp, gr, wp, wr)
		}
		if got, want := quoteMeta(s), glob.QuoteMeta(s); got != want {
			t.Fatalf("quoteMeta(%q) = %q, want %q", s, got, want)
		}
	}
}
