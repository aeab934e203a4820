package sidecar

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/picketdev/picket/decide"
)

// TestServeCacheSeesMounts: a mount or unmount, which inotify does not
// report, is a change too: a bind mount that puts another policy where the
// kept one was read applies at the next call.
func TestServeCacheSeesMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting takes root")
	}
	root := sandboxScratch(t)
	target := filepath.Join(root, "target", "t")
	h := &hookProject{t: t, dir: filepath.Join(root, "mp", "proj"), home: filepath.Join(root, "home")}
	h.write(target, "t\n")
	h.write(filepath.Join(root, "mp", "proj", "fence.jsonc"), `{"extends": "code"}`)
	h.write(filepath.Join(root, "other", "proj", "fence.jsonc"), `{"extends": "code", "filesystem": {"denyRead": ["`+filepath.Dir(target)+`/**"]}}`)
	pc := testCache(t, root, h.home)
	settle()
	allowed := func() bool { t.Helper(); return readAllowed(t, pc, h.dir, target) }
	if !allowed() {
		t.Fatalf("read %s denied before the mount", target)
	}
	mp := filepath.Join(root, "mp")
	if err := unix.Mount(filepath.Join(root, "other"), mp, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	mounted := true
	defer func() {
		if mounted {
			unix.Unmount(mp, unix.MNT_DETACH)
		}
	}()
	if allowed() {
		t.Errorf("read %s allowed after a mount put a policy denying it in place", target)
	}
	if err := unix.Unmount(mp, 0); err != nil {
		t.Fatal(err)
	}
	mounted = false
	if !allowed() {
		t.Errorf("read %s denied after the unmount", target)
	}
}

