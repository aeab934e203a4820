package decide_test

import (
	"path/filepath"
	"testing"

	"github.com/picketdev/picket/decide"
)

// aresBlocklist is the illustrative deployment list of the ares fence.
var aresBlocklist = []string{".env", ".env.*", "*.pem", "*.key", "id_rsa*", ".ssh", "*.db"}

// TestAresMatrix runs every shipped row of the ares tenant fence's testing
// matrix (L0 to L2, and the L3 size and extension rows through
// picket.writeGuards). Ares judges reads against the workspace too; picket
// does that under defaultDenyRead, so read rows run with it on.
func TestAresMatrix(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/src/main.go")
	tr.file("ws/a/b/.env")
	tr.file("ws/certs/server.pem")
	tr.file("ws/certs/SERVER.PEM")
	tr.file("outside/secret.txt")
	tr.file("home/.ssh/config")
	tr.link(tr.outside, "ws/out")
	tr.link(".env", "ws/a/b/innocent")
	tr.link(filepath.Join(tr.home, ".ssh"), "ws/keys")

	base := tr.spec()
	base.DefaultDenyRead = true
	base.AllowRead = rules(".")
	base.Blocklist = rules(aresBlocklist...)
	base.WriteGuards = decide.WriteGuards{MaxBytes: 1000, DenyExtensions: []string{".exe", "so", ".ZIP", ".tar.gz"}}
	pol := tr.compile(base)

	boundaryRead := denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)
	boundaryWrite := denied(decide.LayerBoundary, decide.RuleAllowWrite)
	blocked := func(p string) want { return denied(decide.LayerBlocklist, decide.RuleBlocklist).at(p) }
	guard := func(rule string) want { return denied(decide.LayerWriteGuard, rule) }

	tests := []struct {
		row    string
		mode   decide.Mode
		access decide.Access
		path   string
		size   int64
		want   want
	}{
		{"L0 write while read-only", decide.ReadOnly, decide.Write, "src/main.go", 1, denied(decide.LayerMode, decide.RuleMode)},
		{"L0 write of a new file while read-only", decide.ReadOnly, decide.Write, "src/new.go", 1, denied(decide.LayerMode, decide.RuleMode)},
		{"L0 read while read-only passes", decide.ReadOnly, decide.Read, "src/main.go", -1, allow},
		{"L0 read while read-only: L1 still judges", decide.ReadOnly, decide.Read, "../outside/secret.txt", -1, boundaryRead},
		{"L0 read while read-only: L2 still judges", decide.ReadOnly, decide.Read, "a/b/.env", -1, blocked(".env")},

		{"L1 relative path inside, read", "", decide.Read, "src/main.go", -1, allow},
		{"L1 relative path inside, write", "", decide.Write, "src/main.go", 10, allow},
		{"L1 relative with dot parts", "", decide.Write, "./src/../src/./main.go", 10, allow},
		{"L1 .. above the root, read", "", decide.Read, "../outside/secret.txt", -1, boundaryRead},
		{"L1 .. above the root, write", "", decide.Write, "src/../../outside/secret.txt", 1, boundaryWrite},
		{"L1 symlink inside pointing outside, read", "", decide.Read, "out/secret.txt", -1, boundaryRead},
		{"L1 symlink inside pointing outside, write", "", decide.Write, "out/new.txt", 1, boundaryWrite},
		{"L1 absolute path outside, read", "", decide.Read, filepath.Join(tr.outside, "secret.txt"), -1, boundaryRead},
		{"L1 absolute path outside, write", "", decide.Write, filepath.Join(tr.outside, "secret.txt"), 1, boundaryWrite},
		{"L1 missing intermediate dirs, write", "", decide.Write, "new/a/b/c.txt", 1, allow},
		{"L1 missing intermediate dirs, read", "", decide.Read, "new/a/b/c.txt", -1, allow},
		{"L1 missing dirs then .. outside", "", decide.Write, "new/a/../../../outside/x", 1, boundaryWrite},
		{"L1 full mode: outside read", decide.Full, decide.Read, filepath.Join(tr.outside, "secret.txt"), -1, allow},
		{"L1 full mode: outside write", decide.Full, decide.Write, "out/new.txt", 1, allow},
		{"L1 full mode: L2 still judges", decide.Full, decide.Write, filepath.Join(tr.outside, ".env"), 1, blocked(".env")},

		{"L2 .env at depth, read", "", decide.Read, "a/b/.env", -1, blocked(".env")},
		{"L2 .env at depth, write", "", decide.Write, "a/b/.env", 1, blocked(".env")},
		{"L2 .env.local, write", "", decide.Write, "x/.env.local", 1, blocked(".env.*")},
		{"L2 .env in full mode", decide.Full, decide.Read, "a/b/.env", -1, blocked(".env")},
		{"L2 server.pem", "", decide.Read, "certs/server.pem", -1, blocked("*.pem")},
		{"L2 SERVER.PEM", "", decide.Read, "certs/SERVER.PEM", -1, blocked("*.pem")},
		{"L2 Id_Rsa.pub spelled in capitals", "", decide.Write, "ID_RSA.PUB", 1, blocked("id_rsa*")},
		{"L2 a .ssh directory component", "", decide.Read, ".SSH/known_hosts", -1, blocked(".ssh")},
		{"L2 protected name through a symlink", "", decide.Read, "a/b/innocent", -1, blocked(".env")},
		{"L2 protected dir through a symlink", decide.Full, decide.Read, "keys/config", -1, blocked(".ssh")},
		{"L2 blocklist in read-only mode", decide.ReadOnly, decide.List, "app.db", -1, blocked("*.db")},

		{"L3 payload above the size ceiling", "", decide.Write, "src/big.txt", 1001, guard(decide.RuleMaxBytes)},
		{"L3 payload at the size ceiling", "", decide.Write, "src/big.txt", 1000, allow},
		{"L3 unknown size", "", decide.Write, "src/big.txt", -1, allow},
		{"L3 denylisted extension", "", decide.Write, "bin/tool.exe", 1, guard(decide.RuleDenyExtensions).at(".exe")},
		{"L3 denylisted extension without dot in config", "", decide.Write, "lib/x.SO", 1, guard(decide.RuleDenyExtensions).at("so")},
		{"L3 denylisted extension written in capitals", "", decide.Write, "dist/a.zip", 1, guard(decide.RuleDenyExtensions).at(".ZIP")},
		{"L3 denylisted extension, read is fine", "", decide.Read, "bin/tool.exe", -1, allow},
		{"L3 denylisted double extension", "", decide.Write, "dist/pkg.TAR.GZ", 1, guard(decide.RuleDenyExtensions).at(".tar.gz")},
		{"L3 its last part alone is fine", "", decide.Write, "dist/pkg.gz", 1, allow},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			d := decide.Check(pol.WithMode(tt.mode), tt.access, tt.path, tr.ws, tt.size)
			tt.want.check(t, "Check("+string(tt.access)+" "+tt.path+")", d)
		})
	}
}

