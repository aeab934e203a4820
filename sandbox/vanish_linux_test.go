package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestMain runs the sandbox's first process ([LandlockExec]) when
// bubblewrap starts this test binary as picket's executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "run" {
		if code, ok := RunHidden(os.Args[2:], os.Stderr); ok {
			os.Exit(code)
		}
	}
	os.Exit(m.Run())
}

// TestRunPathVanished: a protected or hidden file that goes between the
// walk and bubblewrap's mounts (a test suite's .env or fence.json under a
// temp dir) neither fails the command nor shows a denied file: a
// protected file the walk found is skipped, a hidden one fails the setup
// and the command runs once under a fresh plan; one that keeps changing
// fails closed, with nothing run.
func TestRunPathVanished(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bwrap is not installed")
		}
		t.Skip("bwrap is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, ws, home := namesTree(t, "ws/fence.json", "ws/sub/fence.json", "ws/.env", "home/other/.env")
	state := filepath.Join(base, "state")
	s := decide.Spec{Root: ws, Home: home, Mode: decide.WorkspaceWrite,
		DenyRead: decide.Rules("test", "**/.env"), DenyWrite: decide.Rules("test", "**/fence.json")}
	l := &decide.Loaded{Policy: decide.MustCompile(s), Env: decide.Env{Cwd: ws, Home: home}}
	plan := func() Plan {
		t.Helper()
		p, err := NewPlan(l, Options{Cwd: ws, Exe: exe, EmptyFile: filepath.Join(state, "hidden"), CacheDir: filepath.Join(state, "sandbox"), NoKeeper: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(f, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(filepath.Join(base, f)), 0o755)
		if err := os.WriteFile(filepath.Join(base, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(f string) {
		t.Helper()
		os.RemoveAll(filepath.Join(base, f))
	}
	marker := filepath.Join(ws, "ran")
	// A directory where fence.json was would stop the file being made again.
	script := "cat " + home + "/other/.env " + ws + "/.env 2>/dev/null; test -d fence.json && echo placeholder; echo started >> " + marker + "; echo command-stderr >&2"
	run := func(p Plan, replan func() (Plan, error)) (string, string, int, error) {
		t.Helper()
		os.Remove(marker)
		var out, errb bytes.Buffer
		r := Runner{Bwrap: bwrap, Env: os.Environ(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, StateDir: state}
		code, err := RunReplanned(p, replan, r, []string{"sh", "-c", script})
		return out.String(), errb.String(), code, err
	}
	ran := func() int {
		b, _ := os.ReadFile(marker)
		return strings.Count(string(b), "started")
	}

	t.Run("protected file the walk found", func(t *testing.T) {
		p := plan()
		remove("ws/fence.json")
		remove("ws/sub") // and a directory with one: a workspace a test removed
		defer write("ws/fence.json", "{}")
		out, errb, code, err := run(p, func() (Plan, error) { return plan(), nil })
		if err != nil || code != 0 || ran() != 1 {
			t.Errorf("picket run with fence.json gone = %d, %v (ran %d times), want 0, nil, once\n%s", code, err, ran(), errb)
		}
		if strings.Contains(out, "secret") {
			t.Errorf("a hidden file showed:\n%s", out)
		}
		if strings.Contains(out, "placeholder") {
			t.Errorf("a placeholder directory stood where fence.json was")
		}
	})

	t.Run("hidden file, planned again", func(t *testing.T) {
		p := plan()
		remove("home/other/.env")
		replans := 0
		out, errb, code, err := run(p, func() (Plan, error) {
			replans++
			write("home/other/.env", "secret again") // back before the new walk: hidden again
			return plan(), nil
		})
		if err != nil || code != 0 || ran() != 1 || replans != 1 {
			t.Errorf("picket run with .env gone = %d, %v (ran %d times, planned again %d), want 0, nil, once, once\n%s", code, err, ran(), replans, errb)
		}
		if strings.Contains(out, "secret") {
			t.Errorf("a hidden file showed:\n%s", out)
		}
		if !strings.Contains(errb, "command-stderr") {
			t.Errorf("the command's stderr was lost:\n%s", errb)
		}
		if strings.Contains(errb, "bwrap") {
			t.Errorf("the attempt that failed left bubblewrap's message on the command's stderr:\n%s", errb)
		}
	})

	t.Run("hidden file that keeps going", func(t *testing.T) {
		p := plan()
		remove("home/other/.env")
		defer write("home/other/.env", "secret")
		_, errb, code, err := run(p, func() (Plan, error) {
			write("home/other/.env", "secret")
			p := plan()
			remove("home/other/.env")
			return p, nil
		})
		var se *SetupError
		if !errors.As(err, &se) || ran() != 0 {
			t.Errorf("picket run with .env going each time = %d, %v (ran %d times), want a SetupError, never run\n%s", code, err, ran(), errb)
		}
		if !strings.Contains(errb, "bwrap: ") || strings.Count(errb, "bwrap: ") != 1 {
			t.Errorf("stderr does not hold bubblewrap's message once, from the last attempt:\n%s", errb)
		}
	})
}
