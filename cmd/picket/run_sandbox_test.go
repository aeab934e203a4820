package main

import (
	"bytes"
	"github.com/picketdev/picket/internal/testenv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/picketdev/picket/hook/e2e"
)

// requireBwrap skips sandbox tests on machines without bubblewrap; CI
// installs it (.ci/run), so there they always run.
func requireBwrap(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the shell sandbox is Linux only")
	}
	testenv.Bwrap(t)
}

// sandboxScratch returns a fresh directory outside /tmp, /var/tmp and
// ~/.cache: the sandbox's /tmp is private and the code template makes those
// writable, so a tree there would say nothing about the fence. It is under
// the repository's .cache/sandbox-tmp, else /var/lib/picket-test;
// PICKET_SANDBOX_TMP overrides both.
func sandboxScratch(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	return e2e.ScratchDir(t, "PICKET_SANDBOX_TMP", filepath.Join(filepath.Dir(filepath.Dir(wd)), ".cache", "sandbox-tmp"), "/var/lib/picket-test")
}

// picketBin copies the test binary to dir/bin/picket: run as "picket", it
// is the real CLI (TestMain dispatches on the name), and picket run re-runs
// itself inside the sandbox from there.
func picketBin(t testing.TB, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "picket")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// sandboxEnv is a clean environment for a picket subprocess: HOME and the
// XDG dirs under home, PATH with bwrap, nothing of the agent's.
func sandboxEnv(home, cwd string, extra ...string) []string {
	env := []string{
		"HOME=" + home, "PWD=" + cwd, "PATH=" + os.Getenv("PATH"), "LANG=C",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
	}
	return append(env, extra...)
}

// pk runs the picket binary and returns its status, stdout and stderr.
func pk(t *testing.T, bin, cwd string, env []string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir, c.Env = cwd, env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("picket %v: %v", args, err)
		}
	}
	return c.ProcessState.ExitCode(), out.String(), errb.String()
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
