package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCtimeCeiling: a change made before ctimeCeiling is read never carries
// a later ctime, also when multigrain timestamps make it fine-grained (a
// ctime looked at since the last change), which the coarse clock lags.
func TestCtimeCeiling(t *testing.T) {
	f := filepath.Join(t.TempDir(), "policy")
	for i := range 500 {
		os.WriteFile(f, []byte("{}"), 0o600)
		os.Stat(f) // queried: the next change is stamped fine-grained
		os.WriteFile(f, []byte("{}"), 0o600)
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if c, end := ctime(fi), ctimeCeiling(); c.After(end) {
			t.Fatalf("change %d: ctime %v is after the ceiling %v read after it", i, c.Format("15:04:05.000000000"), end.Format("15:04:05.000000000"))
		}
	}
}
