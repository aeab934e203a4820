package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
	"golang.org/x/sys/unix"
)

// keeperUnderTest starts a keeper in this process for the scale tree's
// walk, as picket run would after its first walk.
func keeperUnderTest(t *testing.T, tr *scaleTree) (*keeper, *kept, walkSetup) {
	t.Helper()
	l, err := decide.Load(decide.Env{Cwd: tr.ws, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	spec := l.Policy.Spec()
	root := resolveOr(spec.Root)
	if _, err := expand(spec, l.Settings.Sandbox, root, tr.home, walkOptions{cacheDir: tr.cache, budget: time.Minute}); err != nil {
		t.Fatal(err)
	}
	ws, err := setUp(spec, root, tr.home)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSpec(tr.cache, ws.key, specOf(spec, root, tr.home, l.Settings.Sandbox)); err != nil {
		t.Fatal(err)
	}
	k, err := newKeeper(tr.cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.NewFile(uintptr(k.fd), "inotify").Close() })
	w, err := k.walk(ws.key)
	if err != nil {
		t.Fatal(err)
	}
	return k, w, ws
}

// walkMounts is what a fresh walk of ws mounts, as a keeper answers it.
func walkMounts(ws walkSetup) []string {
	w := newWalker(ws.j, ws.roots[0].Path, ws.ms, ws.roots, hiddenDirs(ws.x.hide), limits{system: DefaultSystemEntries}, nil, len(ws.ms) > 0)
	x := results(w.run(), ws.roots)
	return replyMounts(keeperReply{Hide: x.hide, Protect: x.protect, Write: x.write, Read: x.read})
}

func replyMounts(r keeperReply) []string {
	var out []string
	for _, h := range r.Hide {
		out = append(out, fmt.Sprintf("hide %s %v", h.Path, h.Dir))
	}
	for _, q := range r.Protect {
		out = append(out, "protect "+q)
	}
	for _, q := range r.Write {
		out = append(out, "write "+q)
	}
	for _, q := range r.Read {
		out = append(out, "read "+q)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestKeeperFollowsChanges mutates the trees at random between requests,
// as TestWalkFollowsChanges does, with no pause between a change and the
// next request: the keeper must answer exactly what a fresh walk mounts.
func TestKeeperFollowsChanges(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("PICKET_WALK_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (PICKET_WALK_SEED=%d replays it)", seed, seed)
	tr := newScaleTree(t, seed)
	tr.fill(filepath.Join(tr.ws, "src"), 600, 12)
	tr.fill(filepath.Join(tr.home, "proj", "node_modules"), 600, 12)
	tr.write("outside/secret.pem", "PEM")
	tr.write("outside/plain.txt", "plain")
	for i := range 12 {
		d := fmt.Sprintf("outside/sub%d", i)
		tr.fill(filepath.Join(tr.base, d), 20, 4)
		tr.write(fmt.Sprintf("%s/a/b/c/d/e/f/g/h/i/%s", d, secretNames[i%len(secretNames)]), "SECRET")
	}
	k, kw, ws := keeperUnderTest(t, tr)
	// Only what lies in the test's trees: /var/tmp, a root under code, is
	// shared with whatever else runs on the machine.
	mine := func(m []string) []string { return inTree(m, tr.base) }
	if got, want := mine(replyMounts(k.plan(kw, keeperRequest{}))), mine(walkMounts(ws)); !slices.Equal(got, want) {
		t.Fatalf("the keeper's first answer differs from a walk:\nkeeper %q\nwalk   %q", got, want)
	}
	nextSub := 0
	for round := 1; round <= 30; round++ {
		var did []string
		for range 1 + tr.rng.Intn(4) {
			did = append(did, tr.mutate(&nextSub))
		}
		got, want := mine(replyMounts(k.plan(kw, keeperRequest{}))), mine(walkMounts(ws))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (%s): the keeper answers otherwise than a fresh walk:\nkeeper only %q\nwalk only   %q", round, strings.Join(did, "\n"), minus(got, want), minus(want, got))
		}
	}
	// What it keeps on disk is that walk too.
	k.save(kw)
	c := loadCache(tr.cache, ws.key)
	x := results(c.recs, ws.roots)
	if got, want := mine(replyMounts(keeperReply{Hide: x.hide, Protect: x.protect, Write: x.write, Read: x.read})), mine(walkMounts(ws)); !slices.Equal(got, want) {
		t.Errorf("the walk the keeper saved differs from a fresh one:\nsaved %q\nwalk  %q", got, want)
	}
}

// TestKeeperChangedSince: after a plan, op "changed" names the directories
// that changed below the asked ones, with their known subdirectories, and
// only those; a keeper that did not make the plan names every one.
func TestKeeperChangedSince(t *testing.T) {
	tr := newScaleTree(t, 2)
	tr.fill(filepath.Join(tr.ws, "src"), 200, 4)
	tr.write("ws/src/a/b/keep.txt", "x")
	k, kw, _ := keeperUnderTest(t, tr)
	rep := k.plan(kw, keeperRequest{})
	tr.write("ws/src/a/new.txt", "x")
	tr.write(filepath.Join(tr.home, "proj", "elsewhere.txt"), "x")
	got := k.changedSince(kw, rep.ID, rep.Gen, []string{tr.ws})
	var paths []string
	for _, c := range got.Changed {
		paths = append(paths, c.Path)
		if c.Path == filepath.Join(tr.ws, "src", "a") && !slices.Contains(c.Kids, filepath.Join(tr.ws, "src", "a", "b")) {
			t.Errorf("src/a's known subdirectories = %q, want b among them", c.Kids)
		}
	}
	if !slices.Equal(paths, []string{filepath.Join(tr.ws, "src", "a")}) {
		t.Errorf("changed since the plan = %q, want only src/a", paths)
	}
	if all := k.changedSince(kw, "another keeper", rep.Gen, []string{tr.ws}); len(all.Changed) < 10 {
		t.Errorf("asked for another keeper's plan, it named %d directories, want every one below the workspace", len(all.Changed))
	}
}

// askEnv turns the test binary into a client of a keeper: it asks for a
// plan and exits 0 when it got one.
const askEnv = "PICKET_KEEPER_ASK"

func init() {
	if v := os.Getenv(askEnv); v != "" {
		dir, key, _ := strings.Cut(v, "\n")
		if _, ok := askKeeper(dir, key, keeperRequest{Op: "plan"}); ok {
			os.Exit(0)
		}
		os.Exit(1)
	}
}

// TestKeeperAnswersOnlyItsNamespace: a keeper answers a process of its
// own PID namespace and refuses one in another, as every sandboxed
// command is.
func TestKeeperAnswersOnlyItsNamespace(t *testing.T) {
	bwrap := FindBwrap(os.Getenv("PATH"))
	if bwrap == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("bubblewrap is missing")
		}
		t.Skip("bubblewrap is missing")
	}
	tr := newScaleTree(t, 3)
	tr.fill(filepath.Join(tr.ws, "src"), 50, 3)
	k, _, ws := keeperUnderTest(t, tr)
	l, sock, err := listenKeeper(tr.cache)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		k.serve(l, sock)
		close(done)
	}()
	self, _ := os.Executable()
	ask := func(prefix ...string) error {
		c := exec.Command(prefix[0], append(prefix[1:], self, "-test.run=^$")...)
		c.Env = append(os.Environ(), askEnv+"="+tr.cache+"\n"+ws.key)
		return c.Run()
	}
	if err := ask("env"); err != nil {
		t.Errorf("a client in the keeper's namespace got no answer: %v", err)
	}
	if err := ask(bwrap, "--dev-bind", "/", "/", "--unshare-user", "--unshare-pid", "--"); err == nil {
		t.Errorf("a client in another PID namespace got an answer")
	}
	os.Remove(sock)
	select {
	case <-done:
	case <-time.After(2 * keeperPoll):
		t.Errorf("the keeper still serves %v after its socket went", 2*keeperPoll)
	}
}

