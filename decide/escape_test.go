package decide_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
)

// TestEscapes tries the ways out of a workspace: each must be judged on
// where the kernel would land, never on the spelling alone.
func TestEscapes(t *testing.T) {
	tr := newTree(t)
	tr.mkdir("ws/real/sub")
	tr.file("ws/real/notes.txt")
	tr.file("outside/secret.txt")
	tr.mkdir("ws-evil")
	tr.link(filepath.Join(tr.ws, "real/sub"), "ws/sublink")
	tr.link(tr.outside, "ws/planted")
	tr.link("hop2", "ws/hop1")
	tr.link("real/hop3", "ws/hop2")
	tr.link("../../outside", "ws/real/hop3")
	tr.link("loop-b", "ws/loop-a")
	tr.link("loop-a", "ws/loop-b")
	tr.link("self", "ws/self")
	tr.link(filepath.Join(tr.outside, "created-by-write"), "ws/dangling")
	tr.link("nowhere/new.txt", "ws/dangling-in")
	tr.link(filepath.Join(tr.ws, "real/notes.txt"), "ws/.env")
	tr.link(filepath.Join(tr.ws, "real"), "ws/config.pem")

	s := tr.spec()
	s.DefaultDenyRead = true
	s.AllowRead = rules(".")
	s.Blocklist = rules(".env", "*.pem", "id_rsa*")
	pol := tr.compile(s)

	boundaryW := denied(decide.LayerBoundary, decide.RuleAllowWrite)
	boundaryR := denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)
	canon := denied(decide.LayerBoundary, decide.RuleCanonicalize)
	blocked := func(p string) want { return denied(decide.LayerBlocklist, decide.RuleBlocklist).at(p) }
	tests := []struct {
		name     string
		access   decide.Access
		path     string
		want     want
		resolved string // "" skips the check
		errno    error  // the reason of a canonicalize deny
	}{
		// The kernel reaches ws/x (sublink's target's grandparent); by
		// text, as Node or Claude Code's Grep reads it, the path leaves the
		// workspace. Either reading denied denies.
		{".. after a symlink: really inside, lexically outside", decide.Write, "sublink/../../x", boundaryW, filepath.Join(tr.dir, "x"), nil},
		{".. after a planted symlink: lexically inside, really outside", decide.Write, "planted/../x", boundaryW, filepath.Join(tr.dir, "x"), nil},
		{".. after a symlink stays inside", decide.Write, "sublink/../notes.txt", allow, filepath.Join(tr.ws, "real/notes.txt"), nil},
		{".. after a planted symlink lands outside", decide.Write, "planted/../outside/secret.txt", boundaryW, filepath.Join(tr.dir, "outside/secret.txt"), nil},
		{"planted symlink, read", decide.Read, "planted/secret.txt", boundaryR, filepath.Join(tr.outside, "secret.txt"), nil},
		{"planted symlink, write", decide.Write, "planted/secret.txt", boundaryW, filepath.Join(tr.outside, "secret.txt"), nil},
		{"chain of symlinks", decide.Write, "hop1/secret.txt", boundaryW, filepath.Join(tr.outside, "secret.txt"), nil},
		{"chain of symlinks, read", decide.Read, "hop1", boundaryR, tr.outside, nil},
		{"loop", decide.Read, "loop-a/x", canon, "", syscall.ELOOP},
		{"self loop", decide.Write, "self", canon, "", syscall.ELOOP},
		{"dangling symlink as a write target pointing outside", decide.Write, "dangling", boundaryW, filepath.Join(tr.outside, "created-by-write"), nil},
		{"dangling symlink inside", decide.Write, "dangling-in", allow, filepath.Join(tr.ws, "nowhere/new.txt"), nil},
		{"lexical neighbour, write", decide.Write, tr.ws + "-evil/x", boundaryW, tr.ws + "-evil/x", nil},
		{"lexical neighbour, read", decide.Read, tr.ws + "-evil", boundaryR, tr.ws + "-evil", nil},
		{"lexical neighbour via ..", decide.Write, "../ws-evil/x", boundaryW, tr.ws + "-evil/x", nil},
		{"NUL byte", decide.Read, "real/notes.txt\x00.png", canon, "", syscall.EINVAL},
		{"5,000-byte path", decide.Read, strings.Repeat("a/", 2500), canon, "", syscall.ENAMETOOLONG},
		{"a 300-byte name", decide.Write, strings.Repeat("n", 300), canon, "", syscall.ENAMETOOLONG},
		{"through a file", decide.Read, "real/notes.txt/x", canon, "", syscall.ENOTDIR},
		{"~ expands to home", decide.Write, "~/x", boundaryW, filepath.Join(tr.home, "x"), nil},
		{"~ alone", decide.Read, "~", boundaryR, tr.home, nil},
		{"~user is not expanded", decide.Write, "~root/x", allow, filepath.Join(tr.ws, "~root/x"), nil},
		{"protected name as the symlink's own name", decide.Read, ".env", blocked(".env"), filepath.Join(tr.ws, "real/notes.txt"), nil},
		{"protected dir name as a symlink", decide.Write, "config.pem/notes.txt", blocked("*.pem"), filepath.Join(tr.ws, "real/notes.txt"), nil},
		{"case spelling against the blocklist", decide.Read, "real/SERVER.PEM", blocked("*.pem"), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan decide.Decision, 1)
			go func() { done <- decide.Check(pol, tt.access, tt.path, tr.ws, 1) }()
			var d decide.Decision
			select {
			case d = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Check(%q) did not return", tt.path)
			}
			tt.want.check(t, "Check("+string(tt.access)+" "+tt.path+")", d)
			if tt.resolved != "" && d.Resolved != tt.resolved {
				t.Errorf("Check(%q).Resolved = %q, want %q", tt.path, d.Resolved, tt.resolved)
			}
			if tt.errno != nil {
				_, _, err := decide.Canonicalize(tt.path, tr.ws, tr.home)
				if !errors.Is(err, tt.errno) {
					t.Errorf("Canonicalize(%q) error = %v, want %v", tt.path, err, tt.errno)
				}
				if !strings.Contains(d.Reason, tt.errno.Error()) {
					t.Errorf("Check(%q).Reason = %q, want it to name %q", tt.path, d.Reason, tt.errno)
				}
			}
		})
	}
}

