package decide

import (
	"strings"
	"testing"
	"time"
)

// globCases are patterns (in gobwas syntax, as translate writes them) and
// paths on which the RE2 form must agree with gobwas.
var globCases = []struct{ pattern, path string }{
	{"**/secrets/**", "/a/secrets/b"}, {"**/secrets/**", "/secrets/x"}, {"**/secrets/**", "/a/secrets"},
	{"/w/**/x/*.pem", "/w/x/a.pem"}, {"/w/**/x/*.pem", "/w/a/b/x/a.pem"}, {"/w/**/x/*.pem", "/w/ax/a.pem"},
	{"**/*a*b", "/q/aab"}, {"**/*a*b", "/q/a/b"}, {"/h/.ssh/id_*", "/h/.ssh/id_rsa"},
	{"a**/b*", "a/x/b1"}, {"a**/b*", "ab1"}, {"***/x*", "x1"}, {"***/x*", "a/b/x1"},
	{"**/x/**/y*", "/x/y1"}, {"**/x/**/y*", "/a/x/b/c/y1"}, {"**/x/**/y*", "/x/y/z"},
	{"**/[!a]*/*", "/a/b"}, {"**/[!a]*/*", "//b"}, {"**/[a-c]*?*", "/b1"}, {"**/[a-c]*?*", "/d1"},
	{`**/\*x*`, "/*xy"}, {`**/\*x*`, "/axy"}, {"**/**", "/"}, {"**/**", ""}, {"*/**/*", "a//b"},
	{"**/a\u00e9*b*", "/a\u00e9zzb"}, {"**/a*b*", "/a\xffb"}, {"**/*\n*", "/x\ny"},
	// RE2 reads an invalid byte as U+FFFD, gobwas compares bytes: a pattern
	// spelling U+FFFD stays with gobwas.
	{"**/\ufffd*x*", "/\xffax"}, {"**/a\ufffd*x*", "/a\xffax"},
}

func TestGlobRegexpAgrees(t *testing.T) {
	for _, c := range globCases {
		checkGlobAgrees(t, c.pattern, c.path)
	}
}

// FuzzGlobRegexp: wherever a pattern is matched by RE2, RE2 and gobwas
// give the same answer.
func FuzzGlobRegexp(f *testing.F) {
	for _, c := range globCases {
		f.Add(c.pattern, c.path)
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 24 || len(path) > 32 {
			return // gobwas itself is the slow side
		}
		checkGlobAgrees(t, pattern, path)
	})
}

func checkGlobAgrees(t *testing.T, pattern, path string) {
	t.Helper()
	g, err := compiler.Compile(pattern)
	if err != nil {
		return
	}
	re, ok := globRegexp(pattern)
	if !ok {
		return
	}
	if want, got := g.Match(path), re.MatchString(path); want != got {
		t.Errorf("pattern %q on %q: gobwas %v, RE2 (%s) %v", pattern, path, want, re, got)
	}
}

// TestGlobLinear: patterns whose gobwas matching backtracks for seconds on
// long paths (the agent chooses the path) answer at once.
func TestGlobLinear(t *testing.T) {
	long := "/" + strings.Repeat("a", 4000)
	deep := strings.Repeat("/x", 2000)
	for _, c := range []struct{ pattern, path string }{
		{"**/*a*a*a*a*a*a*b*", long},
		{"**/x/**/x/*y*", deep},
		{"**/src/**/test/*fixture*", strings.Repeat("/src/test", 400) + "/a"},
	} {
		m, err := compileGlob(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan bool)
		go func() { done <- m.Match(c.path) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%q on a %d-byte path did not answer in 10 s", c.pattern, len(c.path))
		}
	}
}