// TestKeeperSeesAMount: a filesystem mounted over a walked directory sends
// no inotify event; the keeper learns of it from the mount table and reads
// what the mount shows.
func TestKeeperSeesAMount(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	tr := newScaleTree(t, 5)
	tr.fill(filepath.Join(tr.ws, "src"), 40, 2)
	over := filepath.Dir(tr.write("ws/src/over/plain.txt", "x"))
	k, kw, _ := keeperUnderTest(t, tr)
	k.plan(kw, keeperRequest{})
	if err := unix.Mount("tmpfs", over, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(over, unix.MNT_DETACH) })
	secret := filepath.Join(over, ".env")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := k.plan(kw, keeperRequest{})
	if !slices.ContainsFunc(rep.Hide, func(h Hidden) bool { return h.Path == secret }) {
		t.Errorf("%s, on a tmpfs mounted over a walked directory, is not hidden (hidden: %v)", secret, rep.Hide)
	}
}

// TestKeeperSharesWatches: two walks over one home (two workspaces) hold
// one watch per directory between them, and forgetting one leaves the
// other's watches in place.
func TestKeeperSharesWatches(t *testing.T) {
	tr := newScaleTree(t, 6)
	tr.fill(filepath.Join(tr.home, "proj"), 200, 4)
	other := filepath.Join(tr.base, "ws2")
	tr.write("ws2/fence.jsonc", scalePolicy)
	tr.write("ws2/.git/HEAD", "ref: refs/heads/main")
	k, w1, _ := keeperUnderTest(t, tr)
	l, err := decide.Load(decide.Env{Cwd: other, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	spec := l.Policy.Spec()
	if _, err := expand(spec, l.Settings.Sandbox, other, tr.home, walkOptions{cacheDir: tr.cache, budget: time.Minute}); err != nil {
		t.Fatal(err)
	}
	ws2, _ := setUp(spec, other, tr.home)
	writeSpec(tr.cache, ws2.key, specOf(spec, other, tr.home, l.Settings.Sandbox))
	w2, err := k.walk(ws2.key)
	if err != nil {
		t.Fatal(err)
	}
	inHome := func(m map[string]bool) int {
		n := 0
		for p := range m {
			if isUnder(p, tr.home) {
				n++
			}
		}
		return n
	}
	homeDirs := inHome(w1.watching)
	watchedHome := 0
	for p := range k.watched {
		if isUnder(p, tr.home) {
			watchedHome++
		}
	}
	if homeDirs < 10 || inHome(w2.watching) != homeDirs || watchedHome != homeDirs {
		t.Errorf("home's %d directories are watched %d times by the keeper (walks: %d and %d)", homeDirs, watchedHome, homeDirs, inHome(w2.watching))
	}
	k.forget(w1)
	secret := tr.write("home/proj/.env", "SECRET")
	rep := k.plan(w2, keeperRequest{})
	if !slices.ContainsFunc(rep.Hide, func(h Hidden) bool { return h.Path == secret }) {
		t.Errorf("after the other walk went, %s made in home is not hidden", secret)
	}
}
