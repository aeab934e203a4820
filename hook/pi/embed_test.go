package pi

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	got, err := Render(`/opt/pic"ket/bin/picket`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `const PICKET = "/opt/pic\"ket/bin/picket";`) {
		t.Errorf("Render did not bake the quoted path into PICKET:\n%s", firstLines(string(got), 30))
	}
	if strings.Contains(string(got), "__PICKET_EXE__") {
		t.Errorf("Render left the placeholder in place")
	}
	again, _ := Render(`/opt/pic"ket/bin/picket`)
	if string(again) != string(got) {
		t.Errorf("Render is not deterministic")
	}
}

func TestRenderRelative(t *testing.T) {
	if _, err := Render("bin/picket"); err == nil {
		t.Errorf("Render(%q) = nil error, want a refusal", "bin/picket")
	}
}

func TestDir(t *testing.T) {
	for _, tc := range []struct {
		user bool
		want string
	}{
		{true, "/h/.pi/agent/extensions/picket"},
		{false, "/r/.pi/extensions/picket"},
	} {
		if got := Dir("/h", "/r", tc.user); got != tc.want {
			t.Errorf("Dir(/h, /r, %v) = %q, want %q", tc.user, got, tc.want)
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestBashSequential guards the fix for a check-then-use race: Pi judges
// every call of a parallel batch before running any, so a bash call could
// swap a symlink after a read of the same message was judged. The
// replacement bash tool must make Pi run such batches one call at a time.
func TestBashSequential(t *testing.T) {
	if !strings.Contains(source, `executionMode: "sequential",`) {
		t.Errorf("the extension's bash tool is not registered with executionMode \"sequential\"")
	}
}
