//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook/e2e"
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
// private, in every mode. A workspace below /var/tmp or a $TMPDIR
// outside /tmp (directly or through a symlink) works the same, beside
// what the host keeps there.
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
		private := "" // /var/tmp and $TMPDIR are the host's, shared
		if strings.HasPrefix(ws, "/tmp/") {
			private = "/tmp"
		} else if strings.HasPrefix(ws, "/run/") {
			private = "/run"
		}
		places = append(places, place{name: name, ws: ws, cwd: ws, private: private, neighbor: nb})
	}
	add("tmp", "/tmp")
	add("var-tmp", "/var/tmp")
	wd, _ := os.Getwd()
	tmpdir := e2e.OwnTempDir(t, filepath.Join(filepath.Dir(filepath.Dir(wd)), ".cache", "tmpdir"))
	add("tmpdir", tmpdir)
	if dir := fmt.Sprintf("/run/user/%d", os.Getuid()); dirExists(dir) {
		add("run-user", dir)
	} else {
		t.Logf("no %s here: the /run/user case is not tried", dir)
	}
	link := filepath.Join(base, "link-to-tmp-ws")
	symlink(t, places[0].ws, link)
	places = append(places, place{name: "symlink", ws: places[0].ws, cwd: link, private: "/tmp", neighbor: places[0].neighbor})
	link = filepath.Join(base, "link-to-tmpdir-ws")
	symlink(t, places[2].ws, link)
	places = append(places, place{name: "symlink-tmpdir", ws: places[2].ws, cwd: link, neighbor: places[2].neighbor})

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
				code, stdout, stderr := pk(t, bin, pl.cwd, sandboxEnv(home, pl.cwd, "TMPDIR="+tmpdir), append(args, "--", "sh", "-c", script)...)
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
					if pl.private == "" && (leak == "HOST-TMP" || leak == "connected") {
						continue // beside the workspace in a shared temp dir: the host's
					}
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

// TestSystemTempDirAgrees guards against the code template naming /tmp
// and /var/tmp literally rather than the system temp dir: with TMPDIR
// outside /tmp (as on macOS and many CI runners) check denied writes
// there, and so did the shell. check, the hook and picket run now agree
// on $TMPDIR, and on a TMPDIR picket does not take (relative, home, a
// symlink to home): then only /tmp and /var/tmp are temp dirs.
func TestSystemTempDirAgrees(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	write(t, filepath.Join(ws, "fence.jsonc"), `{"extends": "code"}`)
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main")
	// Not below base: picket refuses a TMPDIR in a system tree, and the
	// clone (so base) may be under /var/lib.
	wd, _ := os.Getwd()
	tmpd := e2e.OwnTempDir(t, filepath.Join(filepath.Dir(filepath.Dir(wd)), ".cache", "tmpdir"))
	symlink(t, tmpd, filepath.Join(base, "tmplink"))
	symlink(t, home, filepath.Join(base, "homelink"))
	bin := picketBin(t, base)
	for _, tc := range []struct {
		name, tmpdir, target string
		allow                bool
	}{
		{"outside /tmp", tmpd, filepath.Join(tmpd, "f"), true},
		{"trailing slash", tmpd + "/", filepath.Join(tmpd, "g"), true},
		{"through a symlink", filepath.Join(base, "tmplink"), filepath.Join(tmpd, "h"), true},
		{"relative", "tmpdir", filepath.Join(tmpd, "i"), false},
		{"home", home, filepath.Join(home, "j"), false},
		{"symlink to home", filepath.Join(base, "homelink"), filepath.Join(home, "k"), false},
		{"missing", filepath.Join(base, "nope"), filepath.Join(base, "nope", "l"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sandboxEnv(home, ws, "TMPDIR="+tc.tmpdir, "CLAUDE_PROJECT_DIR="+ws, "CI=1")
			var out, errb strings.Builder
			code := run([]string{"check", "--cwd", ws, "write", tc.target}, env, strings.NewReader(""), &out, &errb)
			if (code == 0) != tc.allow {
				t.Errorf("TMPDIR=%s: check write %s = %d (%s%s), want allowed %v", tc.tmpdir, tc.target, code, out.String(), errb.String(), tc.allow)
			}
			ev := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"},"tool_use_id":"t1"}`, ws, tc.target)
			if a := runHookCLI(t, env, ev); (a.kind() == wantPass) != tc.allow {
				t.Errorf("TMPDIR=%s: hook Write %s = %v %q, want allowed %v", tc.tmpdir, tc.target, a.kind(), a.reason, tc.allow)
			}
			rc, stdout, stderr := pk(t, bin, ws, env, "run", "--", "sh", "-c", fmt.Sprintf("echo x > %s && echo wrote", tc.target))
			_, err := os.Stat(tc.target)
			if landed := err == nil; landed != tc.allow || strings.Contains(stdout, "wrote") != tc.allow {
				t.Errorf("TMPDIR=%s: picket run write %s: exit %d, landed %v (%s%s), want %v", tc.tmpdir, tc.target, rc, landed, stdout, stderr, tc.allow)
			}
			rc, stdout, _ = pk(t, bin, ws, env, "show")
			want := "system temp dir ($TMPDIR in patterns): " + tmpd
			if !tc.allow {
				want = fmt.Sprintf("system temp dir ($TMPDIR in patterns): /tmp (TMPDIR=%q is ignored: ", tc.tmpdir)
			}
			if rc != 0 || !strings.Contains(stdout, want) {
				t.Errorf("TMPDIR=%s: picket show says\n%s\nwant a line starting %q", tc.tmpdir, stdout, want)
			}
		})
	}
}

// TestSystemTempDirInTmp: a TMPDIR below /tmp (pam_tmpdir's
// /tmp/user/<uid>) exists, empty and writable, in the sandbox's private
// /tmp, so mktemp works; and Claude Code's cwd file there, which it reads
// from outside, is bound through by the shell prefix.
func TestSystemTempDirInTmp(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	write(t, filepath.Join(ws, "fence.jsonc"), `{"extends": "code"}`)
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main")
	tmpd, err := os.MkdirTemp("/tmp", "picket-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpd) })
	write(t, filepath.Join(tmpd, "host-note"), "HOST-NOTE")
	bin := picketBin(t, base)
	env := sandboxEnv(home, ws, "TMPDIR="+tmpd)
	code, stdout, stderr := pk(t, bin, ws, env, "run", "--", "sh", "-c", `f=$(mktemp) && echo "made $f" && cat "$TMPDIR/host-note"; true`)
	if code != 0 || !strings.Contains(stdout, "made "+tmpd+"/") || strings.Contains(stdout, "HOST-NOTE") {
		t.Errorf("mktemp with TMPDIR=%s: exit %d, %q %q; want a file made there and the host's note out of sight", tmpd, code, stdout, stderr)
	}
	cwdFile := filepath.Join(tmpd, "claude-1a2b-cwd")
	line := fmt.Sprintf("eval 'cd /' < /dev/null && pwd -P >| %s", cwdFile)
	if code, _, stderr := pk(t, bin, ws, env, "--shell-prefix", line); code != 0 {
		t.Fatalf("picket --shell-prefix: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(cwdFile); string(got) != "/\n" {
		t.Errorf("Claude Code's cwd file in TMPDIR holds %q on the host, want the command's pwd", got)
	}
}
