package decide_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestSystemTempDir reads TMPDIR strictly: an existing directory of the
// user's (or a sticky one) outside the system trees, not "/", not home or
// above it, is taken with its symlinks resolved; anything else is ignored
// with a reason, and the temp dir is /tmp.
func TestSystemTempDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	home := filepath.Join(root, "home")
	mine := filepath.Join(root, "mine")
	sticky := filepath.Join(root, "sticky")
	for _, d := range []string{home, mine, sticky, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sticky, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"to-mine": mine, "to-home": home, "to-root": "/", "to-etc": "/etc"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	const other = "another user"
	for _, tc := range []struct {
		tmpdir string
		uid    int
		want   string // the directory taken, or the start of why it was ignored
	}{
		{"", uid, "/tmp"},
		{mine, uid, mine},
		{mine + "/", uid, mine},
		{mine + "/./", uid, mine},
		{filepath.Join(root, "to-mine"), uid, mine},
		{filepath.Join(home, "tmp"), uid, filepath.Join(home, "tmp")},
		{sticky, uid + 1, sticky},
		{"/tmp", uid, "/tmp"},
		{"/var/tmp", uid, "/var/tmp"},
		{mine, uid + 1, "why:" + mine + " belongs to another user"},
		{"tmp", uid, "why:it is not an absolute path"},
		{"./x", uid, "why:it is not an absolute path"},
		{"/", uid, "why:it is the root directory"},
		{filepath.Join(root, "to-root"), uid, "why:it is the root directory"},
		{home, uid, "why:" + home + " is your home directory or a directory above it"},
		{root, uid, "why:" + root + " is your home directory or a directory above it"},
		{filepath.Join(root, "to-home"), uid, "why:" + home + " is your home"},
		{filepath.Join(root, "missing"), uid, "why:" + filepath.Join(root, "missing") + " does not exist"},
		{filepath.Join(root, "file"), uid, "why:" + filepath.Join(root, "file") + " is not a directory"},
		{"/etc", uid, "why:/etc is a top-level directory"},
		{"/usr/lib", uid, "why:/usr/lib is in /usr, a system directory"},
		{filepath.Join(root, "to-etc"), uid, "why:/etc is a top-level directory"},
		{"/run/user", 0, "why:/run/user is in /run, a system directory"},
		{"/proc/self", uid, "why:"},
		{"/var/lib", 0, "why:/var/lib is in /var, a system directory"},
	} {
		got := decide.SystemTempDir(tc.tmpdir, home, tc.uid)
		if why, ignored := strings.CutPrefix(tc.want, "why:"); ignored {
			if got.Dir != "/tmp" || got.Ignored != tc.tmpdir || !strings.HasPrefix(got.Why, why) {
				t.Errorf("SystemTempDir(%q, uid %d) = %+v, want /tmp, ignored because %q…", tc.tmpdir, tc.uid, got, why)
			}
			continue
		}
		if got.Dir != tc.want || got.Ignored != "" {
			t.Errorf("SystemTempDir(%q, uid %d) = %+v, want %s taken", tc.tmpdir, tc.uid, got, tc.want)
		}
	}
}

// TestExpandTempDir: "$TMPDIR" is a token only as a pattern's whole first
// component.
func TestExpandTempDir(t *testing.T) {
	for _, tc := range []struct{ pat, dir, want string }{
		{"$TMPDIR", "/x/t", "/x/t"},
		{"$TMPDIR/**", "/x/t", "/x/t/**"},
		{"$TMPDIR/a/*.log", "/x/t", "/x/t/a/*.log"},
		{"$TMPDIR", "", "/tmp"},
		{"$TMPDIRS", "/x/t", "$TMPDIRS"},
		{"a/$TMPDIR", "/x/t", "a/$TMPDIR"},
		{"${TMPDIR}", "/x/t", "${TMPDIR}"},
		{"/tmp", "/x/t", "/tmp"},
	} {
		if got := decide.ExpandTempDir(tc.pat, tc.dir); got != tc.want {
			t.Errorf("ExpandTempDir(%q, %q) = %q, want %q", tc.pat, tc.dir, got, tc.want)
		}
	}
}

// TestTempDirToken: the code template's "$TMPDIR" makes the system temp
// dir writable, in every list a policy may name it in, and a policy's own
// "$TMPDIR" rules follow Env.TempDir.
func TestTempDirToken(t *testing.T) {
	tr := newTree(t)
	tmpd := tr.mkdir("systmp")
	tr.writeFile("ws/fence.jsonc", `{"extends": "code", "filesystem": {"denyWrite": ["$TMPDIR/locked"]},
		"picket": {"permissions": [{"pattern": "$TMPDIR/ro/**", "permission": "read"}]}}`)
	env := tr.env("ws")
	env.ProjectDir, env.TempDir = tr.ws, tmpd
	pol := tr.load(env).Policy
	if !slices.ContainsFunc(pol.Spec().AllowWrite, func(r decide.Rule) bool { return r.Pattern == tmpd && r.Source == "builtin:code" }) {
		t.Errorf("allowWrite = %v, want the code template's $TMPDIR read as %s", pol.Spec().AllowWrite, tmpd)
	}
	allow.check(t, "Check(write $TMPDIR/x)", decide.Check(pol, decide.Write, filepath.Join(tmpd, "x"), tr.ws, 1))
	denied(decide.LayerBlocklist, decide.RuleDenyWrite).check(t, "Check(write $TMPDIR/locked)", decide.Check(pol, decide.Write, filepath.Join(tmpd, "locked"), tr.ws, 1))
	denied(decide.LayerBlocklist, decide.RulePermissions).check(t, "Check(write $TMPDIR/ro/x)", decide.Check(pol, decide.Write, filepath.Join(tmpd, "ro", "x"), tr.ws, 1))
	if !strings.HasPrefix(tr.dir, "/tmp/") {
		// Without a TempDir, "$TMPDIR" is /tmp: the tree is not writable.
		env.TempDir = ""
		pol = tr.load(env).Policy
		denied(decide.LayerBoundary, decide.RuleAllowWrite).check(t, "Check(write systmp/x) without TempDir", decide.Check(pol, decide.Write, filepath.Join(tmpd, "x"), tr.ws, 1))
	}
}
