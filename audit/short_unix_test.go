//go:build unix

package audit

import (
	"bufio"
	"encoding/json"
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

// TestAppendGivesUpOnAHeldLock: a lock another process holds and never
// lets go costs the line, not the caller's wait.
func TestAppendGivesUpOnAHeldLock(t *testing.T) {
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	holder, err := os.Open(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := l.Append(Entry{Decision: "allow", Path: "/x"}); err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("Append under a held lock: err = %v, want it to give up", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("Append waited %v", waited)
	}
}
