package persist

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Tests that need a second process re-execute this test binary with
// childEnv naming what the child does; TestMain runs it instead of the tests.
const childEnv = "PERSIST_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode, os.Getenv("PERSIST_ROOT")))
	}
	os.Exit(m.Run())
}

func runChild(mode, root string) int {
	o := Options{Root: root, Access: "read"}
	switch mode {
	case "add":
		n, _ := strconv.Atoi(os.Getenv("PERSIST_N"))
		for i := range n {
			o.Path = fmt.Sprintf("%s/%d", os.Getenv("PERSIST_PREFIX"), i)
			if _, err := grant(o); err != nil {
				fmt.Println(err)
				return 1
			}
		}
	case "pause":
		o.Path = "/never"
		o.beforeCommit = func(tmp string) {
			os.WriteFile(os.Getenv("PERSIST_READY"), []byte(tmp), 0o644)
			time.Sleep(time.Minute)
		}
		_, err := grant(o)
		fmt.Println("not killed:", err)
		return 1
	case "eacces":
		o.Path = "/p"
		_, err := grant(o)
		fmt.Println(err)
		if !errors.Is(err, fs.ErrPermission) {
			return 3
		}
	default:
		fmt.Println("unknown child mode", mode)
		return 2
	}
	return 0
}

func child(t *testing.T, mode, root string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + mode, "PERSIST_ROOT=" + root}, env...)...)
	return cmd
}

func TestConcurrentProcessesLoseNothing(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := readFile(t, "testdata/in/comments.jsonc")
	writeFile(t, file, src)
	const n = 50
	var wg sync.WaitGroup
	for _, prefix := range []string{"/a", "/b"} {
		cmd := child(t, "add", root, "PERSIST_PREFIX="+prefix, "PERSIST_N="+strconv.Itoa(n))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %s: %v\n%s", prefix, err, out)
			}
		})
	}
	wg.Wait()
	got := allowReadSet(t, file)
	for _, prefix := range []string{"/a", "/b"} {
		for i := range n {
			if p := fmt.Sprintf("%s/%d", prefix, i); !got[p] {
				t.Errorf("lost %s", p)
			}
		}
	}
	if len(got) != 2*n+2 {
		t.Errorf("allowRead holds %d distinct paths, want %d", len(got), 2*n+2)
	}
	if !strings.Contains(readFile(t, file), "// spell checker") {
		t.Errorf("comments lost")
	}
	if b, _ := backups(file); len(b) != keepBackups {
		t.Errorf("%d backups, want %d", len(b), keepBackups)
	}
}

// TestConcurrentLinkedProjectsLoseNothing: two projects whose fence.jsonc
// link to one shared file take one lock, that of the shared file's
// directory, so their writers lose nothing either.
func TestConcurrentLinkedProjectsLoseNothing(t *testing.T) {
	base := t.TempDir()
	shared := filepath.Join(base, "shared", "fence.jsonc")
	os.MkdirAll(filepath.Dir(shared), 0o755)
	writeFile(t, shared, `{"extends": "code"}`)
	const n = 40
	var wg sync.WaitGroup
	for _, project := range []string{"a", "b"} {
		root := filepath.Join(base, project)
		os.MkdirAll(root, 0o755)
		if err := os.Symlink("../shared/fence.jsonc", filepath.Join(root, "fence.jsonc")); err != nil {
			t.Fatal(err)
		}
		cmd := child(t, "add", root, "PERSIST_PREFIX=/"+project, "PERSIST_N="+strconv.Itoa(n))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %s: %v\n%s", project, err, out)
			}
		})
	}
	wg.Wait()
	got := allowReadSet(t, shared)
	for _, project := range []string{"/a", "/b"} {
		for i := range n {
			if p := fmt.Sprintf("%s/%d", project, i); !got[p] {
				t.Errorf("lost %s", p)
			}
		}
	}
}

