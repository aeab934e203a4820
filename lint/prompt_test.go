package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestPromptTimeout: a prompt timeout over the cap warns at the value in
// force, the nearest file of the chain that sets it, naming the cap.
func TestPromptTimeout(t *testing.T) {
	tests := []struct {
		name, base, child string
		want              []string
	}{
		{"over the cap", `{}`, `{"extends": "./base.jsonc", "picket": {"prompt": {"timeoutSeconds": 120}}}`, []string{file + ":1:69 [prompt-timeout]"}},
		{"over the cap in the base", `{"picket": {"prompt": {"timeoutSeconds": 300}}}`, `{"extends": "./base.jsonc"}`, []string{"$TMP/proj/base.jsonc:1:42 [prompt-timeout]"}},
		{"a child brings it under", `{"picket": {"prompt": {"timeoutSeconds": 300}}}`, `{"extends": "./base.jsonc", "picket": {"prompt": {"timeoutSeconds": 45}}}`, nil},
		{"at the cap", `{}`, `{"extends": "./base.jsonc", "picket": {"prompt": {"timeoutSeconds": 60}}}`, nil},
		{"unset", `{}`, `{"extends": "./base.jsonc"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.child)
			if err := os.WriteFile(filepath.Join(f.proj, "base.jsonc"), []byte(tt.base), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := runOthers(f.load(t, decide.Env{}))
			if got := f.brief(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("Run() = %q, want %q\n%s", got, tt.want, dump(ws))
			}
			if len(ws) > 0 && !strings.Contains(ws[0].Msg, "a prompt waits at most 60 s: that is 30 s less than the hook timeout picket install writes") {
				t.Errorf("Run()[0].Msg = %q, want it to name the 60 s cap and why", ws[0].Msg)
			}
		})
	}
}
