package sandbox

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
)

// The walk's agreement with check, on trees that change between plans.
// These tests judge a plan as the kernel would apply it (sandboxReads,
// sandboxWrites): a path is out of reach when its resolved form is hidden,
// or, for writes, protected or outside every writable bind.

// scaleTree is a workspace and a home under a scratch directory outside
// the system temp dir, with a policy like the issue's: code plus a
// blocklist of .env and .env.*.
type scaleTree struct {
	base, ws, home, out, cache string
	rng                        *rand.Rand
}

const scalePolicy = `{"extends": "code", "picket": {"blocklist": [".env", ".env.*"]}}`

func newScaleTree(t *testing.T, seed int64) *scaleTree {
	base, ws, home := namesTree(t)
	tr := &scaleTree{base: base, ws: ws, home: home, out: filepath.Join(base, "outside"), cache: filepath.Join(base, "cache"),
		rng: rand.New(rand.NewSource(seed))}
	tr.write("ws/fence.jsonc", scalePolicy)
	// A git top of its own: the workspace is not the checkout around it.
	tr.write("ws/.git/HEAD", "ref: refs/heads/main")
	return tr
}

func (tr *scaleTree) write(rel, content string) string {
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(tr.base, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		panic(err)
	}
	return p
}

// fill makes n ordinary files below dir, in directories up to depth deep.
func (tr *scaleTree) fill(dir string, n, depth int) {
	dirs := []string{dir}
	for i := 0; i < n; i++ {
		d := dirs[tr.rng.Intn(len(dirs))]
		if tr.rng.Intn(6) == 0 && strings.Count(d[len(dir):], "/") < depth {
			d = filepath.Join(d, fmt.Sprintf("d%d", i))
			dirs = append(dirs, d)
		}
		tr.write(filepath.Join(d, fmt.Sprintf("f%d.js", i)), "x")
	}
}

