//go:build unix

package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	stressProcs = 16
	stressLines = 2000
	stressMax   = 32 << 10               // forces a rotation about every 200 lines
	stressWait  = 300 * time.Millisecond // the helpers' lockWait
	helperEnv   = "PICKET_AUDIT_HELPER_PATH"
)

// TestHelperAppend is one appending process of TestConcurrentProcesses.
func TestHelperAppend(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	worker := os.Getenv("PICKET_AUDIT_HELPER_WORKER")
	lockWait = stressWait
	l, err := Open(Options{Path: path, maxBytes: stressMax})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("p", 60)
	spilled, slowest := 0, time.Duration(0)
	for i := range stressLines {
		e := Entry{Session: worker, Agent: "claude", Decision: "block", Tool: "Read", Access: "read",
			Path: fmt.Sprintf("/w/%s/%d/%s", worker, i, pad), Layer: "blocklist", Rule: strconv.Itoa(i)}
		var sp *SpilledError
		start := time.Now()
		err := l.Append(e)
		if err == nil {
			slowest = max(slowest, time.Since(start))
		}
		if errors.As(err, &sp) {
			spilled++
		} else if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	fmt.Printf("spilled %d slowest %v\n", spilled, slowest)
}

// TestConcurrentProcesses has 16 processes append 2,000 lines each while
// the file rotates every few hundred lines, and while a hung process holds
// the log's lock for their first second: every line must arrive whole,
// exactly once, those that could not wait for the lock (all the first
// ones, and any a loaded machine delays past the wait) through spill files
// that the writers after fold in.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 16 processes")
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	hung, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	if err := syscall.Flock(int(hung.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Let go once every worker has spilled a line, however slowly a
		// loaded machine starts them.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && spilledSessions(path) < stressProcs; {
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Flock(int(hung.Fd()), syscall.LOCK_UN)
	}()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, stressProcs)
	spilled := make([]int, stressProcs)
	slowest := make([]time.Duration, stressProcs)
	for w := range stressProcs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppend$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, "PICKET_AUDIT_HELPER_WORKER="+strconv.Itoa(w))
		wg.Go(func() {
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[w] = fmt.Errorf("worker %d: %v\n%s", w, err, out)
			} else if spilled[w], slowest[w], err = spillCount(out); err != nil {
				errs[w] = fmt.Errorf("worker %d: %v\n%s", w, err, out)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	spills := 0
	for w, n := range spilled {
		if n == 0 {
			t.Errorf("worker %d spilled no line while the lock was held", w)
		}
		spills += n
	}
	// The last writers' folds may have found the lock taken by another's
	// rotation: the next writer folds what is left.
	l, err := Open(Options{Path: path, maxBytes: stressMax})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(spillGlob(path)); len(left) > 0 {
		t.Errorf("spill files left after a fold with the lock free: %v", left)
	}

	bs, err := backups(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	total := 0
	for _, name := range append(backupPaths(bs), path) {
		for _, line := range fileLines(t, name) {
			total++
			var e Entry
			if err := json.Unmarshal(line, &e); err != nil {
				t.Errorf("%s: torn line %q: %v", filepath.Base(name), line, err)
				continue
			}
			seen[e.Session+"/"+e.Rule]++
		}
	}
	for w := range stressProcs {
		for i := range stressLines {
			if k := fmt.Sprintf("%d/%d", w, i); seen[k] != 1 {
				t.Errorf("line %s seen %d times, want once", k, seen[k])
			}
		}
	}
	for _, b := range bs {
		if !b.gz {
			t.Errorf("%s left uncompressed", filepath.Base(b.path))
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp")); len(tmps) > 0 {
		t.Errorf("leftover temporary files: %v", tmps)
	}
	t.Logf("%d processes, %d lines (%d spilled), %d rotations, %v; slowest written Append %v", stressProcs, total, spills, len(bs), elapsed.Round(time.Millisecond), slices.Max(slowest))
}

// spilledSessions counts the workers with a line in a spill file.
func spilledSessions(path string) int {
	names, _ := filepath.Glob(spillGlob(path))
	seen := map[string]bool{}
	for _, n := range names {
		recs, _ := readFile(backup{path: n}, Filter{}, 0)
		for _, r := range recs {
			seen[r.Entry.Session] = true
		}
	}
	return len(seen)
}

// spillCount reads the helper's last line, "spilled N slowest D".
func spillCount(out []byte) (int, time.Duration, error) {
	var n int
	var d string
	for line := range strings.Lines(string(out)) {
		if _, err := fmt.Sscanf(line, "spilled %d slowest %s", &n, &d); err == nil {
			slowest, err := time.ParseDuration(d)
			return n, slowest, err
		}
	}
	return 0, 0, errors.New("no spill count")
}
func backupPaths(bs []backup) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.path)
	}
	return out
}

// fileLines returns the lines of a log file, decompressing a .gz.
func fileLines(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("%s does not end with a newline", name)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}
