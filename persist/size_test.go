package persist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestGrantKeepsPolicyUnderSizeLimit: a policy file just under the 1 MiB
// every policy read allows must not be pushed over it by the entry: the
// edited file would no longer load, and every later call would fail on
// it. Check refuses, so persist is not offered, and Grant writes nothing.
func TestGrantKeepsPolicyUnderSizeLimit(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	head, tail := "{\n  // ", "\n  \"extends\": \"code\"\n}\n"
	src := head + strings.Repeat("x", decide.MaxPolicySize-len(head)-len(tail)-4) + tail
	writeFile(t, file, src)
	if _, _, err := decide.ReadPolicyFile(file); err != nil {
		t.Fatalf("the input is already too large: %v", err)
	}
	o := Options{Root: root, File: file, Access: "read", Path: "/srv/data/report.csv", Now: clock()}
	if _, err := Check(o); err == nil {
		t.Errorf("Check passed an edit that makes the policy larger than %d bytes", decide.MaxPolicySize)
	}
	if _, err := Grant(o); err == nil {
		t.Errorf("Grant wrote an edit that makes the policy larger than %d bytes", decide.MaxPolicySize)
	}
	if got := readFile(t, file); got != src {
		t.Errorf("the policy file changed: %d bytes, was %d", len(got), len(src))
	}
	if _, _, err := decide.ReadPolicyFile(file); err != nil {
		t.Errorf("the policy no longer reads: %v", err)
	}
	if names, _ := os.ReadDir(root); len(names) != 1 {
		t.Errorf("files left: %v", dirNames(t, root))
	}
}