func (tr *scaleTree) plan(t *testing.T, cache string) Plan {
	t.Helper()
	l, err := decide.Load(decide.Env{Cwd: tr.ws, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(l, Options{Cwd: tr.ws, CacheDir: cache, WalkBudget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (tr *scaleTree) policy(t *testing.T) decide.Policy {
	t.Helper()
	l, err := decide.Load(decide.Env{Cwd: tr.ws, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	return l.Policy
}

// resolvedOrParent resolves p, or its parent for a path that does not
// exist yet.
func resolvedOrParent(p string) (string, bool) {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r, true
	}
	d, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", false
	}
	return filepath.Join(d, filepath.Base(p)), true
}

func hiddenBy(p Plan, r string) bool {
	for _, h := range p.Hide {
		if r == h.Path || h.Dir && isUnder(r, h.Path) {
			return true
		}
	}
	return false
}

// sandboxReads reports whether a command under p could read path.
func sandboxReads(p Plan, path string) bool {
	r, ok := resolvedOrParent(path)
	return ok && !hiddenBy(p, r) && (p.Root != RootEmpty || under(r, p.Read) || under(r, p.Write))
}

// sandboxWrites reports whether a command under p could write path.
func sandboxWrites(p Plan, path string) bool {
	r, ok := resolvedOrParent(path)
	return ok && !hiddenBy(p, r) && p.writable(r) && !under(r, p.Protect)
}

// disagreements lists the existing paths below the trees that check
// denies and the plan leaves in reach.
func (tr *scaleTree) disagreements(t *testing.T, pol decide.Policy, p Plan) []string {
	t.Helper()
	var bad []string
	for _, top := range []string{tr.ws, tr.home} {
		filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil || strings.HasPrefix(path, filepath.Join(tr.home, ".local", "state")) {
				return nil
			}
			for _, a := range []decide.Access{decide.Read, decide.Write} {
				if a == decide.Read && d.IsDir() {
					continue
				}
				dec := decide.Check(pol, a, path, tr.ws, -1)
				if dec.Allow {
					continue
				}
				if a == decide.Read && sandboxReads(p, path) || a == decide.Write && !d.IsDir() && sandboxWrites(p, path) {
					bad = append(bad, fmt.Sprintf("%s %s (%s %s)", a, path, dec.Rule, dec.Pattern))
				}
			}
			return nil
		})
	}
	return bad
}

func mountSet(p Plan) []string {
	var out []string
	for _, h := range p.Hide {
		out = append(out, "hide "+h.Path)
	}
	for _, q := range p.Protect {
		out = append(out, "protect "+q)
	}
	for _, q := range p.Write {
		out = append(out, "write "+q)
	}
	slices.Sort(out)
	return out
}

// secretNames are names the scale policy denies reading (the blocklist,
// code's key names) or writing (code's key extensions).
var secretNames = []string{".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "server.pem", "tls.key"}

// TestWalkFollowsChanges mutates a tree at random between plans: secrets
// created, renamed in and out, moved, directories moved and renamed over
// one another, subtrees made long before moved in under the name of one
// removed (same name, other inode), symlinks made and pointed elsewhere,
// directories replaced by symlinks. After each round the plan made from
// the kept walk must mount exactly what a fresh walk mounts, and leave
// nothing in reach that check denies. PICKET_WALK_SEED replays a seed.
func TestWalkFollowsChanges(t *testing.T) {
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
	// Subtrees made now, moved in later: their directories keep old ctimes.
	for i := range 12 {
		d := fmt.Sprintf("outside/sub%d", i)
		tr.fill(filepath.Join(tr.base, d), 20, 4)
		tr.write(fmt.Sprintf("%s/a/b/c/d/e/f/g/h/i/%s", d, secretNames[i%len(secretNames)]), "SECRET")
	}
	// Past the racy window, so the first walk's stamps are trusted.
	time.Sleep(racyWindow + 100*time.Millisecond)
	pol := tr.policy(t)
	tr.plan(t, tr.cache)
	nextSub := 0
	for round := 1; round <= 12; round++ {
		var did []string
		for range 1 + tr.rng.Intn(4) {
			did = append(did, tr.mutate(&nextSub))
		}
		kept := tr.plan(t, tr.cache)
		fresh := tr.plan(t, "")
		// Only what lies in the test's trees: /var/tmp, a root under code,
		// is shared with whatever else runs on the machine.
		if a, b := inTree(mountSet(kept), tr.base), inTree(mountSet(fresh), tr.base); !slices.Equal(a, b) {
			t.Fatalf("round %d (%s): the kept walk mounts otherwise than a fresh one:\nkept only  %q\nfresh only %q", round, strings.Join(did, "; "), minus(a, b), minus(b, a))
		}
		if bad := tr.disagreements(t, pol, kept); len(bad) > 0 {
			t.Fatalf("round %d (%s): check denies, the sandbox lets:\n%s", round, strings.Join(did, "\n"), strings.Join(bad, "\n"))
		}
		if kept.Expansion.Read == 0 && len(did) > 0 {
			t.Logf("round %d read no directory again", round)
		}
	}
}

// dirs lists the directories below top, top included.
func dirsBelow(top string) []string {
	var out []string
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func filesBelow(top string) []string {
	var out []string
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// mutate makes one random change and says what it did.
func (tr *scaleTree) mutate(nextSub *int) string {
	r := tr.rng
	trees := []string{filepath.Join(tr.ws, "src"), filepath.Join(tr.home, "proj")}
	top := trees[r.Intn(len(trees))]
	dirs := dirsBelow(top)
	if len(dirs) == 0 {
		panic("no " + top)
	}
	dir := dirs[r.Intn(len(dirs))]
	secret := secretNames[r.Intn(len(secretNames))]
	switch r.Intn(9) {
	case 0: // a secret made
		p := filepath.Join(dir, secret)
		os.WriteFile(p, []byte("SECRET"), 0o644)
		return "made " + p
	case 1: // an ordinary file renamed to a secret's name, or back
		files := filesBelow(top)
		f := files[r.Intn(len(files))]
		to := filepath.Join(filepath.Dir(f), secret)
		if slices.Contains(secretNames, filepath.Base(f)) {
			to = filepath.Join(filepath.Dir(f), fmt.Sprintf("plain%d.txt", r.Int()))
		}
		os.Rename(f, to)
		return "renamed " + f + " to " + to
	case 2: // a directory moved elsewhere in the trees
		to := dirs[r.Intn(len(dirs))]
		if dir == top || isUnder(to, dir) {
			return "nothing"
		}
		dst := filepath.Join(to, fmt.Sprintf("moved%d", r.Intn(1000)))
		os.Rename(dir, dst)
		return "moved " + dir + " to " + dst
	case 3: // a directory removed and a subtree made long ago moved in under its name
		if dir == top || *nextSub >= 12 {
			return "nothing"
		}
		os.RemoveAll(dir)
		src := filepath.Join(tr.out, fmt.Sprintf("sub%d", *nextSub))
		*nextSub++
		os.Rename(src, dir)
		return "replaced " + dir + " by " + src
	case 4: // a directory renamed over an empty one of the same name elsewhere
		if dir == top {
			return "nothing"
		}
		empty := filepath.Join(dirs[r.Intn(len(dirs))], filepath.Base(dir))
		if isUnder(empty, dir) || os.Mkdir(empty, 0o755) != nil {
			return "nothing"
		}
		os.Rename(dir, empty)
		return "renamed " + dir + " over " + empty
	case 5: // a symlink with an ordinary name to a secret outside
		p := filepath.Join(dir, fmt.Sprintf("link%d", r.Intn(1000)))
		os.Symlink(filepath.Join(tr.out, "secret.pem"), p)
		return "linked " + p + " to the secret"
	case 6: // a symlink named like a secret, to an ordinary file
		p := filepath.Join(dir, secret)
		os.Symlink(filepath.Join(tr.out, "plain.txt"), p)
		return "linked " + p + " to plain.txt"
	case 7: // a symlink pointed elsewhere
		var links []string
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink != 0 {
				links = append(links, p)
			}
			return nil
		})
		if len(links) == 0 {
			return "nothing"
		}
		l := links[r.Intn(len(links))]
		target := filepath.Join(tr.out, "secret.pem")
		if r.Intn(2) == 0 {
			files := filesBelow(top)
			target = files[r.Intn(len(files))]
		}
		os.Remove(l)
		os.Symlink(target, l)
		return "pointed " + l + " at " + target
	default: // a chain deeper than any bound, with a secret at its end
		p := dir
		for i := range 10 + r.Intn(5) {
			p = filepath.Join(p, fmt.Sprintf("n%d", i))
		}
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, secret), []byte("SECRET"), 0o644)
		return "made deep " + filepath.Join(p, secret)
	}
}

// TestWalkSeesTwinMovedIn: a directory swapped for a twin made in the same
// clock tick (same name, same ctime, other inode) and holding a secret is
// read again: the walk compares inodes, not only ctimes.
func TestWalkSeesTwinMovedIn(t *testing.T) {
	tr := newScaleTree(t, 1)
	var in, out string
	for try := range 50 {
		in = filepath.Join(tr.ws, "src", fmt.Sprintf("twin%d", try), "c")
		out = filepath.Join(tr.out, fmt.Sprintf("twin%d", try), "c")
		os.MkdirAll(in, 0o755)
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, ".env"), []byte("SECRET"), 0o644)
		_, _, a, _ := statDir(in)
		_, _, b, _ := statDir(out)
		if a == b {
			break
		}
		in = ""
	}
	if in == "" {
		t.Skip("no two directories got the same ctime here: the kernel stamps them finely")
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	tr.plan(t, tr.cache)
	twin := filepath.Dir(in)
	if err := os.RemoveAll(twin); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Dir(out), twin); err != nil {
		t.Fatal(err)
	}
	p := tr.plan(t, tr.cache)
	if sandboxReads(p, filepath.Join(in, ".env")) {
		t.Errorf("%s, moved in with a twin of its directory, is readable (hidden: %v)", filepath.Join(in, ".env"), p.Hide)
	}
}

