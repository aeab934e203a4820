package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestServeCacheSeesResolution: a kept policy follows the filesystem it was
// resolved against, as a fresh `picket check` does. A rule's directory
// that appears as a symlink, or is pointed elsewhere, moves the rule to
// the new target at the next call; a .git made below the old top moves the
// workspace root. Both with inotify and with stat checks only.
func TestServeCacheSeesResolution(t *testing.T) {
	for _, watched := range []bool{true, false} {
		name := "inotify"
		if !watched {
			name = "stat"
		}
		t.Run(name, func(t *testing.T) {
			// Outside the temp dir, which the code template makes writable.
			root := sandboxScratch(t)
			h := &hookProject{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
			h.write(".git/HEAD", "ref: refs/heads/main\n")
			h.write("src/main.go", "package main\n")
			h.write("fence.jsonc", `{"extends": "code", "filesystem": {"denyRead": ["~/secrets/**"]}}`)
			os.MkdirAll(h.home, 0o755)
			data := filepath.Join(root, "data")
			for _, d := range []string{"x", "y"} {
				h.write(filepath.Join(data, d, "key"), "k\n")
			}
			// No CLAUDE_PROJECT_DIR: the root is the working directory's git top.
			env := []string{"HOME=" + h.home, "XDG_STATE_HOME=" + filepath.Join(root, "state"),
				"XDG_CONFIG_HOME=" + filepath.Join(root, "config")}
			pc := cacheOver(env)
			if !watched {
				pc.w = nil
			}
			settle()
			sub := filepath.Join(h.dir, "src")
			allowed := func(access decide.Access, path string) bool {
				t.Helper()
				l, err := pc.get(sub)
				if err != nil {
					t.Fatal(err)
				}
				return decide.Check(l.Policy, access, path, sub, 0).Allow
			}
			link := filepath.Join(h.home, "secrets")
			xkey, ykey := filepath.Join(data, "x", "key"), filepath.Join(data, "y", "key")
			if !allowed(decide.Read, xkey) {
				t.Fatalf("read %s denied before ~/secrets existed", xkey)
			}
			if err := os.Symlink(filepath.Join(data, "x"), link); err != nil {
				t.Fatal(err)
			}
			if allowed(decide.Read, xkey) {
				t.Errorf("read %s allowed after ~/secrets became a link to it", xkey)
			}
			// Pointed elsewhere by a rename over it, as tools do.
			tmp := link + ".new"
			if err := os.Symlink(filepath.Join(data, "y"), tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, link); err != nil {
				t.Fatal(err)
			}
			if allowed(decide.Read, ykey) || !allowed(decide.Read, xkey) {
				t.Errorf("after ~/secrets moved to y: read y allowed %v, x allowed %v; want false, true",
					allowed(decide.Read, ykey), allowed(decide.Read, xkey))
			}
			os.Remove(link)
			if !allowed(decide.Read, ykey) {
				t.Errorf("read %s denied after ~/secrets went", ykey)
			}

			// The workspace root follows a .git made in the working directory.
			other := filepath.Join(h.dir, "other.txt")
			if !allowed(decide.Write, other) {
				t.Fatalf("write %s denied inside the workspace", other)
			}
			if err := os.Mkdir(filepath.Join(sub, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if allowed(decide.Write, other) {
				t.Errorf("write %s allowed after src/.git made src the workspace", other)
			}
		})
	}
}

// TestServeCacheFollowsRenames: a kept policy follows a symlink on the
// working directory's path pointed elsewhere, and a directory above a
// watched one renamed, so an edit made afterwards still applies (review
// findings against an inotify watch made through the old path).
func TestServeCacheFollowsRenames(t *testing.T) {
	for _, watched := range []bool{true, false} {
		for _, projectDir := range []bool{false, true} {
			name := map[bool]string{true: "inotify", false: "stat"}[watched] + map[bool]string{true: "/project-dir", false: ""}[projectDir]
			t.Run(name, func(t *testing.T) {
				root := sandboxScratch(t)
				h := &hookProject{t: t, dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
				for _, d := range []string{"proj", "other"} {
					h.write(filepath.Join(root, d, "src", "f.txt"), "f\n")
				}
				os.MkdirAll(h.home, 0o755)
				cwd := filepath.Join(root, "cwd")
				if err := os.Symlink("proj", cwd); err != nil {
					t.Fatal(err)
				}
				env := []string{"HOME=" + h.home, "XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config")}
				if projectDir {
					env = append(env, "CLAUDE_PROJECT_DIR="+h.dir)
				}
				pc := cacheOver(env)
				defer pc.close()
				if !watched {
					pc.w = nil
				}
				allowed := func(cwd, path string) bool {
					t.Helper()
					settle()
					l, err := pc.get(cwd)
					if err != nil {
						t.Fatal(err)
					}
					return decide.Check(l.Policy, decide.Read, path, cwd, 0).Allow
				}
				otherF := filepath.Join(root, "other", "src", "f.txt")
				if !allowed(cwd, otherF) {
					t.Fatalf("read %s denied with no policy", otherF)
				}
				// The working directory's link is pointed at other/, then a
				// policy appears there.
				tmp := cwd + ".new"
				os.Symlink("other", tmp)
				if err := os.Rename(tmp, cwd); err != nil {
					t.Fatal(err)
				}
				allowed(cwd, otherF)
				h.write(filepath.Join(root, "other", "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": ["`+filepath.Join(root, "other", "src")+`/**"]}}`)
				if allowed(cwd, otherF) {
					t.Errorf("read %s allowed after other/fence.jsonc denied it (cwd through a link pointed at other/)", otherF)
				}

				// A project moved aside and put back as a copy: an edit of the
				// copy's policy applies.
				ws := filepath.Join(root, "ws", "proj")
				h.write(filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
				h.write(filepath.Join(ws, "src", "f.txt"), "f\n")
				h.write(filepath.Join(ws, "fence.jsonc"), `{"extends": "code"}`)
				wsF := filepath.Join(ws, "src", "f.txt")
				if !allowed(ws, wsF) {
					t.Fatalf("read %s denied", wsF)
				}
				if err := os.Rename(filepath.Join(root, "ws"), filepath.Join(root, "ws_old")); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command("cp", "-a", filepath.Join(root, "ws_old"), filepath.Join(root, "ws")).CombinedOutput(); err != nil {
					t.Fatalf("cp: %v\n%s", err, out)
				}
				allowed(ws, wsF)
				h.write(filepath.Join(ws, "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": ["`+filepath.Join(ws, "src")+`/**"]}}`)
				if allowed(ws, wsF) {
					t.Errorf("read %s allowed after the copied project's fence.jsonc denied it", wsF)
				}
			})
		}
	}
}

// TestServeCacheFollowsLinkedPolicies: the user's fence config and an
// extends target reached through a symlink whose target goes through
// another link (a dotfiles checkout switched with ln -sfn) are followed
// when that inner link is pointed elsewhere.
func TestServeCacheFollowsLinkedPolicies(t *testing.T) {
	for _, watched := range []bool{true, false} {
		t.Run(map[bool]string{true: "inotify", false: "stat"}[watched], func(t *testing.T) {
			root := sandboxScratch(t)
			h := &hookProject{t: t, dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
			f := h.write(filepath.Join(root, "proj", "src", "f.txt"), "f\n")
			g := h.write(filepath.Join(root, "proj", "lib", "g.txt"), "g\n")
			h.write(filepath.Join(root, "proj", ".git", "HEAD"), "ref: refs/heads/main\n")
			deny := func(p string) string {
				return `{"extends": "code", "filesystem": {"denyRead": ["` + filepath.Dir(p) + `/**"]}}`
			}
			// ~/.config/fence -> ../../dots/cur/fence, dots/cur -> v1.
			h.write(filepath.Join(root, "dots", "v1", "fence", "fence.jsonc"), `{"extends": "code"}`)
			h.write(filepath.Join(root, "dots", "v2", "fence", "fence.jsonc"), deny(f))
			// A second project whose policy extends ../shared/base.jsonc,
			// shared -> lib/cur/shared, lib/cur -> v1.
			other := filepath.Join(root, "other")
			h.write(filepath.Join(other, ".git", "HEAD"), "ref: refs/heads/main\n")
			h.write(filepath.Join(other, "fence.jsonc"), `{"extends": "../shared/base.jsonc"}`)
			h.write(filepath.Join(root, "libs", "v1", "shared", "base.jsonc"), `{"extends": "code"}`)
			h.write(filepath.Join(root, "libs", "v2", "shared", "base.jsonc"), deny(g))
			links := [][2]string{{"v1", filepath.Join(root, "dots", "cur")}, {"../../dots/cur/fence", filepath.Join(h.home, ".config", "fence")},
				{"v1", filepath.Join(root, "libs", "cur")}, {"libs/cur/shared", filepath.Join(root, "shared")}}
			for _, l := range links {
				os.MkdirAll(filepath.Dir(l[1]), 0o755)
				if err := os.Symlink(l[0], l[1]); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"HOME=" + h.home, "XDG_STATE_HOME=" + filepath.Join(root, "state")}
			pc := cacheOver(env)
			defer pc.close()
			if !watched {
				pc.w = nil
			}
			allowed := func(cwd, path string) bool {
				t.Helper()
				settle()
				l, err := pc.get(cwd)
				if err != nil {
					t.Fatal(err)
				}
				return decide.Check(l.Policy, decide.Read, path, cwd, 0).Allow
			}
			// No fence.jsonc in proj: the user config is the policy.
			if !allowed(h.dir, f) || !allowed(other, g) {
				t.Fatal("denied before the switch")
			}
			relink := func(target, link string) {
				tmp := link + ".new"
				os.Symlink(target, tmp)
				if err := os.Rename(tmp, link); err != nil {
					t.Fatal(err)
				}
			}
			relink("v2", filepath.Join(root, "dots", "cur"))
			if allowed(h.dir, f) {
				t.Errorf("read %s allowed after the user config's checkout switched to one denying it", f)
			}
			relink("v2", filepath.Join(root, "libs", "cur"))
			if allowed(other, g) {
				t.Errorf("read %s allowed after the extends target's checkout switched to one denying it", g)
			}
		})
	}
}

// TestPolicyCacheStat: without a watcher (as off Linux) the cache stats
// every place and still sees an edit and a new file.
func TestPolicyCacheStat(t *testing.T) {
	root := sandboxScratch(t)
	h := &hookProject{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	h.write("fence.jsonc", `{"extends": "code", "picket": {"blocklist": [".env"]}}`)
	h.write("src/main.go", "package main\n")
	os.MkdirAll(filepath.Join(h.dir, ".git"), 0o755)
	pc := cacheOver([]string{"HOME=" + h.home, "XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config")})
	pc.w = nil
	settle()
	chain := func(cwd string) string {
		l, err := pc.get(cwd)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(l.Chain, " ")
	}
	sub := filepath.Join(h.dir, "src")
	first, _ := pc.get(sub)
	if again, _ := pc.get(sub); again != first {
		t.Errorf("an unchanged policy was loaded again")
	}
	h.write("src/fence.jsonc", `{"extends": "../fence.jsonc"}`)
	settle()
	if got, want := chain(sub), "builtin:code "+filepath.Join(h.dir, "fence.jsonc")+" "+filepath.Join(sub, "fence.jsonc"); got != want {
		t.Errorf("after src/fence.jsonc appeared, chain = %q, want %q", got, want)
	}
	h.write("src/fence.jsonc", `{"extends": "code"}`)
	settle()
	if got, want := chain(sub), "builtin:code "+filepath.Join(sub, "fence.jsonc"); got != want {
		t.Errorf("after an edit, chain = %q, want %q", got, want)
	}
}
