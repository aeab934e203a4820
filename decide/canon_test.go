package decide_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/picketdev/picket/decide"
)

func TestCanonicalize(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/a/b/file.txt")
	tr.mkdir("outside/dir/sub")
	tr.link(filepath.Join(tr.outside, "dir"), "ws/link")
	tr.link("../outside/dir", "ws/rel")
	tr.link("a/b/../b", "ws/dotty")
	tr.link("/", "ws/rootlink")
	tr.link("missing-target/more", "ws/dangling")
	tr.link("file.txt", "ws/a/b/filelink")

	tests := []struct {
		path, abs, resolved string
	}{
		{"a/b/file.txt", tr.ws + "/a/b/file.txt", tr.ws + "/a/b/file.txt"},
		{"./a//b/./file.txt", tr.ws + "/./a//b/./file.txt", tr.ws + "/a/b/file.txt"},
		{"a/b/", tr.ws + "/a/b/", tr.ws + "/a/b"},
		{tr.ws + "/a/../a/b", tr.ws + "/a/../a/b", tr.ws + "/a/b"},
		{"/", "/", "/"},
		{"/..", "/..", "/"},
		{"link/sub", tr.ws + "/link/sub", tr.outside + "/dir/sub"},
		{"rel/sub", tr.ws + "/rel/sub", tr.outside + "/dir/sub"},
		{"link/..", tr.ws + "/link/..", tr.outside},
		{"dotty/file.txt", tr.ws + "/dotty/file.txt", tr.ws + "/a/b/file.txt"},
		{"rootlink/" + tr.ws[1:] + "/a", tr.ws + "/rootlink/" + tr.ws[1:] + "/a", tr.ws + "/a"},
		{"a/b/filelink", tr.ws + "/a/b/filelink", tr.ws + "/a/b/file.txt"},
		{"~/x/y", tr.home + "/x/y", tr.home + "/x/y"},
		{"~", tr.home, tr.home},
		// missing tails: "." dropped and ".." folded
		{"new/./x/../y", tr.ws + "/new/./x/../y", tr.ws + "/new/y"},
		{"a/new/x/../../b/file.txt", tr.ws + "/a/new/x/../../b/file.txt", tr.ws + "/a/b/file.txt"},
		// "missing/.." climbing back over the missing name walks on, so an
		// existing symlink reached that way is still followed
		{"missing/../link/sub", tr.ws + "/missing/../link/sub", tr.outside + "/dir/sub"},
		{"link/missing/../../escaped", tr.ws + "/link/missing/../../escaped", tr.outside + "/escaped"},
		{"missing/x/../../../outside/dir/sub", tr.ws + "/missing/x/../../../outside/dir/sub", tr.outside + "/dir/sub"},
		// once back over the missing name, a ".." after a symlink is the
		// target's parent (where mkdir -p missing, then a write, lands)
		{"missing/../link/../escaped", tr.ws + "/missing/../link/../escaped", tr.outside + "/escaped"},
		{"missing/x/../../link/..", tr.ws + "/missing/x/../../link/..", tr.outside},
		// a dangling symlink resolves to what a write would create
		{"dangling", tr.ws + "/dangling", tr.ws + "/missing-target/more"},
		{"dangling/deeper", tr.ws + "/dangling/deeper", tr.ws + "/missing-target/more/deeper"},
	}
	for _, tt := range tests {
		abs, resolved, err := decide.Canonicalize(tt.path, tr.ws, tr.home)
		if err != nil || abs != tt.abs || resolved != tt.resolved {
			t.Errorf("Canonicalize(%q) = %q, %q, %v, want %q, %q, nil", tt.path, abs, resolved, err, tt.abs, tt.resolved)
		}
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/file")
	tr.link("file/x", "ws/throughfile")
	tr.link("l2", "ws/l1")
	tr.link("l1", "ws/l2")
	tests := []struct {
		path  string
		cwd   string
		errno error
	}{
		{"file/x", tr.ws, syscall.ENOTDIR},
		{"file/", tr.ws, syscall.ENOTDIR},
		{"file/missing/deeper", tr.ws, syscall.ENOTDIR},
		{"throughfile", tr.ws, syscall.ENOTDIR},
		{"l1", tr.ws, syscall.ELOOP},
		{"l1/x/y", tr.ws, syscall.ELOOP},
		{"a\x00b", tr.ws, syscall.EINVAL},
		{"", tr.ws, syscall.ENOENT},
		{"/" + strings.Repeat("abcd/", 1000), tr.ws, syscall.ENAMETOOLONG},
		{strings.Repeat("n", 256), tr.ws, syscall.ENAMETOOLONG},
	}
	for _, tt := range tests {
		_, resolved, err := decide.Canonicalize(tt.path, tt.cwd, tr.home)
		var pe *fs.PathError
		if !errors.Is(err, tt.errno) || !errors.As(err, &pe) || resolved != "" {
			t.Errorf("Canonicalize(%.40q) = %q, %v, want a *fs.PathError wrapping %v", tt.path, resolved, err, tt.errno)
		}
	}
	if _, _, err := decide.Canonicalize("x", "relative", tr.home); err == nil {
		t.Errorf("Canonicalize(x) with a relative cwd = nil error, want one")
	}
}

// TestCanonicalizeSelfProcess: a path to the calling process's own state
// (/proc/self/cwd, environ, /dev/fd) names the agent's, not picket's;
// resolving it in picket's own process would judge another file, so it is
// an error, reached directly or through a link, and so is a path through
// any process's links or secrets. Another process's status resolves, as
// does what /proc/self holds for the whole namespace.
func TestCanonicalizeSelfProcess(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/main.go")
	tr.link("/proc/self/cwd", "ws/me")
	tr.link("/dev/stdin", "ws/in")
	tr.link("/proc/self/environ", "ws/env")
	tr.link("/proc", "ws/proc")
	tr.link("/proc/self", "ws/pself")
	tr.link("/proc/thread-self/../..", "ws/up")
	for _, p := range []string{"/proc/self/environ", "/proc/self/cwd/main.go", "/proc/thread-self/root/etc/passwd",
		"/dev/fd/0", "/dev/stdin", "/dev/stderr", "me/main.go", "me/new.go", "me", "in", "env", fmt.Sprintf("/proc/%d/environ", os.Getpid()),
		// a thread of the agent (no such thread in picket), and another
		// process's environment
		"/proc/self/task/4242/root/etc/passwd", "/proc/self/task/4242/environ", "/proc/thread-self/environ",
		"/proc/1/environ", "/proc/1/task/1/environ", "/proc/1/mem",
		// /proc/self reached through a link, or through its own parent
		"proc/self/cwd/x", "pself/fd/0", "pself/../self/root/etc/passwd", "/proc/self/../thread-self/cwd",
		// the parent of /proc/thread-self is /proc/self/task, not /proc
		"/proc/thread-self/../../environ", "/proc/thread-self/../../cwd/x", "/proc/thread-self/../../fd/0",
		"/proc/thread-self/../../exe", "up/environ", "up/root/etc/passwd"} {
		_, resolved, err := decide.Canonicalize(p, tr.ws, tr.home)
		if err == nil || !strings.Contains(err.Error(), "process's own files") || resolved != "" {
			t.Errorf("Canonicalize(%s) = %q, %v, want the calling-process error", p, resolved, err)
		}
		d := decide.Check(decide.MustCompile(tr.spec()), decide.Read, p, tr.ws, -1)
		if d.Allow || !strings.Contains(d.Suggestion, "/proc/self") {
			t.Errorf("Check(read %s) = %+v, want a deny that says why", p, d)
		}
	}
	// Another process's status is read as any path.
	if _, r, err := decide.Canonicalize("/proc/1/status", tr.ws, tr.home); err != nil || r != "/proc/1/status" {
		t.Errorf("Canonicalize(/proc/1/status) = %q, %v", r, err)
	}
	// Any process's links are refused, picket's own pid spelled out
	// included: they lead into that process's view (another mount
	// namespace, a deleted file, a pipe), and the answer must not depend
	// on which process decides (the hook, or the sidecar, whose pid
	// an agent can find out).
	for _, p := range []string{fmt.Sprintf("/proc/%d/task/%d/cwd/x", os.Getpid(), os.Getpid()), fmt.Sprintf("/proc/%d/root/etc/hostname", os.Getpid()),
		"/proc/1/root/etc/hostname", "/proc/1/cwd", "/proc/1/fd/0", "/proc/1/task/1/exe", "/proc/1/map_files"} {
		if _, r, err := decide.Canonicalize(p, tr.ws, tr.home); err == nil || !strings.Contains(err.Error(), "process's own files") {
			t.Errorf("Canonicalize(%s) = %q, %v, want the process error", p, r, err)
		}
	}
	// What /proc/self holds for the whole namespace resolves, still
	// spelled /proc/self (not this process's pid, which the agent's is
	// not): /etc/mtab leads to /proc/self/mounts on most Linux systems.
	for _, p := range []string{"/etc/mtab", "/proc/mounts", "/proc/self/mounts", "/proc/net/dev", "/proc/self/status"} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		_, r, err := decide.Canonicalize(p, tr.ws, tr.home)
		if err != nil {
			t.Errorf("Canonicalize(%s) = %v, want it resolved", p, err)
		}
		if strings.Contains(r, strconv.Itoa(os.Getpid())) {
			t.Errorf("Canonicalize(%s) = %q, want /proc/self spelled as such", p, r)
		}
	}
}

