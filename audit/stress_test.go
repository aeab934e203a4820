package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	stressProcs = 16
	stressLines = 2000
	stressMax   = 32 << 10 // forces a rotation about every 200 lines
	helperEnv   = "PICKET_AUDIT_HELPER_PATH"
)

// TestHelperAppend is one appending process of TestConcurrentProcesses.
func TestHelperAppend(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	worker := os.Getenv("PICKET_AUDIT_HELPER_WORKER")
	l, err := Open(Options{Path: path, maxBytes: stressMax})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("p", 60)
	for i := range stressLines {
		e := Entry{Session: worker, Agent: "claude", Decision: "block", Tool: "Read", Access: "read",
			Path: fmt.Sprintf("/w/%s/%d/%s", worker, i, pad), Layer: "blocklist", Rule: strconv.Itoa(i)}
		if err := l.Append(e); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestConcurrentProcesses has 16 processes append 2,000 lines each while
// the file rotates every few hundred lines: every line must arrive whole,
// exactly once.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 16 processes")
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, stressProcs)
	for w := range stressProcs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppend$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, "PICKET_AUDIT_HELPER_WORKER="+strconv.Itoa(w))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
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
	t.Logf("%d processes, %d lines, %d rotations, %v", stressProcs, total, len(bs), elapsed.Round(time.Millisecond))
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