// TestRuleThroughSymlink: a rule written through a symlinked directory
// matches the resolved path, and a rule on the resolved directory matches
// a path spelled through the link.
func TestRuleThroughSymlink(t *testing.T) {
	tr := newTree(t)
	tr.file("real/keys/k.txt")
	tr.file("real/other.txt")
	tr.link(filepath.Join(tr.dir, "real"), "alias")
	tr.link(filepath.Join(tr.dir, "real"), "ws/inlink")

	tests := []struct {
		name, rule, path string
	}{
		{"literal rule through the link, resolved path", filepath.Join(tr.dir, "alias/keys"), filepath.Join(tr.dir, "real/keys/k.txt")},
		{"glob rule through the link, resolved path", filepath.Join(tr.dir, "alias/keys/*.txt"), filepath.Join(tr.dir, "real/keys/k.txt")},
		{"relative rule through a link in the workspace", "inlink/keys", filepath.Join(tr.dir, "real/keys/k.txt")},
		{"rule on the real dir, path through the link", filepath.Join(tr.dir, "real/keys"), filepath.Join(tr.dir, "alias/keys/k.txt")},
		{"~ rule through a link", "~/lnk/keys/**", filepath.Join(tr.dir, "real/keys/k.txt")},
	}
	tr.link(filepath.Join(tr.dir, "real"), "home/lnk")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tr.spec()
			s.DenyRead = rules(tt.rule)
			pol := tr.compile(s)
			denied(decide.LayerBlocklist, decide.RuleDenyRead).at(tt.rule).check(t, "Check(read "+tt.path+")", decide.Check(pol, decide.Read, tt.path, tr.ws, -1))
			allow.check(t, "Check(read real/other.txt)", decide.Check(pol, decide.Read, filepath.Join(tr.dir, "real/other.txt"), tr.ws, -1))
		})
	}
	// An allow rule through a link lets the resolved path be written.
	s := tr.spec()
	s.AllowWrite = rules(filepath.Join(tr.dir, "alias"))
	pol := tr.compile(s)
	allow.check(t, "Check(write real/new)", decide.Check(pol, decide.Write, filepath.Join(tr.dir, "real/new"), tr.ws, 1))
	allow.check(t, "Check(write alias/new)", decide.Check(pol, decide.Write, filepath.Join(tr.dir, "alias/new"), tr.ws, 1))
}

// TestDenyMatchesAncestors: a deny on a directory hides all below it, and
// a deny glob matching an ancestor counts as a match, as a sandbox would.
func TestDenyMatchesAncestors(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/build/cache/x.o")
	for _, rule := range []string{"build", "build/**", "b*d", "**/cache", "**/*.o", "./build/cache"} {
		s := tr.spec()
		s.DenyRead = rules(rule)
		s.DenyWrite = rules(rule)
		pol := tr.compile(s)
		denied(decide.LayerBlocklist, decide.RuleDenyRead).at(rule).check(t, "Check(read build/cache/x.o) with "+rule, decide.Check(pol, decide.Read, "build/cache/x.o", tr.ws, -1))
		denied(decide.LayerBlocklist, decide.RuleDenyWrite).at(rule).check(t, "Check(write build/cache/y.o/new) with "+rule, decide.Check(pol, decide.Write, "build/cache/y.o/new", tr.ws, -1))
	}
}