// TestCanonicalizeLinkLimit follows 40 links, as Linux does, and stops at 41.
func TestCanonicalizeLinkLimit(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/end")
	prev := "end"
	for i := 1; i <= 41; i++ {
		name := fmt.Sprintf("l%02d", i)
		tr.link(prev, "ws/"+name)
		prev = name
	}
	if _, r, err := decide.Canonicalize("l40", tr.ws, tr.home); err != nil || r != tr.ws+"/end" {
		t.Errorf("Canonicalize(l40) = %q, %v, want %q", r, err, tr.ws+"/end")
	}
	if _, _, err := decide.Canonicalize("l41", tr.ws, tr.home); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Canonicalize(l41) error = %v, want ELOOP", err)
	}
	// The kernel agrees: 41 links is too many for open(2).
	if _, err := os.Stat(filepath.Join(tr.ws, "l41")); !errors.Is(err, syscall.ELOOP) {
		t.Logf("os.Stat(l41) = %v (kernel limit differs)", err)
	}
}

// TestCanonicalizeEACCES: a directory on the way that cannot be searched is
// an error, not a missing name, also when the path only passes through it
// with "." or ".." (the kernel looks those up in it too). Root searches
// every directory, so as root the checks run in a child as nobody.
func TestCanonicalizeEACCES(t *testing.T) {
	through := []string{"locked/inner/f", "locked/../f2", "locked/.", "locked/inner/../../f2"}
	if ws := os.Getenv("PICKET_EACCES_WS"); ws != "" {
		for _, p := range through {
			if _, _, err := decide.Canonicalize(p, ws, ws); !errors.Is(err, syscall.EACCES) {
				t.Errorf("Canonicalize(%s) error = %v, want EACCES", p, err)
			}
		}
		return
	}
	tr := newTree(t)
	tr.file("ws/locked/inner/f")
	tr.file("ws/f2")
	if err := os.Chmod(filepath.Join(tr.ws, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(tr.ws, "locked"), 0o755) })
	if os.Geteuid() == 0 {
		asNobody(t, tr)
		return
	}
	for _, p := range through {
		if _, _, err := decide.Canonicalize(p, tr.ws, tr.home); !errors.Is(err, syscall.EACCES) {
			t.Errorf("Canonicalize(%s) error = %v, want EACCES", p, err)
		}
	}
	s := tr.spec()
	d := decide.Check(tr.compile(s), decide.Read, "locked/inner/f", tr.ws, -1)
	denied(decide.LayerBoundary, decide.RuleCanonicalize).check(t, "Check(read locked/inner/f)", d)
}