// inTree keeps the mounts on paths below base.
func inTree(mounts []string, base string) []string {
	var out []string
	for _, m := range mounts {
		if strings.Contains(m, " "+base+"/") {
			out = append(out, m)
		}
	}
	return out
}

// minus is what a holds and b does not.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestPruneWalks: kept walks unused for a week go, as do walks of the
// format before and sockets no keeper holds; a recent walk stays.
func TestPruneWalks(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o600)
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
		return p
	}
	gone := []string{touch("walk-old.bin", 8*24*time.Hour), touch("walk-old.spec", 8*24*time.Hour), touch("walk-x.json", 0), touch("walk-dead.sock", 0)}
	kept := []string{touch("walk-new.bin", time.Hour), touch("walk-new.spec", time.Hour), touch("hidden", 30*24*time.Hour)}
	pruneWalks(dir)
	for _, p := range gone {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

// TestWalkHidesWhatItCannotRead: a directory the walk may not read is
// hidden (a command could chmod it readable where it may write, and what
// it holds was never judged); one that went while the walk ran is not,
// and is read again by the next walk.
func TestWalkHidesWhatItCannotRead(t *testing.T) {
	tr := newScaleTree(t, 4)
	locked := filepath.Dir(tr.write("ws/locked/.env", "SECRET"))
	gone := filepath.Dir(tr.write("ws/gone/a.txt", "x"))
	l, err := decide.Load(decide.Env{Cwd: tr.ws, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := setUp(l.Policy.Spec(), tr.ws, tr.home)
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(ws.j, tr.ws, ws.ms, ws.roots, nil, limits{system: DefaultSystemEntries}, nil, true)
	w.open = func(p string) (*os.File, error) {
		switch p {
		case locked:
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		case gone:
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		return openDir(p)
	}
	x := results(w.run(), ws.roots)
	hidden := hiddenPaths(x)
	if !slices.Contains(hidden, locked) {
		t.Errorf("the unreadable %s is not hidden (hidden: %q)", locked, hidden)
	}
	if slices.Contains(hidden, gone) {
		t.Errorf("%s, gone while the walk ran, is hidden", gone)
	}
}