// TestCaseInsensitive folds both sides when the policy says so.
func TestCaseInsensitive(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/Secrets/A.txt")
	s := tr.spec()
	s.DenyRead = rules("secrets")
	s.CaseInsensitive = true
	pol := tr.compile(s)
	denied(decide.LayerBlocklist, decide.RuleDenyRead).check(t, "Check(read Secrets/A.txt)", decide.Check(pol, decide.Read, "Secrets/A.txt", tr.ws, -1))
	s.CaseInsensitive = false
	pol = tr.compile(s)
	allow.check(t, "Check(read Secrets/A.txt) case-sensitive", decide.Check(pol, decide.Read, "Secrets/A.txt", tr.ws, -1))
}

// TestDotDotBothWays: a ".." after a symlink names the link target's
// parent to the kernel and the link's own parent to a tool that cleans the
// path by text first. A denial under either reading denies.
func TestDotDotBothWays(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/secrets/key")
	tr.file("ws/notes.txt")
	tr.mkdir("outside/d")
	tr.link("../outside/d", "ws/ln")
	s := tr.spec()
	s.DenyRead = rules("./secrets/**")
	pol := tr.compile(s)
	deny := denied(decide.LayerBlocklist, decide.RuleDenyRead)
	for _, tt := range []struct {
		path string
		want want
	}{
		// kernel: outside/secrets/key (allowed); by text: ws/secrets/key
		{"ln/../secrets/key", deny},
		{tr.ws + "/ln/../secrets", deny},
		{"ln/../../ws/secrets/key", deny},
		// both readings allowed
		{"ln/../notes.txt", allow},
		{"secrets/../notes.txt", allow},
		// no "..": one reading
		{"ln", allow},
	} {
		tt.want.check(t, "Check(read "+tt.path+")", decide.Check(pol, decide.Read, tt.path, tr.ws, -1))
	}
}

// TestPermissionsLiftOnResolved: a permissions rule replaces the boundary
// only for the path it matches once resolved; a symlink under it leading
// elsewhere gets the boundary of where it leads.
func TestPermissionsLiftOnResolved(t *testing.T) {
	tr := newTree(t)
	tr.mkdir("ws/output")
	tr.file("outside/notes.txt")
	tr.link(tr.home, "ws/output/h")
	tr.link(filepath.Join(tr.outside, "notes.txt"), "ws/output/n")
	s := tr.spec()
	s.DefaultDenyRead = true
	s.Permissions = []decide.Permission{
		{Pattern: "output/**", Permission: decide.LevelWrite, Priority: 10, Type: "glob", Source: "test"},
		{Pattern: "output/h/secret", Permission: decide.LevelNone, Priority: 10, Type: "glob", Source: "test"},
		{Pattern: "output/hidden", Permission: decide.LevelNone, Priority: 10, Type: "glob", Source: "test"},
	}
	pol := tr.compile(s)
	for _, tt := range []struct {
		access decide.Access
		path   string
		want   want
	}{
		{decide.Write, "output/h/.local/bin/git", denied(decide.LayerBoundary, decide.RuleAllowWrite)},
		{decide.Read, "output/n", denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)},
		{decide.Write, "output/new.txt", allow},
		// a restricting rule lifts no boundary: where it leads is outside
		// allowRead, so the boundary denies first
		{decide.Read, "output/h/secret", denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)},
		// and on the requested spelling it still restricts inside it
		{decide.Read, "output/hidden", denied(decide.LayerBlocklist, decide.RulePermissions)},
	} {
		tt.want.check(t, "Check("+string(tt.access)+" "+tt.path+")", decide.Check(pol, tt.access, tt.path, tr.ws, 1))
	}
}