// TestServeCacheNewDirAfterChange: a working directory first looked up
// while a change to another's policy is queued keeps watching its own
// policy file. The change makes the watches be made again, which must not
// drop those the new directory's snapshot was just taken with: an edit in
// place after it applies at the next call.
func TestServeCacheNewDirAfterChange(t *testing.T) {
	root := sandboxScratch(t)
	proj := filepath.Join(root, "proj")
	sub := filepath.Join(proj, "sub")
	target := filepath.Join(proj, "README.md")
	fence := filepath.Join(proj, "fence.jsonc")
	h := &hookProject{t: t, dir: proj, home: filepath.Join(root, "home")}
	h.write(target, "hi\n")
	h.write(fence, `{"extends": "code"}`)
	os.MkdirAll(sub, 0o755)
	pc := testCache(t, root, h.home)
	settle()
	allowed := func(cwd string) bool { t.Helper(); return readAllowed(t, pc, cwd, target) }
	if !allowed(proj) {
		t.Fatalf("read %s denied before the edit", target)
	}
	// Rewritten in place, as an editor may: seen only as a modification.
	edit := func(s string) {
		t.Helper()
		if err := os.WriteFile(fence, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		settle()
	}
	edit(`{"extends": "code" }`)
	if !allowed(sub) {
		t.Fatalf("read %s denied from %s", target, sub)
	}
	edit(`{"extends": "code", "filesystem": {"denyRead": ["` + target + `"]}}`)
	if allowed(sub) {
		t.Errorf("read %s allowed from %s after the policy was edited to deny it", target, sub)
	}
}

// TestServeCacheSeesHardLinkedPolicy: a policy file that is a hard link
// of a file elsewhere (a dotfiles checkout) changes when that other name
// is written; the edit applies at the next call.
func TestServeCacheSeesHardLinkedPolicy(t *testing.T) {
	root := sandboxScratch(t)
	proj := filepath.Join(root, "proj")
	target := filepath.Join(proj, "README.md")
	other := filepath.Join(root, "dotfiles", "fence.jsonc")
	h := &hookProject{t: t, dir: proj, home: filepath.Join(root, "home")}
	h.write(target, "hi\n")
	h.write(other, `{"extends": "code"}`)
	if err := os.Link(other, filepath.Join(proj, "fence.jsonc")); err != nil {
		t.Fatal(err)
	}
	pc := testCache(t, root, h.home)
	settle()
	allowed := func() bool { t.Helper(); return readAllowed(t, pc, proj, target) }
	if !allowed() {
		t.Fatalf("read %s denied before the edit", target)
	}
	if err := os.WriteFile(other, []byte(`{"extends": "code", "filesystem": {"denyRead": ["`+target+`"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	if allowed() {
		t.Errorf("read %s allowed after %s, a hard link of the policy, was edited to deny it", target, other)
	}
}

// TestServeCacheWatchesBounded: the cache keeps at most maxCached working
// directories, and so at most their watches. When it starts over, the
// watches made for the directories it forgot go too: a sidecar asked
// about ever new directories must not hold ever more inotify watches
// (the user's max_user_watches is shared with their editor and tools).
func TestServeCacheWatchesBounded(t *testing.T) {
	root := sandboxScratch(t)
	dir := func(i int) string { return filepath.Join(root, "p", fmt.Sprint(i/64), fmt.Sprint(i)) }
	for i := range 3 * maxCached {
		if err := os.MkdirAll(dir(i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pc := testCache(t, root, filepath.Join(root, "home"))
	if pc.w == nil {
		t.Skip("no inotify")
	}
	settle()
	watches := func() int {
		pc.w.mu.Lock()
		defer pc.w.mu.Unlock()
		return len(pc.w.byWD)
	}
	most := 0
	for i := range 3 * maxCached {
		if _, err := pc.get(dir(i)); err != nil {
			t.Fatal(err)
		}
		most = max(most, watches())
	}
	// Each directory adds one watch (its own, for its fence.jsonc), each
	// 64 of them one more (their parent); the rest (the parents above,
	// the user config's) are shared.
	if limit := maxCached + 64; most > limit {
		t.Errorf("%d inotify watches held for %d working directories asked about, with at most %d kept: want at most %d", most, 3*maxCached, maxCached, limit)
	}
}

// TestServeCacheSeesMappedWrite: a policy file changed through a shared
// mapping (mmap), which inotify reports only once it is unmapped, applies
// at the next call all the same: the write moved the file's times.
func TestServeCacheSeesMappedWrite(t *testing.T) {
	root := sandboxScratch(t)
	proj := filepath.Join(root, "proj")
	h := &hookProject{t: t, dir: proj, home: filepath.Join(root, "home")}
	h.write(filepath.Join(proj, "secretz.txt"), "x\n")
	h.write(filepath.Join(proj, "secrets.txt"), "x\n")
	policy := filepath.Join(proj, "fence.jsonc")
	h.write(policy, `{"extends": "code", "filesystem": {"denyRead": ["`+filepath.Join(proj, "secretz.txt")+`"]}}`)
	pc := testCache(t, root, h.home)
	settle()
	allowed := func(name string) bool { t.Helper(); return readAllowed(t, pc, proj, filepath.Join(proj, name)) }
	if !allowed("secrets.txt") || allowed("secretz.txt") {
		t.Fatal("before the edit, want secrets.txt allowed and secretz.txt denied")
	}
	f, err := os.OpenFile(policy, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	i := bytes.LastIndex(m, []byte("secretz"))
	m[i+len("secret")] = 's' // still mapped: no inotify event yet
	time.Sleep(2 * racyWindow)
	if allowed("secrets.txt") {
		t.Errorf("read secrets.txt allowed after the policy was changed through a mapping to deny it")
	}
}

// testCache is a policy cache for an environment under root with home as
// its home (made here), closed when the test ends.
func testCache(t *testing.T, root, home string) *policyCache {
	t.Helper()
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config")}
	pc := cacheOver(env)
	t.Cleanup(pc.close)
	return pc
}

// readAllowed reports whether pc's policy for cwd lets path be read.
func readAllowed(t *testing.T, pc *policyCache, cwd, path string) bool {
	t.Helper()
	l, err := pc.get(cwd)
	if err != nil {
		t.Fatal(err)
	}
	return decide.Check(l.Policy, decide.Read, path, cwd, 0).Allow
}