// TestVerificationGate is pi-fence's pass-1 gate: a fence.jsonc with
// defaultDenyRead and allowRead ["."] denies /etc/passwd with a structured
// answer and allows ./README.md.
func TestVerificationGate(t *testing.T) {
	tr := newTree(t)
	tr.file("ws/README.md")
	tr.file("home/.ssh/id_rsa")
	tr.link(filepath.Join(tr.home, ".ssh"), "x")
	fence := tr.writeFile("ws/fence.jsonc", `{
  // the gate
  "filesystem": {"defaultDenyRead": true, "allowRead": ["."], "allowWrite": ["."]},
}`)
	l, err := decide.Load(decide.Env{Cwd: tr.ws, Home: tr.home, ConfigHome: tr.path("xdg"), StateHome: tr.path("state"), ProjectDir: tr.ws})
	if err != nil {
		t.Fatal(err)
	}
	pol := l.Policy

	d := decide.Check(pol, decide.Read, "/etc/passwd", tr.ws, -1)
	denied(decide.LayerBoundary, decide.RuleDefaultDenyRead).check(t, "Check(read /etc/passwd)", d)
	if d.Pattern != "" || d.Source != fence || d.Suggestion == "" || d.Path != "/etc/passwd" || d.Resolved != "/etc/passwd" {
		t.Errorf("Check(read /etc/passwd) = %+v, want no pattern, source %s, a suggestion and both spellings", d, fence)
	}
	allow.check(t, "Check(read ./README.md)", decide.Check(pol, decide.Read, "./README.md", tr.ws, -1))
	allow.check(t, "Check(list .)", decide.Check(pol, decide.List, ".", tr.ws, -1))
	denied(decide.LayerBoundary, decide.RuleAllowWrite).check(t, "Check(write /tmp/foo)", decide.Check(pol, decide.Write, "/tmp/foo", tr.ws, 1))
	allow.check(t, "Check(write ./new.txt)", decide.Check(pol, decide.Write, "./new.txt", tr.ws, 1))
	// pi-fence's symlink escape: a link to ~/.ssh resolves before judging.
	d = decide.Check(pol, decide.Read, filepath.Join(tr.dir, "x/id_rsa"), tr.ws, -1)
	denied(decide.LayerBoundary, decide.RuleDefaultDenyRead).check(t, "Check(read x/id_rsa)", d)
	if want := filepath.Join(tr.home, ".ssh/id_rsa"); d.Resolved != want {
		t.Errorf("Check(read x/id_rsa).Resolved = %q, want %q", d.Resolved, want)
	}
	// The system locations programs need stay readable, /etc as a whole not.
	allow.check(t, "Check(read /usr/bin)", decide.Check(pol, decide.Read, "/usr", tr.ws, -1))
	denied(decide.LayerBoundary, decide.RuleDefaultDenyRead).check(t, "Check(read /etc/shadow)", decide.Check(pol, decide.Read, "/etc/shadow", tr.ws, -1))
	denied(decide.LayerBoundary, decide.RuleDefaultDenyRead).check(t, "Check(list /etc)", decide.Check(pol, decide.List, "/etc", tr.ws, -1))
}