// asNobody runs TestCanonicalizeEACCES's checks on tr as uid 65534: the
// test binary is copied where nobody may run it, and the way to tr opened.
func asNobody(t *testing.T, tr *tree) {
	bin := filepath.Join(t.TempDir(), "decide.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), tr.dir, filepath.Dir(tr.dir), tr.ws} {
		os.Chmod(d, 0o755)
	}
	cmd := exec.Command(bin, "-test.run=^TestCanonicalizeEACCES$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PICKET_EACCES_WS="+tr.ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the checks as nobody failed: %v\n%s", err, out)
	}
}

func TestLexical(t *testing.T) {
	tests := []struct {
		path, want string
		ok         bool
	}{
		{"a/../b", "/ws/b", true},
		{"/x/link/..", "/x", true},
		{"~/a/..", "/home/u", true},
		{"~/..", "/home", true},
		{"../..", "/", true},
		{"a/./b", "", false},    // "." reads the same both ways
		{"a//b/", "", false},    // so do doubled and trailing slashes
		{"a..b/..c", "", false}, // dots inside a name are a name
		{"a\x00/..", "", false}, // unresolvable: Canonicalize denies it
	}
	for _, tt := range tests {
		got, ok := decide.Lexical(tt.path, "/ws", "/home/u")
		if got != tt.want || ok != tt.ok {
			t.Errorf("Lexical(%q) = %q, %v, want %q, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}
