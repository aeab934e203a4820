package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/tui"
)

// TestPersistNotOfferedForDirectory: an allow entry for a directory opens
// its whole subtree in every later session, while a grant is one exact
// path; so a block on a directory (a Grep/Glob/LS root, or a Read of one)
// offers once and session only, says why, and a persist answer that
// arrives anyway writes nothing.
func TestPersistNotOfferedForDirectory(t *testing.T) {
	f := newGrantFlow(t)
	dir := filepath.Join(f.outs, "dir")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	for _, a := range []decide.Access{decide.List, decide.Read} {
		d := f.block(t, a, "dir")
		req := f.p.PromptRequest(f.loaded, f.call("Grep"), d, f.turn())
		if req.CanPersist || !strings.Contains(req.PersistNote, "directory") {
			t.Errorf("%s of a directory: canPersist %v, note %q; want no persist and a note naming the directory", a, req.CanPersist, req.PersistNote)
		}
		out := f.p.CarryOut(f.loaded, f.call("Grep"), d, tui.AnswerPersist, f.turn(), Persist{File: filepath.Join(f.proj, "fence.jsonc")})
		if out.Decision == "grant-persist" {
			t.Errorf("%s of a directory answered persist = %+v, want no persist", a, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.proj, "fence.jsonc")); strings.Contains(string(b), dir) {
		t.Fatalf("fence.jsonc names the directory:\n%s", b)
	}
	// A file still offers persist.
	os.WriteFile(filepath.Join(f.outs, "notes.txt"), []byte("x"), 0o644)
	if req := f.p.PromptRequest(f.loaded, f.call("Read"), f.block(t, decide.Read, "notes.txt"), f.turn()); !req.CanPersist {
		t.Errorf("read of a file: persist not offered (%q)", req.PersistNote)
	}
}

// TestPersistOfferNamesRealFile: the persist confirm names the file that
// will be written (a symlinked fence.jsonc resolved), and a target persist
// would refuse (a link into the user's fence config dir) is not offered.
func TestPersistOfferNamesRealFile(t *testing.T) {
	t.Run("shared", func(t *testing.T) {
		f := newGrantFlow(t)
		shared := filepath.Join(filepath.Dir(f.proj), "shared", "fence.jsonc")
		f.relink(t, shared)
		req := f.p.PromptRequest(f.loaded, f.call("Read"), f.block(t, decide.Read, "notes.txt"), f.turn())
		if !req.CanPersist || req.PersistResolved != shared || req.PersistTarget != filepath.Join(f.proj, "fence.jsonc") {
			t.Fatalf("persist offer = %v, resolved %q, target %q; want the real file %s", req.CanPersist, req.PersistResolved, req.PersistTarget, shared)
		}
	})
	t.Run("install dir", func(t *testing.T) {
		f := newGrantFlow(t)
		install := filepath.Join(filepath.Dir(f.proj), "bin")
		f.relink(t, filepath.Join(install, "fence.jsonc"))
		f.loaded.Env.Executable = filepath.Join(install, "picket")
		req := f.p.PromptRequest(f.loaded, f.call("Read"), f.block(t, decide.Read, "notes.txt"), f.turn())
		if req.CanPersist || !strings.Contains(req.PersistNote, "resolves into "+install) {
			t.Fatalf("persist through a link into picket's install dir: canPersist %v, note %q; want not offered, saying why", req.CanPersist, req.PersistNote)
		}
		out := f.p.CarryOut(f.loaded, f.call("Read"), f.block(t, decide.Read, "notes.txt"), tui.AnswerPersist, f.turn(), Persist{File: filepath.Join(f.proj, "fence.jsonc")})
		if out.Decision != "grant-session" {
			t.Errorf("persist answered anyway = %+v, want a session grant", out)
		}
		if b, _ := os.ReadFile(filepath.Join(install, "fence.jsonc")); strings.Contains(string(b), "notes.txt") {
			t.Errorf("the file in the install dir was edited:\n%s", b)
		}
	})
	t.Run("user config", func(t *testing.T) {
		f := newGrantFlow(t)
		f.relink(t, filepath.Join(f.home, "config", "fence", "fence.jsonc"))
		req := f.p.PromptRequest(f.loaded, f.call("Read"), f.block(t, decide.Read, "notes.txt"), f.turn())
		if req.CanPersist || !strings.Contains(req.PersistNote, "refusing") {
			t.Fatalf("persist into the user's fence config: canPersist %v, note %q; want not offered, saying why", req.CanPersist, req.PersistNote)
		}
	})
}

// relink moves the project's fence.jsonc to target and leaves a symlink to
// it in its place, then reloads the policy.
func (f *grantFlow) relink(t *testing.T, target string) {
	t.Helper()
	file := filepath.Join(f.proj, "fence.jsonc")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := os.Rename(file, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	f.reload(t)
}