// allowReadSet is the filesystem.allowRead entries of the policy file.
func allowReadSet(t *testing.T, file string) map[string]bool {
	t.Helper()
	doc, err := decode([]byte(readFile(t, file)))
	if err != nil {
		t.Fatalf("policy no longer parses: %v", err)
	}
	got := map[string]bool{}
	for _, p := range doc.(map[string]any)["filesystem"].(map[string]any)["allowRead"].([]any) {
		got[unquote(p.(string))] = true
	}
	return got
}

// unquote undoes the class a persisted entry quotes one character of.
func unquote(entry string) string {
	return strings.NewReplacer("[", "", "]", "").Replace(entry)
}

func TestKilledWriterLeavesOldFile(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := readFile(t, "testdata/in/comments.jsonc")
	writeFile(t, file, src)
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := child(t, "pause", root, "PERSIST_READY="+ready)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child never reached the point between tmp and rename")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tmp := readFile(t, file+".tmp"); !strings.Contains(tmp, entryFor("read", "/never")) {
		t.Fatalf("child's tmp file lacks its edit: %q", tmp)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child exit = %v, want killed", err)
	}
	if got := readFile(t, file); got != src {
		t.Fatalf("policy changed by a killed writer:\n%s", got)
	}
	if _, err := decode([]byte(readFile(t, file))); err != nil {
		t.Fatalf("policy invalid after kill: %v", err)
	}
	// The next writer is not stopped by the stale tmp (nor the lock the
	// dead child held) and cleans it up.
	if _, err := grant(Options{Root: root, Access: "read", Path: "/next"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(file + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale tmp left: %v", err)
	}
}

// TestPermissionDenied needs a process the kernel refuses. Tests run as root
// in CI, where chmod stops nothing, so as root the check runs in a child
// re-executed as nobody (uid 65534); otherwise in this process.
func TestPermissionDenied(t *testing.T) {
	tests := []struct {
		name              string
		dirMode, fileMode fs.FileMode
		wantErr           string
	}{
		{"directory not writable", 0o555, 0o644, "fence.jsonc.tmp: permission denied"},
		{"file not readable", 0o777, 0o200, "failed to read"},
		// The rename needs only the directory: a read-only file (root's,
		// as nobody sees it) must not be replaced all the same.
		{"file not writable", 0o777, 0o444, "fence.jsonc: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := worldTraversableDir(t)
			root := filepath.Join(base, "project")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, "fence.jsonc")
			writeFile(t, file, `{"extends": "code"}`)
			chmod(t, file, tt.fileMode)
			chmod(t, root, tt.dirMode)
			t.Cleanup(func() { os.Chmod(root, 0o755) })
			var out string
			if os.Geteuid() == 0 {
				out = runAsNobody(t, base, root)
			} else {
				_, err := grant(Options{Root: root, Access: "read", Path: "/p"})
				if !errors.Is(err, fs.ErrPermission) {
					t.Fatalf("Grant error = %v, want permission denied", err)
				}
				out = err.Error()
			}
			if !strings.Contains(out, tt.wantErr) || !strings.Contains(out, file) {
				t.Errorf("error = %q, want it to contain %q and name %s", out, tt.wantErr, file)
			}
			chmod(t, file, 0o644)
			if got := readFile(t, file); got != `{"extends": "code"}` {
				t.Errorf("file changed: %q", got)
			}
			if diff := dirNames(t, root); len(diff) != 1 {
				t.Errorf("files left: %v", diff)
			}
		})
	}
}

func chmod(t *testing.T, name string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

// worldTraversableDir returns a fresh directory every user can traverse
// (t.TempDir's parents are 0700).
func worldTraversableDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "persist-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	chmod(t, dir, 0o755)
	return dir
}

// runAsNobody runs the "eacces" child as uid 65534 from a copy of this
// binary in base, and returns its output; the child itself checks that the
// error is a permission error.
func runAsNobody(t *testing.T, base, root string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "persist.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := child(t, "eacces", root)
	cmd.Path, cmd.Args = bin, []string{bin}
	cmd.Dir = base
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Fatalf("child as nobody: want a permission error, got: %s", out)
	}
	if err != nil {
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
	return string(out)
}
