//go:build linux

package main

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
	"github.com/picketdev/picket/sandbox"
)

// The shell's agreement with check on trees past any bound the walk once
// had (8 levels, 20,000 entries a tree), and on trees that change between
// commands. The trees stay outside the system temp dir (sandboxScratch):
// the code template makes the temp dirs writable.

// scalePolicy is the project policy: code plus .env files.
const scalePolicy = `{ "extends": "code", "picket": { "blocklist": [".env", ".env.*"] } }`

// fillTree makes n empty files below dir, spread over directories of
// about fan entries, no deeper than depth.
func fillTree(t *testing.T, dir string, n, fan, depth int, rng *rand.Rand) {
	t.Helper()
	dirs := []string{dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		d := dirs[rng.Intn(len(dirs))]
		if rng.Intn(fan) == 0 && strings.Count(d[len(dir):], "/") < depth {
			d = filepath.Join(d, fmt.Sprintf("d%05d", i))
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		f, err := os.Create(filepath.Join(d, fmt.Sprintf("f%05d.js", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// TestRunAgreesWithCheckAtScale: a workspace and a home of about 25,000
// entries each, with secrets planted early and late in walk order, deeper
// than 8 levels and past 20,000 entries, in the workspace, in another
// project's node_modules and in home's own directories. Every access check
// denies fails in the shell (read with cat, write with an append), and
// ordinary files early and late stay readable, and writable in the
// workspace.
func TestRunAgreesWithCheckAtScale(t *testing.T) {
	w := newEscapeWorld(t)
	rng := rand.New(rand.NewSource(18))
	write(t, filepath.Join(w.ws, "fence.jsonc"), scalePolicy)
	fillTree(t, filepath.Join(w.ws, "pkg"), 25000, 12, 14, rng)
	fillTree(t, filepath.Join(w.home, "src", "other", "node_modules"), 25000, 8, 14, rng)
	deep := "a/b/c/d/e/f/g/h/i/j/k"
	secrets := []string{
		// the workspace: the root, alphabetically first and last, deep
		"ws/.env", "ws/aaa/.env.local", "ws/pkg50/config/.env.local", "ws/pkg99/mod9/deep/er/.env",
		"ws/zzz/" + deep + "/.env.production", "ws/zzz/" + deep + "/id_rsa", "ws/pkg/zzz/" + deep + "/id_ed25519",
		// home: anchored globs, another project's node_modules, dot dirs
		"home/.ssh/id_ed25519_work", "home/aaa/id_dsa", "home/src/other/.env",
		"home/src/other/node_modules/zz-last/test/fixtures/" + deep + "/id_rsa",
		"home/.config/app/.env.local", "home/zzz/" + deep + "/.env",
	}
	for _, s := range secrets {
		write(t, filepath.Join(w.base, s), "SECRET "+s)
	}
	ordinary := []string{"ws/main.go", "ws/zzz/" + deep + "/notes.txt", "ws/pkg/zzz/" + deep + "/code.go",
		"home/.bashrc", "home/zzz/" + deep + "/notes.txt", "home/src/other/node_modules/zz-last/index.js"}
	for _, o := range ordinary[1:] {
		write(t, filepath.Join(w.base, o), "plain")
	}
	var cases []agreeCase
	for _, f := range append(append([]string{}, secrets...), ordinary...) {
		p := filepath.Join(w.base, f)
		cases = append(cases, agreeCase{decide.Read, p, false, true}, agreeCase{decide.Write, p, false, true})
	}
	tr := agreeTree{base: w.base, ws: w.ws, home: w.home, out: w.out}
	cfg := filepath.Join(w.ws, "fence.jsonc")
	want := tr.checkAll(t, cfg, cases)
	denied := 0
	for i, c := range cases {
		if !want[i].Allow {
			denied++
		}
		if slices.Contains(secrets, strings.TrimPrefix(c.path, w.base+"/")) && want[i].Allow && c.access == decide.Read {
			t.Fatalf("check allows reading %s; the test expects a deny", c.path)
		}
	}
	// Twice: the first command walks, the second reuses the kept walk.
	for run := 1; run <= 2; run++ {
		got := tr.tryAll(t, w.bin, cfg, cases)
		for i, c := range cases {
			if want[i].Allow != got[i] {
				t.Errorf("run %d: %s %s: check says %v (%s %s), the sandbox %v", run, c.access, c.path, want[i].Allow, want[i].Rule, want[i].Pattern, got[i])
			}
		}
	}
	for _, s := range secrets {
		if b, _ := os.ReadFile(filepath.Join(w.base, s)); string(b) != "SECRET "+s {
			t.Errorf("%s was changed from inside the sandbox: %q", s, b)
		}
	}
	t.Logf("%d cases, %d denied by check", len(cases), denied)
}

// TestRunFollowsChangesBetweenCommands mutates a workspace and a home at
// random between commands, from outside the sandbox and from inside it:
// secrets made, renamed in, moved, deep chains, directories replaced by
// subtrees made long before (same name, other inode), symlinks made and
// pointed at a secret. After each round one command tries every secret
// and symlink, and a sample of other files, and must agree with check.
// PICKET_WALK_SEED replays a seed.
func TestRunFollowsChangesBetweenCommands(t *testing.T) {
	w := newEscapeWorld(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("PICKET_WALK_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (PICKET_WALK_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	write(t, filepath.Join(w.ws, "fence.jsonc"), scalePolicy)
	fillTree(t, filepath.Join(w.ws, "src"), 1500, 5, 10, rng)
	fillTree(t, filepath.Join(w.home, "proj", "node_modules"), 1500, 5, 10, rng)
	write(t, filepath.Join(w.out, "secret.pem"), "SECRET PEM")
	for i := range 6 {
		sub := filepath.Join(w.out, fmt.Sprintf("sub%d", i))
		fillTree(t, sub, 20, 3, 4, rng)
		write(t, filepath.Join(sub, "a/b/c/d/e/f/g/h/i", secretNames[i%len(secretNames)]), "SECRET")
	}
	// Past the walk's racy window: the first walk's stamps are trusted.
	time.Sleep(2100 * time.Millisecond)
	tr := agreeTree{base: w.base, ws: w.ws, home: w.home, out: w.out}
	cfg := filepath.Join(w.ws, "fence.jsonc")
	m := mutator{rng: rng, w: w, t: t}
	for round := 1; round <= 5; round++ {
		var did []string
		for range 2 + rng.Intn(3) {
			did = append(did, m.mutate())
		}
		cases := tr.interesting(rng)
		want := tr.checkAll(t, cfg, cases)
		got := tr.tryAll(t, w.bin, cfg, cases)
		for i, c := range cases {
			if !want[i].Allow && got[i] {
				t.Errorf("round %d (%s): %s %s: check denies (%s %s), the sandbox lets", round, strings.Join(did, "; "), c.access, c.path, want[i].Rule, want[i].Pattern)
			}
		}
	}
}

// secretNames are names the scale policy denies reading or writing.
var secretNames = []string{".env", ".env.local", "id_rsa", "id_ed25519", "server.pem", "tls.key"}

// interesting are the accesses worth trying in the trees: every file
// named like a secret and every symlink, read and written, and a sample
// of the other files.
func (tr agreeTree) interesting(rng *rand.Rand) []agreeCase {
	var cs []agreeCase
	for _, top := range []string{tr.ws, tr.home} {
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, "/.local/state/") {
				return nil
			}
			if slices.Contains(secretNames, d.Name()) || d.Type()&fs.ModeSymlink != 0 || rng.Intn(100) == 0 {
				cs = append(cs, agreeCase{decide.Read, p, false, true}, agreeCase{decide.Write, p, false, true})
			}
			return nil
		})
	}
	return cs
}

// mutator changes the trees between commands.
type mutator struct {
	rng  *rand.Rand
	w    escapeWorld
	t    *testing.T
	subs int
}

func (m *mutator) dirs(top string) []string {
	var out []string
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func (m *mutator) mutate() string {
	r := m.rng
	top := []string{filepath.Join(m.w.ws, "src"), filepath.Join(m.w.home, "proj")}[r.Intn(2)]
	dirs := m.dirs(top)
	dir := dirs[r.Intn(len(dirs))]
	secret := secretNames[r.Intn(len(secretNames))]
	switch r.Intn(6) {
	case 0: // made from outside
		os.WriteFile(filepath.Join(dir, secret), []byte("SECRET"), 0o644)
		return "made " + filepath.Join(dir, secret)
	case 1: // made by a command, where commands may write
		if !strings.HasPrefix(dir, m.w.ws) {
			return "nothing"
		}
		p := filepath.Join(dir, secret)
		pk(m.t, m.w.bin, m.w.ws, m.w.env(), "run", "--", "sh", "-c", "echo SECRET > "+strconv.Quote(p))
		return "made inside " + p
	case 2: // a directory moved
		to := dirs[r.Intn(len(dirs))]
		if dir == top || strings.HasPrefix(to+"/", dir+"/") {
			return "nothing"
		}
		dst := filepath.Join(to, fmt.Sprintf("moved%d", r.Intn(1000)))
		os.Rename(dir, dst)
		return "moved " + dir + " to " + dst
	case 3: // replaced by a subtree made long ago, under its name
		if dir == top || m.subs >= 6 {
			return "nothing"
		}
		os.RemoveAll(dir)
		os.Rename(filepath.Join(m.w.out, fmt.Sprintf("sub%d", m.subs)), dir)
		m.subs++
		return "replaced " + dir
	case 4: // a symlink with an ordinary name to a secret outside
		p := filepath.Join(dir, fmt.Sprintf("link%d", r.Intn(1000)))
		os.Symlink(filepath.Join(m.w.out, "secret.pem"), p)
		return "linked " + p
	default: // a deep chain
		p := dir
		for i := range 10 {
			p = filepath.Join(p, fmt.Sprintf("n%d", i))
		}
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, secret), []byte("SECRET"), 0o644)
		return "made deep " + filepath.Join(p, secret)
	}
}

// TestRunKeeper: the first command starts a keeper (see sandbox/keeper.go),
// which learns the walk the command kept, and the next ones are answered
// by it, without walking: a secret made
// between two commands is hidden in the next all the same, and the
// keeper's socket is out of the sandbox's reach. PICKET_WALK_KEEPER=off
// walks in the command's own process again.
func TestRunKeeper(t *testing.T) {
	w := newEscapeWorld(t)
	write(t, filepath.Join(w.ws, "fence.jsonc"), scalePolicy)
	fillTree(t, filepath.Join(w.ws, "src"), 300, 5, 6, rand.New(rand.NewSource(1)))
	state := filepath.Join(w.home, ".local", "state", "picket", "sandbox")
	if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "true"); code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	var sock string
	for deadline := time.Now().Add(20 * time.Second); sock == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		socks, _ := filepath.Glob(filepath.Join(state, "walk.sock"))
		if len(socks) > 0 {
			sock = socks[0]
		}
	}
	if sock == "" {
		t.Fatalf("no keeper socket appeared in %s", state)
	}
	// The keeper learns a walk from disk when first asked about it.
	if code, _, stderr := pk(t, w.bin, w.ws, w.env(), "run", "--", "true"); code != 0 {
		t.Fatalf("picket run = %d: %s", code, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(state, "walk-*.bin"))
	if len(kept) != 1 {
		t.Fatalf("kept walks: %q, want one", kept)
	}
	// The command that finds a keeper does not walk, so it does not write
	// the walk back (the keeper does, once idle for seconds).
	os.Remove(kept[0])
	secret := filepath.Join(w.ws, "src", "made", "between", ".env")
	write(t, secret, "SECRET-BETWEEN")
	got := w.attempts(t, nil, map[string]string{
		"secret": "cat " + secret,
		"keeper": fmt.Sprintf("%s=connect %s %s", helperEnv, w.bin, sock),
	})
	if got["secret"] || got["keeper"] {
		t.Errorf("inside the sandbox: %v, want neither the secret nor the keeper's socket", got)
	}
	if _, err := os.Stat(kept[0]); err == nil {
		t.Errorf("the command walked by itself though a keeper runs")
	}
	got = w.attempts(t, nil, map[string]string{"secret": "cat " + secret}, sandbox.KeeperEnv+"=off")
	if got["secret"] {
		t.Errorf("with %s=off the secret is readable", sandbox.KeeperEnv)
	}
	if _, err := os.Stat(kept[0]); err != nil {
		t.Errorf("with %s=off the command did not walk by itself: %v", sandbox.KeeperEnv, err)
	}
}
