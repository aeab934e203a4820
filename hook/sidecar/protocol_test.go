package sidecar

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocolDocExamples keeps the codec and the protocol's page
// (docs/sidecar-protocol.md) together: every request line the page shows
// decodes on the codec's fast path exactly as encoding/json reads it, names
// an op the sidecar has, and every op the sidecar has is on the page.
func TestProtocolDocExamples(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "docs", "sidecar-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	shown := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "  ") // "request   → answer"
		if !strings.HasPrefix(line, `{"id":`) || strings.Contains(line, `"ok":`) {
			continue
		}
		var fast, slow request
		if err := json.Unmarshal([]byte(line), &slow); err != nil {
			t.Errorf("%s: not JSON: %v", line, err)
			continue
		}
		if !decodeRequest([]byte(line), &fast) {
			t.Errorf("%s: the codec's fast path declines a line the extension's shape", line)
		}
		if fb, _ := json.Marshal(fast); string(fb) != mustJSON(slow) {
			t.Errorf("%s: codec read %s, encoding/json %s", line, fb, mustJSON(slow))
		}
		shown[slow.Op] = true
		if op(slow.Op) == nil && slow.Op != "nope" {
			t.Errorf("%s: the page shows op %q, which the sidecar does not have", line, slow.Op)
		}
	}
	for _, name := range ops {
		if op(name) == nil {
			t.Errorf("op %q has no handler", name)
		}
		if !shown[name] {
			t.Errorf("op %q is not on docs/sidecar-protocol.md", name)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