// TestAgentFensePriority runs AgentFense's priority examples, with
// "/secrets/**" translated to the workspace-relative "secrets/**".
func TestAgentFensePriority(t *testing.T) {
	tr := newTree(t)
	for _, f := range []string{"app/main.py", "secrets/private.key", "secrets/public.key", "config/.env", "config/.env.local",
		"config/.env.public", "data/secret.json", "src/app.py", "output/log.txt", "metadata/index.csv", "docs/a.md"} {
		tr.file("ws/" + f)
	}
	perm := func(pattern string, level decide.Level, priority int, typ string) decide.Permission {
		return decide.Permission{Pattern: pattern, Permission: level, Priority: priority, Type: typ, Source: "test"}
	}
	type probe struct {
		path   string
		access decide.Access
		allow  bool
	}
	tests := []struct {
		name   string
		perms  []decide.Permission
		probes []probe
	}{
		{"priority in action", []decide.Permission{
			perm("**/*", decide.LevelRead, 0, ""),
			perm("secrets/**", decide.LevelNone, 0, ""),
			perm("secrets/public.key", decide.LevelRead, 0, "file"),
		}, []probe{
			{"app/main.py", decide.Read, true}, {"app/main.py", decide.Write, false},
			{"secrets/private.key", decide.Read, false}, {"secrets/private.key", decide.List, false},
			{"secrets/public.key", decide.Read, true}, {"secrets/public.key", decide.Write, false},
		}},
		{"explicit priority", []decide.Permission{
			perm("**/*", decide.LevelRead, 0, ""),
			perm("**/.env*", decide.LevelNone, 100, ""),
			perm("config/.env.public", decide.LevelRead, 200, ""),
		}, []probe{
			{"app/main.py", decide.Read, true}, {"config/.env", decide.Read, false},
			{"config/.env.local", decide.List, false}, {"config/.env.public", decide.Read, true},
			// A hidden directory hides what it holds.
			{"config/.env.d/prod", decide.Read, false}, {"config/.env.d/sub/x", decide.List, false},
		}},
		{"default deny, explicit allow", []decide.Permission{
			perm("**/*", decide.LevelNone, 0, ""),
			perm("src/**", decide.LevelRead, 10, ""),
			perm("docs/**", decide.LevelRead, 10, ""),
			perm("output/**", decide.LevelWrite, 10, ""),
		}, []probe{
			{"src/app.py", decide.Read, true}, {"src/app.py", decide.Write, false},
			{"data/secret.json", decide.Read, false}, {"output/log.txt", decide.Write, true},
			{"output/new/dir/file", decide.Write, true},
		}},
		{"layered", []decide.Permission{
			perm("**/*", decide.LevelRead, 0, ""),
			perm("**/.env*", decide.LevelNone, 100, ""),
			perm("secrets/**", decide.LevelNone, 100, ""),
			perm("**/*.key", decide.LevelNone, 100, ""),
			perm("metadata/**", decide.LevelView, 20, ""),
			perm("output/**", decide.LevelWrite, 10, ""),
			perm("secrets/public.key", decide.LevelRead, 200, ""),
		}, []probe{
			{"app/main.py", decide.Read, true}, {"config/.env", decide.Read, false},
			{"secrets/private.key", decide.Read, false}, {"secrets/public.key", decide.Read, true},
			{"metadata/index.csv", decide.List, true}, {"metadata/index.csv", decide.Read, false},
			{"output/log.txt", decide.Write, true}, {"docs/a.md", decide.Write, false},
			{"config/.env.d/prod", decide.Read, false}, {"keys.key/server", decide.Read, false},
		}},
		{"view on a directory glob is that directory only", []decide.Permission{
			perm("**/*", decide.LevelRead, 0, ""),
			perm("**/cache*", decide.LevelView, 10, ""),
		}, []probe{{"cache1", decide.Read, false}, {"cache1", decide.List, true}, {"cache1/data.txt", decide.Read, true}}},
		{"directory type outranks glob", []decide.Permission{
			perm("docs/**", decide.LevelRead, 0, ""),
			perm("docs", decide.LevelWrite, 0, "directory"),
		}, []probe{{"docs/a.md", decide.Write, true}, {"docs/new/b.md", decide.Write, true}}},
		{"file type is that path only", []decide.Permission{
			perm("**", decide.LevelRead, 0, ""),
			perm("docs", decide.LevelWrite, 0, "file"),
		}, []probe{{"docs/a.md", decide.Write, false}, {"docs", decide.Write, true}}},
		{"a tie goes to the most restrictive level", []decide.Permission{
			perm("data/**", decide.LevelWrite, 5, ""),
			perm("data/**", decide.LevelView, 5, ""),
			perm("data/**", decide.LevelRead, 5, ""),
		}, []probe{{"data/secret.json", decide.List, true}, {"data/secret.json", decide.Read, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tr.spec()
			s.Permissions = tt.perms
			pol := tr.compile(s)
			for _, pr := range tt.probes {
				d := decide.Check(pol, pr.access, pr.path, tr.ws, 1)
				if d.Allow != pr.allow {
					t.Errorf("Check(%s %s) = %s, want allow=%v", pr.access, pr.path, show(d), pr.allow)
				}
				if !d.Allow && d.Rule != decide.RulePermissions {
					t.Errorf("Check(%s %s) denied by %s, want %s", pr.access, pr.path, d.Rule, decide.RulePermissions)
				}
			}
		})
	}
}

// TestPermissionLevels checks what each level says and that a matching
// permissions rule replaces the boundary while denies from other lists
// still win.
func TestPermissionLevels(t *testing.T) {
	tr := newTree(t)
	tr.file("outside/out.txt")
	s := tr.spec()
	s.DenyWrite = rules(filepath.Join(tr.outside, "locked"))
	s.Blocklist = rules("*.pem")
	s.Permissions = []decide.Permission{
		{Pattern: tr.outside + "/**", Permission: decide.LevelWrite, Source: "test"},
		{Pattern: "hidden", Permission: decide.LevelNone, Source: "test"},
	}
	pol := tr.compile(s)
	allow.check(t, "Check(write outside/out.txt)", decide.Check(pol, decide.Write, filepath.Join(tr.outside, "out.txt"), tr.ws, 1))
	denied(decide.LayerBlocklist, decide.RuleDenyWrite).check(t, "Check(write outside/locked/x)", decide.Check(pol, decide.Write, filepath.Join(tr.outside, "locked/x"), tr.ws, 1))
	denied(decide.LayerBlocklist, decide.RuleBlocklist).check(t, "Check(write outside/k.pem)", decide.Check(pol, decide.Write, filepath.Join(tr.outside, "k.pem"), tr.ws, 1))
	d := decide.Check(pol, decide.List, "hidden/deeper/x", tr.ws, -1)
	denied(decide.LayerBlocklist, decide.RulePermissions).at("hidden").check(t, "Check(list hidden/deeper/x)", d)
	if d.Reason != "no such file or directory" || d.Suggestion != "" {
		t.Errorf("Check(list hidden/deeper/x) reason %q suggestion %q, want the not-found reason and no suggestion", d.Reason, d.Suggestion)
	}
	// With no matching rule, the boundary applies as usual.
	denied(decide.LayerBoundary, decide.RuleAllowWrite).check(t, "Check(write dir/x)", decide.Check(pol, decide.Write, filepath.Join(tr.dir, "x"), tr.ws, 1))
}

// TestSecretsAnywhere: unlike AgentFense's own matcher, "**/secrets/**"
// hides a secrets directory at the top, deep down, and what is below it.
func TestSecretsAnywhere(t *testing.T) {
	tr := newTree(t)
	paths := []string{"secrets/a", "a/b/secrets/c", "a/secrets/b/c", "secrets"}
	for _, p := range paths[:3] {
		tr.file("ws/" + p)
	}
	for _, pattern := range []string{"**/secrets/**", tr.ws + "/**/secrets/**", "**/secrets"} {
		t.Run("denyRead "+pattern, func(t *testing.T) {
			s := tr.spec()
			s.DenyRead = rules(pattern)
			pol := tr.compile(s)
			for _, p := range paths {
				denied(decide.LayerBlocklist, decide.RuleDenyRead).at(pattern).check(t, "Check(read "+p+")", decide.Check(pol, decide.Read, p, tr.ws, -1))
			}
			allow.check(t, "Check(read a/b)", decide.Check(pol, decide.Read, "a/b", tr.ws, -1))
		})
		t.Run("permissions none "+pattern, func(t *testing.T) {
			s := tr.spec()
			s.Permissions = []decide.Permission{{Pattern: pattern, Permission: decide.LevelNone, Source: "test"}}
			pol := tr.compile(s)
			for _, p := range paths {
				if pattern == "**/secrets" && p != "secrets" {
					continue // glob meaning: the name itself only
				}
				denied(decide.LayerBlocklist, decide.RulePermissions).check(t, "Check(list "+p+")", decide.Check(pol, decide.List, p, tr.ws, -1))
			}
		})
	}
}

// TestNoneHidesOnlyBelowTheWorkspace: a "none" glob that matches a
// directory above the workspace (a project in ~/.envs/proj) does not hide
// the project; one matching a directory inside it hides what it holds.
func TestNoneHidesOnlyBelowTheWorkspace(t *testing.T) {
	tr := newTree(t)
	ws := tr.mkdir(filepath.Join(tr.home, ".envs", "proj"))
	tr.file(filepath.Join(ws, "main.py"))
	tr.file(filepath.Join(ws, ".env.d", "prod"))
	pol := decide.MustCompile(decide.Spec{Root: ws, Home: tr.home, Permissions: []decide.Permission{
		{Pattern: "**", Permission: decide.LevelRead, Source: "test"},
		{Pattern: "**/.env*", Permission: decide.LevelNone, Priority: 100, Source: "test"},
	}})
	if d := decide.Check(pol, decide.Read, "main.py", ws, -1); !d.Allow {
		t.Errorf("read main.py in ~/.envs/proj = %+v, want allowed", d)
	}
	if d := decide.Check(pol, decide.Read, ".env.d/prod", ws, -1); d.Allow {
		t.Errorf("read .env.d/prod = allowed, want hidden")
	}
}
