//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFloorPast: where floorPast says the kernel's floor is past a time,
// a file made or written right after has a later ctime, on the state
// dir's filesystem and on /dev/shm's. (On a kernel without multigrain
// timestamps it says no, and the caller waits.)
func TestFloorPast(t *testing.T) {
	state := t.TempDir()
	os.Mkdir(filepath.Join(state, "sandbox"), 0o700)
	dirs := []string{t.TempDir()}
	if d, err := os.MkdirTemp("/dev/shm", "picket-floor-"); err == nil {
		defer os.RemoveAll(d)
		dirs = append(dirs, d)
	}
	passed := 0
	for i := range 200 {
		end := ctimeCeiling()
		if !floorPast(state, end) {
			continue
		}
		passed++
		for _, d := range dirs {
			f := filepath.Join(d, "f")
			if i%2 == 0 {
				os.Remove(f)
			}
			fh, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString("x")
			fh.Close()
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if c := ctime(fi); !c.After(end) {
				t.Fatalf("%s written after floorPast(%v) has ctime %v, not after it", f, end.UnixNano(), c.UnixNano())
			}
		}
		time.Sleep(time.Duration(i%5) * 300 * time.Microsecond)
	}
	t.Logf("the floor passed the end in %d of 200 tries", passed)
}
