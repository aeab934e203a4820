//go:build unix

package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const shortEnv = "PICKET_AUDIT_SHORT_PATH"

// TestHelperShortWrite appends a line the file-size limit cuts short (as a
// full disk does), lifts the limit, and appends another.
func TestHelperShortWrite(t *testing.T) {
	path := os.Getenv(shortEnv)
	if path == "" {
		t.Skip("run by TestShortWriteLeavesNoFragment")
	}
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails, not the process
	l, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{Decision: "block", Path: "/first"}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim)
	cut := lim
	cut.Cur = uint64(fi.Size()) + 40 // the next line lands in part
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &cut); err != nil {
		t.Skip(err)
	}
	if err := l.Append(Entry{Decision: "block", Path: "/cut/" + strings.Repeat("x", 200)}); err == nil {
		t.Fatal("the append past the limit did not fail")
	}
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim)
	if err := l.Append(Entry{Decision: "block", Path: "/after"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestShortWriteLeavesNoFragment: a line the disk cuts short is lost, but
// what of it landed is taken back, so the next line is whole and on its own.
func TestShortWriteLeavesNoFragment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperShortWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), shortEnv+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("torn line %q: %v", sc.Text(), err)
		}
		paths = append(paths, e.Path)
	}
	if strings.Join(paths, " ") != "/first /after" {
		t.Errorf("lines = %v, want /first and /after", paths)
	}
}

// TestAppendOnlyToRegularFile: a log path that is a symlink (a policy's
// audit path linked to ~/.zshenv) or a FIFO gets no line, and the link's
// target is not created.
func TestAppendOnlyToRegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, ".zshenv")
	link := filepath.Join(dir, "link.log")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo.log")
	syscall.Mkfifo(fifo, 0o600)
	for _, p := range []string{link, fifo} {
		l, err := Open(Options{Path: p})
		if err == nil {
			err = l.Append(Entry{Decision: "block", Path: "/x"})
			l.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "regular file") {
			t.Errorf("Append to %s: err = %v, want a refusal naming a regular file", filepath.Base(p), err)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the symlink's target %s was created", target)
	}
}

// TestHeldLockSpillsTheLine: a lock another process holds and never lets
// go (a hung hook, a person's flock) costs the caller the wait and not the
// line: it goes whole to a spill file that picket log reads, and the next
// writer folds it into the log once the lock is free.
func TestHeldLockSpillsTheLine(t *testing.T) {
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = l.Append(Entry{Decision: "block", Path: "/held"})
	waited := time.Since(start)
	var spilled *SpilledError
	if !errors.As(err, &spilled) || !strings.Contains(err.Error(), "held by another process") {
		t.Fatalf("Append under a held lock: err = %v, want a SpilledError", err)
	}
	if waited > 2*time.Second {
		t.Errorf("Append waited %v for a lock of wait %v", waited, lockWait)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close under a held lock: %v", err)
	}
	if got := tailPaths(t, path); got != "/held" {
		t.Errorf("Tail with the line spilled = %q, want /held", got)
	}
	if b, err := os.ReadFile(spilled.File); err != nil || !bytes.HasSuffix(b, []byte("}\n")) || !bytes.Contains(b, []byte(`"path":"/held"`)) {
		t.Errorf("spill file %s = %q, %v; want the whole line", spilled.File, b, err)
	}

	holder.Close()
	l, err = Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{Decision: "block", Path: "/after"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(spillGlob(path)); len(left) > 0 {
		t.Errorf("spill files left after a write with the lock free: %v", left)
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), `"/held"`); n != 1 {
		t.Errorf("the log holds the spilled line %d times, want once:\n%s", n, b)
	}
	if got := tailPaths(t, path); got != "/held /after" && got != "/after /held" {
		t.Errorf("Tail after the fold = %q, want /held and /after once each", got)
	}
}

// TestHeldGateSpillsTheLine: a line that finds the file due for rotation
// waits for the gate, within the same bound, and spills when a hung
// rotation holds it.
func TestHeldGateSpillsTheLine(t *testing.T) {
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(Options{Path: path, maxBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(Entry{Decision: "block", Path: "/first/" + strings.Repeat("x", 100)}); err != nil {
		t.Fatal(err)
	}
	gate, err := os.OpenFile(path+".gate", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	if err := syscall.Flock(int(gate.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var spilled *SpilledError
	if err := l.Append(Entry{Decision: "block", Path: "/due"}); !errors.As(err, &spilled) {
		t.Fatalf("Append under a held gate: err = %v, want a SpilledError", err)
	}
	if got := tailPaths(t, path); !strings.HasSuffix(got, " /due") {
		t.Errorf("Tail = %q, want the spilled /due last", got)
	}
}

func tailPaths(t *testing.T, path string) string {
	t.Helper()
	recs, err := Tail(path, 0, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range recs {
		paths = append(paths, r.Entry.Path)
	}
	return strings.Join(paths, " ")
}

// TestFoldTakesOnlyEntries: a spill file planted as a symlink (to a key,
// say) is not folded, and a fold copies only audit entries into the log.
func TestFoldTakesOnlyEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	secret := filepath.Join(dir, "id_ed25519")
	os.WriteFile(secret, []byte(`{"ts":"2026-01-01T00:00:00.000Z","path":"SECRET"}`+"\n"), 0o600)
	os.Symlink(secret, path+".spill-1-x-0.ndjson")
	os.WriteFile(path+".spill-1-x-1.ndjson", []byte("junk\n"+`{"ts":"2026-01-01T00:00:00.000Z","path":"/kept"}`+"\nnot json"), 0o600)
	os.WriteFile(path+".lock", []byte("s"), 0o600) // the spiller's mark
	l, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err == nil {
		t.Errorf("Close folded a symlinked spill file without an error")
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "junk") || strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"/kept"`) {
		t.Errorf("log after the fold = %q, want only the /kept entry", b)
	}
}
