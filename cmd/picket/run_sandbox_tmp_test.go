//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tmpWorkspace makes a git workspace below parent, which the test removes
// afterwards, with a main.go and a .git the sandbox protects. These tests
// are about workspaces in the system temp dirs, so unlike the others they
// put the workspace there on purpose.
func tmpWorkspace(t *testing.T, parent string) string {
	t.Helper()
	ws, err := os.MkdirTemp(parent, "picket-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	for f, c := range map[string]string{"main.go": "package main", ".git/HEAD": "ref: refs/heads/main", ".git/config": "[core]"} {
		write(t, filepath.Join(ws, f), c)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// listenUnix listens on a unix socket at path until the test ends.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); os.Remove(path) })
}

// TestRunWorkspaceInTmp guards against a workspace below /tmp (or /run,
// or reached through a symlink into /tmp) failing under picket run
// ("bwrap: Can't chdir to /tmp/…": the sandbox's /tmp was an empty
// tmpfs) and against what the sandbox protects there being dropped with
// the rest of /tmp. The command starts in the workspace, its writes land
// on the host, the workspace's .git stays protected, and the rest of /tmp
// (a file and a unix socket planted beside the workspace) or /run stays
// private, in every mode.
func TestRunWorkspaceInTmp(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	home := filepath.Join(base, "home")
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "SECRET-KEY")
	bin := picketBin(t, base)

	type place struct {
		name     string
		ws, cwd  string // the workspace, and the spelling the command starts from
		private  string // the private directory the workspace is in
		neighbor string // a file beside the workspace the sandbox must not show
	}
	var places []place
	add := func(name, parent string) {
		ws := tmpWorkspace(t, parent)
		nb, err := os.MkdirTemp(parent, "picket-neighbor-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(nb) })
		write(t, filepath.Join(nb, "note"), "HOST-TMP")
		listenUnix(t, filepath.Join(nb, "s.sock"))
		private := "/tmp"
		if strings.HasPrefix(ws, "/run/") {
			private = "/run"
		}
		places = append(places, place{name: name, ws: ws, cwd: ws, private: private, neighbor: nb})
	}
	add("tmp", "/tmp")
	if dir := fmt.Sprintf("/run/user/%d", os.Getuid()); dirExists(dir) {
		add("run-user", dir)
	} else {
		t.Logf("no %s here: the /run/user case is not tried", dir)
	}
	link := filepath.Join(base, "link-to-tmp-ws")
	symlink(t, places[0].ws, link)
	places = append(places, place{name: "symlink", ws: places[0].ws, cwd: link, private: "/tmp", neighbor: places[0].neighbor})

	for _, pl := range places {
		for _, mode := range []string{"code", "code-strict", "read-only", "full"} {
			t.Run(pl.name+"/"+mode, func(t *testing.T) {
				policy := `{"extends": "code"}`
				args := []string{"run"}
				switch mode {
				case "code-strict":
					policy = `{"extends": "code-strict"}`
				case "read-only", "full":
					args = append(args, "--mode", mode)
				}
				write(t, filepath.Join(pl.ws, "fence.jsonc"), policy)
				os.Remove(filepath.Join(pl.ws, "inside.txt"))
				script := strings.Join([]string{
					`echo "pwd $(pwd -P)"`,
					`echo hi > inside.txt && echo "wrote inside"`,
					`echo evil > .git/hooks/pre-commit && echo "wrote hook"`,
					`cat ~/.ssh/id_rsa`,
					fmt.Sprintf(`cat %s/note`, pl.neighbor),
					fmt.Sprintf(`env %s=connect %s %s/s.sock && echo "connected"`, helperEnv, bin, pl.neighbor),
					"true",
				}, "\n")
				code, stdout, stderr := pk(t, bin, pl.cwd, sandboxEnv(home, pl.cwd), append(args, "--", "sh", "-c", script)...)
				if code != 0 {
					t.Fatalf("picket run in %s exited %d:\n%s%s", pl.cwd, code, stdout, stderr)
				}
				if !strings.Contains(stdout, "pwd "+pl.ws+"\n") {
					t.Errorf("the command did not start in %s: %q", pl.ws, stdout)
				}
				wrote := strings.Contains(stdout, "wrote inside")
				got, _ := os.ReadFile(filepath.Join(pl.ws, "inside.txt"))
				if writable := mode != "read-only"; wrote != writable || (string(got) == "hi\n") != writable {
					t.Errorf("write inside the workspace: said %v, host holds %q; want it to land: %v", wrote, got, writable)
				}
				for _, leak := range []string{"wrote hook", "SECRET-KEY", "HOST-TMP", "connected"} {
					if strings.Contains(stdout, leak) {
						t.Errorf("the sandbox let %q through in %s (private %s):\n%s", leak, pl.ws, pl.private, stdout)
					}
				}
				if _, err := os.Stat(filepath.Join(pl.ws, ".git", "hooks", "pre-commit")); err == nil {
					t.Errorf("a hook was written in the workspace's .git")
				}
			})
		}
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