// TestAllowRulesStayPut: an allow rule's literal directory is not
// followed through a symlink inside the workspace, which the agent can
// make (the shell may "rm -r build; ln -s ~ build"); one outside it is.
func TestAllowRulesStayPut(t *testing.T) {
	tr := newTree(t)
	tr.mkdir("outside/real")
	tr.file("outside/docs/a.txt")
	tr.link(tr.home, "ws/build")
	tr.link(filepath.Join(tr.outside, "docs"), "ws/docs")
	tr.link(tr.home, "ws/output")
	tr.link(filepath.Join(tr.outside, "real"), "outside/link")
	s := tr.spec()
	s.DefaultDenyRead = true
	s.AllowWrite = rules("./build", "./build-*/x", tr.outside+"/link")
	s.AllowRead = rules("./docs")
	s.Permissions = []decide.Permission{{Pattern: "output/**", Permission: decide.LevelWrite, Priority: 10, Type: "glob", Source: "test"}}
	pol := tr.compile(s)
	boundaryW := denied(decide.LayerBoundary, decide.RuleAllowWrite)
	for _, tt := range []struct {
		access decide.Access
		path   string
		want   want
	}{
		{decide.Write, "build/.local/bin/git", boundaryW},
		{decide.Write, filepath.Join(tr.home, ".local/bin/git"), boundaryW},
		{decide.Read, "docs/a.txt", denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)},
		{decide.Write, "output/x", boundaryW},
		// outside the workspace a linked directory is followed
		{decide.Write, filepath.Join(tr.outside, "link/x"), allow},
		{decide.Write, filepath.Join(tr.outside, "real/x"), allow},
	} {
		tt.want.check(t, "Check("+string(tt.access)+" "+tt.path+")", decide.Check(pol, tt.access, tt.path, tr.ws, 1))
	}
}

// TestHomeGlobThroughSymlinkedHome: "~/**/x" matches below home's resolved
// path too, when home is a symlink.
func TestHomeGlobThroughSymlinkedHome(t *testing.T) {
	tr := newTree(t)
	tr.file("realhome/proj/k.pem")
	tr.link(filepath.Join(tr.dir, "realhome"), "linkhome")
	s := tr.spec()
	s.Home = filepath.Join(tr.dir, "linkhome")
	s.DenyRead = rules("~/**/*.pem")
	pol := tr.compile(s)
	for _, p := range []string{"linkhome/proj/k.pem", "realhome/proj/k.pem"} {
		denied(decide.LayerBlocklist, decide.RuleDenyRead).check(t, "Check(read "+p+")", decide.Check(pol, decide.Read, tr.path(p), tr.ws, -1))
	}
}

// TestGitEntryNeverWritten: a .git file (a worktree's or submodule's
// gitfile) points git at a directory; rewritten, git would run the config
// and hooks of one the agent made. What is below a .git directory is
// judged as before.
func TestGitEntryNeverWritten(t *testing.T) {
	tr := newTree(t)
	tr.writeFile("ws/.git", "gitdir: /elsewhere/.git/worktrees/ws\n")
	tr.mkdir("ws/sub/.git")
	tr.mkdir("ws/realgit")
	tr.link(filepath.Join(tr.ws, "realgit"), "ws/linked/.git")
	s := tr.spec()
	s.Mode = decide.Full
	s.AllowWrite = rules("/")
	pol := tr.compile(s)
	for _, p := range []string{".git", "sub/.git", "new/.git", "lib/.GIT", "linked/.git"} {
		want := denied(decide.LayerMandatory, decide.RuleMandatory)
		switch p {
		case "lib/.GIT":
			want = allow // another name on a case-sensitive filesystem
		case "sub/.git":
			want = allow // a directory: a write to it fails anyway, and the rules judge what is below
		}
		want.check(t, "Check(write "+p+")", decide.Check(pol, decide.Write, p, tr.ws, 1))
	}
	allow.check(t, "Check(write sub/.git/objects/ab/cd)", decide.Check(pol, decide.Write, "sub/.git/objects/ab/cd", tr.ws, 1))
}

// TestDecideResolvedIsCleaned: Decide is handed Resolved by its caller; one
// that climbs out with "..", is relative or holds a NUL is not taken at its
// word (an embedding server may build requests itself).
func TestDecideResolvedIsCleaned(t *testing.T) {
	root := t.TempDir()
	p := decide.MustCompile(decide.Spec{Root: root, Home: t.TempDir(), Mode: decide.WorkspaceWrite, AllowWrite: decide.Rules("t", ".")})
	for _, resolved := range []string{root + "/../../../../etc/cron.d/x", "etc/cron.d/x", root + "/a\x00b", ""} {
		if d := decide.Decide(p, decide.Request{Access: decide.Write, Path: root + "/x", Resolved: resolved, Size: -1}); d.Allow {
			t.Errorf("Decide(write, Resolved %q) allowed", resolved)
		}
	}
	if d := decide.Decide(p, decide.Request{Access: decide.Write, Path: root + "/x", Resolved: root + "/./x", Size: -1}); !d.Allow {
		t.Errorf("Decide(write, Resolved %q) = %+v, want allowed", root+"/./x", d)
	}
}
