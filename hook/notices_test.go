package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNotices(t *testing.T) {
	now := time.Now()
	n := Notices{Dir: filepath.Join(t.TempDir(), "notices"), Now: func() time.Time { return now }}
	first := func(session, text string, want bool) {
		t.Helper()
		if got, err := n.First(session, text); got != want || err != nil {
			t.Errorf("First(%q, %q) = %v, %v, want %v", session, text, got, err, want)
		}
	}
	first("s", "w", true)
	first("s", "w", false)
	first("s", "w2", true)
	first("../s", "w", true)
	first("", "w", true)
	first("", "w", true)
	if err := n.End("s"); err != nil {
		t.Fatal(err)
	}
	first("s", "w", true)
	first("../s", "w", false)

	// A crashed session's markers go once older than the limit.
	old := now.Add(-8 * 24 * time.Hour)
	entries, _ := os.ReadDir(n.Dir)
	for _, e := range entries {
		os.Chtimes(filepath.Join(n.Dir, e.Name()), old, old)
	}
	first("fresh", "w", true)
	if err := n.Prune(7 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	first("../s", "w", true)
	first("fresh", "w", false)
}
