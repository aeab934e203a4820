package grants

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSessionFileName checks that any session id an agent sends maps to one
// local file name in Dir, and back to itself.
func FuzzSessionFileName(f *testing.F) {
	for _, id := range []string{"0f3b1c2e-9a7d-4d7e-8c1a-1b2c3d4e5f60", "../../x", "..", ".", "/", "a\x00b", "~x", "A", "a.json", ""} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		base, err := fileBase(id)
		if err != nil {
			if id != "" && len(id) <= MaxSessionID {
				t.Fatalf("fileBase(%q) error: %v", id, err)
			}
			return
		}
		for _, ext := range []string{".json", ".json.tmp", ".lock"} {
			name := base + ext
			if !filepath.IsLocal(name) || filepath.Base(name) != name || strings.HasPrefix(name, ".") || len(name) > 255 {
				t.Fatalf("fileBase(%q) = %q: %q is not a plain local name", id, base, name)
			}
		}
		if strings.ToLower(base) != base {
			t.Fatalf("fileBase(%q) = %q: collides on a case-insensitive file system", id, base)
		}
		if back, ok := sessionOf(base); !ok || back != id {
			t.Fatalf("sessionOf(fileBase(%q)) = %q, %v", id, back, ok)
		}
	})
}
