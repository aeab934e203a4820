package decide_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/agents"
)

// env is a resolver environment inside the tree: its own XDG dirs, no
// project directory unless a test sets one, and the agents' configuration
// paths as picket's registry gives them to every command.
func (tr *tree) env(cwd string) decide.Env {
	return decide.Env{
		Cwd: tr.path(cwd), Home: tr.home,
		ConfigHome: tr.path("xdg/config"), StateHome: tr.path("xdg/state"),
		Executable: tr.path("bin/picket"), Agents: agents.ConfigPaths(),
	}
}

func (tr *tree) load(env decide.Env) *decide.Loaded {
	tr.t.Helper()
	l, err := decide.Load(env)
	if err != nil {
		tr.t.Fatalf("Load: %v", err)
	}
	return l
}

func TestLoadDiscovery(t *testing.T) {
	tests := []struct {
		name  string
		files []string // created with "{}"
		cwd   string
		setup func(tr *tree, env *decide.Env)
		chain []string // relative to the temp dir, or builtin:
	}{
		{"fence.jsonc before fence.json", []string{"ws/fence.jsonc", "ws/fence.json"}, "ws", nil, []string{"ws/fence.jsonc"}},
		{"fence.json alone", []string{"ws/fence.json"}, "ws", nil, []string{"ws/fence.json"}},
		{"nearest dir wins", []string{"ws/fence.jsonc", "ws/sub/fence.json"}, "ws/sub", nil, []string{"ws/sub/fence.json"}},
		{"a parent's file", []string{"ws/fence.jsonc"}, "ws/sub/deeper", nil, []string{"ws/fence.jsonc"}},
		{"user config under XDG_CONFIG_HOME", []string{"xdg/config/fence/fence.jsonc", "home/.config/fence/fence.jsonc"}, "ws", nil, []string{"xdg/config/fence/fence.jsonc"}},
		{"user config: jsonc before json", []string{"xdg/config/fence/fence.json", "xdg/config/fence/fence.jsonc"}, "ws", nil, []string{"xdg/config/fence/fence.jsonc"}},
		{"user config under ~/.config without XDG", []string{"home/.config/fence/fence.json"}, "ws",
			func(tr *tree, env *decide.Env) { env.ConfigHome = "" }, []string{"home/.config/fence/fence.json"}},
		{"project file before the user config", []string{"xdg/config/fence/fence.jsonc", "ws/fence.json"}, "ws", nil, []string{"ws/fence.json"}},
		{"embedded default", nil, "ws", nil, []string{"builtin:code"}},
		{"--config overrides discovery", []string{"ws/fence.jsonc", "ws/other.jsonc"}, "ws",
			func(tr *tree, env *decide.Env) { env.ConfigFile = "other.jsonc" }, []string{"ws/other.jsonc"}},
		{"a directory named fence.jsonc is skipped", []string{"ws/fence.jsonc/x", "ws/fence.json"}, "ws", nil, []string{"ws/fence.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tr.mkdir(tr.path(tt.cwd))
			for _, f := range tt.files {
				tr.writeFile(f, "{}")
			}
			env := tr.env(tt.cwd)
			if tt.setup != nil {
				tt.setup(tr, &env)
			}
			l := tr.load(env)
			var want []string
			for _, c := range tt.chain {
				if !strings.HasPrefix(c, "builtin:") {
					c = tr.path(c)
				}
				want = append(want, c)
			}
			if !slices.Equal(l.Chain, want) {
				t.Errorf("Load chain = %q, want %q", l.Chain, want)
			}
		})
	}
}

func TestLoadExtends(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		chain []string
	}{
		{"@base is the user config", map[string]string{
			"xdg/config/fence/fence.jsonc": `{}`,
			"ws/fence.jsonc":               `{"extends": "@base"}`,
		}, []string{"xdg/config/fence/fence.jsonc", "ws/fence.jsonc"}},
		{"@base without a user config is the default", map[string]string{
			"ws/fence.jsonc": `{"extends": "@base"}`,
		}, []string{"builtin:code", "ws/fence.jsonc"}},
		{"@base in the user config itself is the default", map[string]string{
			"xdg/config/fence/fence.jsonc": `{"extends": "@base"}`,
		}, []string{"builtin:code", "xdg/config/fence/fence.jsonc"}},
		{"a relative file", map[string]string{
			"ws/conf/base.jsonc": `{}`,
			"ws/fence.jsonc":     `{"extends": "./conf/base.jsonc"}`,
		}, []string{"ws/conf/base.jsonc", "ws/fence.jsonc"}},
		{"a relative file is relative to the extending file", map[string]string{
			"ws/conf/root.json": `{}`,
			"ws/conf/mid.jsonc": `{"extends": "./root.json"}`,
			"ws/fence.jsonc":    `{"extends": "conf/mid.jsonc"}`,
		}, []string{"ws/conf/root.json", "ws/conf/mid.jsonc", "ws/fence.jsonc"}},
		{"a template", map[string]string{
			"ws/fence.jsonc": `{"extends": "code-strict"}`,
		}, []string{"builtin:code", "builtin:code-strict", "ws/fence.jsonc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			for f, src := range tt.files {
				tr.writeFile(f, src)
			}
			l := tr.load(tr.env("ws"))
			var want []string
			for _, c := range tt.chain {
				if !strings.HasPrefix(c, "builtin:") {
					c = tr.path(c)
				}
				want = append(want, c)
			}
			if !slices.Equal(l.Chain, want) {
				t.Errorf("Load chain = %q, want %q", l.Chain, want)
			}
		})
	}
}

// TestLoadExtendsDepth allows 10 extends levels and refuses the 11th.
func TestLoadExtendsDepth(t *testing.T) {
	for _, levels := range []int{10, 11} {
		t.Run(fmt.Sprint(levels), func(t *testing.T) {
			tr := newTree(t)
			for i := 0; i < levels; i++ {
				tr.writeFile(fmt.Sprintf("ws/f%d.jsonc", i), fmt.Sprintf(`{"extends": "./f%d.jsonc"}`, i+1))
			}
			tr.writeFile(fmt.Sprintf("ws/f%d.jsonc", levels), `{}`)
			env := tr.env("ws")
			env.ConfigFile = "f0.jsonc"
			l, err := decide.Load(env)
			switch {
			case levels <= 10 && err != nil:
				t.Errorf("Load with %d levels: %v", levels, err)
			case levels <= 10 && len(l.Chain) != levels+1:
				t.Errorf("Load with %d levels: chain %q", levels, l.Chain)
			case levels > 10 && (err == nil || !strings.Contains(err.Error(), "10 levels")):
				t.Errorf("Load with %d levels: error %v, want one naming the 10-level limit", levels, err)
			}
		})
	}
}

func TestLoadExtendsCycle(t *testing.T) {
	tr := newTree(t)
	a := tr.writeFile("ws/fence.jsonc", `{"extends": "./b.jsonc"}`)
	b := tr.writeFile("ws/b.jsonc", `{"extends": "./sub/../c.jsonc"}`)
	c := tr.writeFile("ws/c.jsonc", `{"extends": "./fence.jsonc"}`)
	_, err := decide.Load(tr.env("ws"))
	if err == nil {
		t.Fatal("Load of a cycle = nil error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "cycle") || !strings.Contains(msg, a) || !strings.Contains(msg, b) || !strings.Contains(msg, filepath.Base(c)) {
		t.Errorf("Load of a cycle: %q, want the cycle named", msg)
	}
	// A file extending itself through a symlink is the same file.
	tr2 := newTree(t)
	tr2.link("fence.jsonc", "ws/alias.jsonc")
	tr2.writeFile("ws/fence.jsonc", `{"extends": "./alias.jsonc"}`)
	if _, err := decide.Load(tr2.env("ws")); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("Load of a self-extend through a symlink: %v, want a cycle", err)
	}
}

func TestLoadExtendsErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown template", `{"extends": "nope"}`, `"nope"`},
		{"missing file", `{"extends": "./gone.jsonc"}`, "gone.jsonc"},
		{"a name not ending in .json or .jsonc", `{"extends": "~/.vault-token"}`, "must end in .jsonc or .json"},
		{"a device by name", `{"extends": "/dev/zero"}`, "must end in .jsonc or .json"},
	}
	for _, tt := range tests {
		tr := newTree(t)
		tr.writeFile("ws/fence.jsonc", tt.src)
		_, err := decide.Load(tr.env("ws"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Load error = %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}

// TestLoadPolicyFileKinds: only a regular file of at most 1 MiB is read,
// however it is reached; anything else is an error at once, never a hang
// (a FIFO) or a fill of memory (/dev/zero, a huge sparse file).
func TestLoadPolicyFileKinds(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tr *tree) // makes ws/fence.jsonc, or what it extends as ws/base.jsonc
		want  string
	}{
		{"an extended FIFO", func(tr *tree) { tr.mkfifo("ws/base.jsonc") }, "named pipe"},
		{"a FIFO found by discovery", func(tr *tree) { tr.mkfifo("ws/fence.jsonc") }, "named pipe"},
		{"a .jsonc link to /dev/zero", func(tr *tree) { tr.link("/dev/zero", "ws/base.jsonc") }, "a device"},
		{"a sparse 1 GiB file", func(tr *tree) { tr.sparse("ws/base.jsonc", 1<<30) }, "1 MiB"},
		{"one byte over the cap", func(tr *tree) { tr.sparse("ws/base.jsonc", decide.MaxPolicySize+1) }, "1 MiB"},
		{"the user config as a FIFO", func(tr *tree) {
			tr.mkfifo("xdg/config/fence/fence.jsonc")
			tr.writeFile("ws/fence.jsonc", `{"extends": "@base"}`)
		}, "named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.setup(tr)
			if _, err := os.Lstat(tr.path("ws/fence.jsonc")); err != nil {
				tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc"}`)
			}
			done := make(chan error, 1)
			go func() { _, err := decide.Load(tr.env("ws")); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Load error = %v, want one saying %q", err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Load hangs")
			}
		})
	}
	// Up to the cap is fine: 1 MiB of blanks is an empty policy.
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", strings.Repeat(" ", decide.MaxPolicySize))
	tr.load(tr.env("ws"))
}

func (tr *tree) mkfifo(p string) {
	tr.t.Helper()
	p = tr.path(p)
	tr.mkdir(filepath.Dir(p))
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// sparse makes a file of size bytes that takes no space.
func (tr *tree) sparse(p string, size int64) {
	tr.t.Helper()
	p = tr.writeFile(p, "")
	if err := os.Truncate(p, size); err != nil {
		tr.t.Fatal(err)
	}
}

// TestLoadErrorsDoNotQuoteTheFile: a policy may be, or extend, a secret
// through a symlink; a syntax error names file:line:col and what was
// expected, and never quotes the bytes, which would reach the terminal and
// the model's deny reason.
func TestLoadErrorsDoNotQuoteTheFile(t *testing.T) {
	secrets := []string{
		"hvs.CAESIJsupersecret\n",
		"[default]\naws_secret_access_key = supersecret\n",
		`{"token": "abc" supersecret}`,
		"{\"a\": \"x\\supersecret\"}",
		"{} supersecret",
		`{"filesystem": {"denyRead": [` + strings.Repeat("[", 200) + `"supersecret"`,
	}
	for _, secret := range secrets {
		tr := newTree(t)
		tr.writeFile("home/.secret", secret)
		tr.link(tr.path("home/.secret"), "ws/base.jsonc")
		tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc"}`)
		_, err := decide.Load(tr.env("ws"))
		if err == nil || !strings.Contains(err.Error(), "base.jsonc:1:") || strings.Contains(err.Error(), "supersecret") {
			t.Errorf("Load with a base holding %q: error = %v, want base.jsonc:1: and no quote of the file", secret, err)
		}
	}
}

// TestLoadDeepNesting: nesting past schema.MaxNesting is an error naming
// the file, not a panic.
func TestLoadDeepNesting(t *testing.T) {
	tr := newTree(t)
	f := tr.writeFile("ws/fence.jsonc", `{"network":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`)
	_, err := decide.Load(tr.env("ws"))
	if err == nil || !strings.Contains(err.Error(), f+":1:111: syntax error: nesting deeper than 100 levels") {
		t.Errorf("Load error = %v, want %s:1:111 and nesting deeper than 100 levels", err, f)
	}
}

// TestLoadPatternFaults: a pattern that would silently match nothing is a
// problem at file:line:col saying how to write it.
func TestLoadPatternFaults(t *testing.T) {
	tests := []struct{ name, pattern, want string }{
		{"bytes that are not UTF-8", "key\xff", ":2:38: filesystem.denyRead[1]: not valid UTF-8"},
		{"a lone surrogate escape", `key\ud800`, `:2:38: filesystem.denyRead[1]: pattern holds U+FFFD`},
		{"a glob ending in /", "**/secrets/", `:2:38: filesystem.denyRead[1]: glob pattern "**/secrets/" ends in "/", so it matches nothing; write "**/secrets" for the directory, or "**/secrets/**" for it and all it holds`},
		{"a glob dir ending in /", "secrets/*/", `write "secrets/*" for the directory`},
		{"an empty component", "**/secrets//*", `has an empty component ("//") after a glob, so it matches nothing; write "**/secrets/*"`},
		{"a // in a glob", "/srv/*//x.key", `write "/srv/*/x.key"`},
		{"a . component", "sub/*/./b.txt", `has a "." component after a glob, so it matches nothing; write "sub/*/b.txt"`},
		{"a .. component", "sub/*/../x", `glob pattern "sub/*/../x" has a ".." after a glob, so it matches nothing; write the path without it`},
		{"a home glob", "~/.ssh/id_*/", `write "~/.ssh/id_*" for the directory`},
		{"a class that does not compile", "src/[z-a].txt", `:2:38: filesystem.denyRead[1]: pattern "src/[z-a].txt" does not compile: glob syntax error at offset 9: range hi character is less than lo`},
		{"a home class that does not compile", "~/.ssh/[9-0]*", `pattern "~/.ssh/[9-0]*" does not compile: glob syntax error at offset 12: `},
		{"an anywhere class that does not compile", "**/{x}/[z-a]", `pattern "**/{x}/[z-a]" does not compile: glob syntax error at offset 12: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", "{\"filesystem\": {\n  \"allowRead\": [], \"denyRead\": [\"x\", \""+tt.pattern+"\"]}}")
			_, err := decide.Load(tr.env("ws"))
			var pe *decide.ProblemsError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), f+":2:") {
				t.Errorf("Load with denyRead %q: error = %v, want a problem at %s:2: saying %s", tt.pattern, err, f, tt.want)
			}
		})
	}
	// In every pattern list, and in permissions.
	for _, src := range []string{
		`{"filesystem": {"allowRead": ["src/*/"]}}`, `{"filesystem": {"allowWrite": ["out/*/"]}}`,
		`{"filesystem": {"denyWrite": ["**/.env/"]}}`,
		`{"picket": {"permissions": [{"pattern": "**/secrets/", "permission": "none"}]}}`,
	} {
		tr := newTree(t)
		tr.writeFile("ws/fence.jsonc", src)
		if _, err := decide.Load(tr.env("ws")); err == nil || !strings.Contains(err.Error(), `ends in "/"`) {
			t.Errorf("Load(%s): error = %v, want one saying it ends in /", src, err)
		}
	}
	// Paths without glob characters, and the literal leading directories
	// of a glob, are cleaned as before; the suggested spellings load and
	// deny.
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", `{"filesystem": {"denyRead": ["secrets/", "a//b", "./c/./d", "e//f/../g/*.pem", "**/secrets", "sub/*/b.txt"]}}`)
	pol := tr.load(tr.env("ws")).Policy
	for _, p := range []string{"ws/secrets/x", "ws/a/b", "ws/c/d/e", "ws/e/g/k.pem", "ws/deep/secrets/x", "ws/sub/q/b.txt"} {
		denied(decide.LayerBlocklist, decide.RuleDenyRead).check(t, "Check(read "+p+")", decide.Check(pol, decide.Read, tr.path(p), tr.ws, 1))
	}
}

// TestLoadCompileProblems: a pattern that does not compile, in any list,
// and a blocklist entry that is not a name, are problems at file:line:col
// that name the file once, from every loader; a class that only fails
// case-folded is one when the policy folds case.
func TestLoadCompileProblems(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"allowRead", `{"filesystem": {"allowRead": [".", "[z-a]"]}}`, `:1:36: filesystem.allowRead[1]: pattern "[z-a]" does not compile: glob syntax error at offset 5: range hi character is less than lo`},
		{"permissions", `{"picket": {"permissions": [{"pattern": "x/[9-0]", "permission": "none"}]}}`, `:1:41: picket.permissions[0].pattern: pattern "x/[9-0]" does not compile: glob syntax error at offset 7: `},
		{"a blocklist path", `{"picket": {"blocklist": [".env", "a/b"]}}`, `:1:35: picket.blocklist[1]: blocklist entry "a/b" must be a single non-empty name`},
		{"a blocklist glob", `{"picket": {"blocklist": ["id_[z-a]*"]}}`, `:1:27: picket.blocklist[0]: blocklist entry "id_[z-a]*" does not compile: glob syntax error at offset 8: `},
		{"a folded class", `{"picket": {"caseInsensitive": true}, "filesystem": {"denyRead": ["[Z-a]"]}}`, `:1:67: filesystem.denyRead[0]: pattern "[Z-a]" does not compile: glob syntax error at offset 5: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", tt.src)
			_, err := decide.Load(tr.env("ws"))
			var pe *decide.ProblemsError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), f+tt.want) || strings.Count(err.Error(), f) != 1 {
				t.Errorf("Load(%s): error = %v, want one problem %s%s", tt.src, err, f, tt.want)
			}
		})
	}
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", `{"picket": {"caseInsensitive": false}, "filesystem": {"denyRead": ["[Z-a]"]}}`)
	tr.load(tr.env("ws"))
}

// TestLoadNetworkProblems: a network entry that names no host, or an
// upstream proxy picket cannot use, is a problem at file:line:col: a deny
// entry that matched nothing would let through what it was meant to stop.
func TestLoadNetworkProblems(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"a deny entry with a scheme", `{"network": {"deniedDomains": ["ok.example", "https://evil.example"]}}`, `:1:46: network.deniedDomains[1]: entry "https://evil.example": a domain entry takes no scheme, user or path`},
		{"a wildcard too broad", `{"network": {"allowedDomains": ["*.com"]}}`, `:1:33: network.allowedDomains[0]: entry "*.com": wildcard too broad`},
		{"a bad port", `{"network": {"allowedDomains": ["a.example:99999"]}}`, `network.allowedDomains[0]: entry "a.example:99999": port "99999" is not a number from 1 to 65535`},
		{"a numeric name", `{"network": {"deniedDomains": ["127.1"]}}`, `network.deniedDomains[0]: entry "127.1": a name that ends in a numeric label`},
		{"an upstream without http", `{"network": {"upstreamProxy": "socks5://127.0.0.1:1080"}}`, `:1:31: network.upstreamProxy: "socks5://127.0.0.1:1080": only http:// upstream proxies are supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", tt.src)
			_, err := decide.Load(tr.env("ws"))
			var pe *decide.ProblemsError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), f) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s): error = %v, want a problem %s%s", tt.src, err, f, tt.want)
			}
		})
	}
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", `{"network": {"allowedDomains": ["*", "*.example.com", "a.example:443", "[2001:db8::1]:443", "203.0.113.7", "localhost"], "deniedDomains": ["*.evil.example"], "upstreamProxy": "http://127.0.0.1:8080", "defaultAction": "proxy"}}`)
	tr.load(tr.env("ws"))
}

// TestLoadCaseInsensitiveMerge: picket.caseInsensitive merges as the other
// booleans do, with "auto" standing for the workspace filesystem's probe:
// true anywhere in the chain wins, "auto" anywhere (or nowhere set) lets
// the probe decide, and false only when every file that sets it says false.
// The workspace here is on a case-sensitive filesystem, so the probe says
// false and the merged setting shows in Raw (what show --json prints).
func TestLoadCaseInsensitiveMerge(t *testing.T) {
	tests := []struct {
		base, child string // "" leaves it unset
		want        bool
		raw         any // Raw's picket.caseInsensitive; nil: not set
		source      string
	}{
		{"true", "false", true, true, "base"},
		{"true", `"auto"`, true, true, "base"},
		{`"auto"`, "true", true, true, "child"},
		{`"auto"`, "false", false, "auto", "base"},
		{"false", `"auto"`, false, "auto", "child"},
		{"false", "false", false, false, ""},
		{"", "false", false, false, ""},
		{"", "", false, nil, ""},
		{"", "true", true, true, "child"},
	}
	for _, tt := range tests {
		t.Run(tt.base+"+"+tt.child, func(t *testing.T) {
			tr := newTree(t)
			set := func(v string) string {
				if v == "" {
					return `{}`
				}
				return `{"caseInsensitive": ` + v + `}`
			}
			files := map[string]string{
				"base":  tr.writeFile("ws/base.jsonc", `{"picket": `+set(tt.base)+`}`),
				"child": tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc", "picket": `+set(tt.child)+`}`),
			}
			l := tr.load(tr.env("ws"))
			sp := l.Policy.Spec()
			var raw any
			if pk, ok := l.Raw["picket"].(map[string]any); ok {
				raw = pk["caseInsensitive"]
			}
			if sp.CaseInsensitive != tt.want || raw != tt.raw || sp.Sources["picket.caseInsensitive"] != files[tt.source] {
				t.Errorf("base %s, child %s: CaseInsensitive = %v, Raw = %v, source %q; want %v, %v, %q",
					tt.base, tt.child, sp.CaseInsensitive, raw, sp.Sources["picket.caseInsensitive"], tt.want, tt.raw, files[tt.source])
			}
		})
	}
}

// TestLoadMerge: lists appended and de-duplicated, booleans OR'd, scalars
// from the child when it sets them.
func TestLoadMerge(t *testing.T) {
	tr := newTree(t)
	base := tr.writeFile("ws/base.jsonc", `{
  "filesystem": {"allowRead": ["a", "b"], "denyWrite": ["x"], "defaultDenyRead": true},
  "picket": {"mode": "read-only", "blocklist": ["*.pem"], "writeGuards": {"maxBytes": 100, "denyExtensions": [".exe"]},
             "permissions": [{"pattern": "p/**", "permission": "view"}]},
  "network": {"allowedDomains": ["a.example"]}
}`)
	child := tr.writeFile("ws/fence.jsonc", `{
  "extends": "./base.jsonc",
  "filesystem": {"allowRead": ["b", "c"], "defaultDenyRead": false, "allowGitConfig": true},
  "picket": {"mode": "full", "blocklist": ["*.pem", "*.key"], "writeGuards": {"denyExtensions": [".exe", ".zip"]},
             "permissions": [{"pattern": "p/**", "permission": "view"}, {"pattern": "q", "permission": "none"}]},
  "network": {"allowedDomains": ["b.example", "a.example"]}
}`)
	l := tr.load(tr.env("ws"))
	s := l.Policy.Spec()
	patterns := func(rs []decide.Rule) (out []string) {
		for _, r := range rs {
			out = append(out, r.Pattern+"@"+filepath.Base(r.Source))
		}
		return out
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"allowRead", patterns(s.AllowRead), []string{"a@base.jsonc", "b@base.jsonc", "c@fence.jsonc"}},
		{"denyWrite", patterns(s.DenyWrite), []string{"x@base.jsonc"}},
		{"blocklist", patterns(s.Blocklist), []string{"*.pem@base.jsonc", "*.key@fence.jsonc"}},
		{"defaultDenyRead", s.DefaultDenyRead, true},
		{"allowGitConfig", s.AllowGitConfig, true},
		{"mode", l.Policy.Mode(), decide.Full},
		{"mode source", s.Sources["picket.mode"], child},
		{"defaultDenyRead source", s.Sources["filesystem.defaultDenyRead"], base},
		{"maxBytes", s.WriteGuards.MaxBytes, int64(100)},
		{"denyExtensions", s.WriteGuards.DenyExtensions, []string{".exe", ".zip"}},
		{"permissions", len(s.Permissions), 2},
		{"origin", s.Origin, child},
		{"raw network", fmt.Sprint(l.Raw["network"]), "map[allowedDomains:[a.example b.example]]"},
		{"network source", s.Sources["network"], child},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("merged %s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestLoadErrorsNamePosition: every parse or schema problem names
// file:line:col.
func TestLoadErrorsNamePosition(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"malformed JSONC", "{\n  \"filesystem\": {\n    \"allowRead\": [\".\" \".\"]\n  }\n}\n", ":3:"},
		{"unterminated", "{\n  // comment\n  \"filesystem\": {\n", ":4:1"},
		{"unknown top-level key", "{\n  \"filesystem\": {},\n  \"bogus\": 1\n}\n", ":3:3"},
		{"unknown filesystem key", "{\"filesystem\": {\n  \"allowReads\": []}}", ":2:3"},
		{"wrong type", "{\"filesystem\": {\"defaultDenyRead\": \"yes\"}}", ":1:36"},
		{"bad mode", "{\n\"picket\": {\"mode\": \"sometimes\"}}", ":2:20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", tt.src)
			_, err := decide.Load(tr.env("ws"))
			if err == nil || !strings.Contains(err.Error(), f+tt.want) {
				t.Errorf("Load error = %v, want it to name %s%s", err, f, tt.want)
			}
		})
	}
	// A problem in a base names the base.
	tr := newTree(t)
	base := tr.writeFile("ws/base.jsonc", "{\n\n  \"nope\": true}")
	tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc"}`)
	if _, err := decide.Load(tr.env("ws")); err == nil || !strings.Contains(err.Error(), base+":3:3") {
		t.Errorf("Load error = %v, want it to name %s:3:3", err, base)
	}
	var pe *decide.ProblemsError
	if _, err := decide.Load(tr.env("ws")); !errors.As(err, &pe) {
		t.Errorf("Load error = %T, want *decide.ProblemsError", err)
	}
	// A base that cannot be had names the extends that asked for it.
	for _, tt := range []struct{ name, extends, want string }{
		{"missing file", "./gone.jsonc", "no such file"},
		{"unknown template", "nosuch", "no such template"},
		{"empty", "", "no such template"}, // not the same as no extends
		{"cycle", "./fence.jsonc", "extends cycle"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", "{\n  // the base\n  \"extends\": \""+tt.extends+"\"\n}\n")
			_, err := decide.Load(tr.env("ws"))
			if err == nil || !strings.Contains(err.Error(), f+":3:14: extends") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error = %v, want it to name %s:3:14 and say %q", err, f, tt.want)
			}
		})
	}
}

// TestLoadEmptyFile: a blank file is no configuration, as in fence, and
// validation accepts it too.
func TestLoadEmptyFile(t *testing.T) {
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", "  \n")
	l, err := decide.Load(tr.env("ws"))
	if err != nil {
		t.Fatalf("Load of an empty fence.jsonc: %v", err)
	}
	allow.check(t, "Check(write ws/x)", decide.Check(l.Policy, decide.Write, "x", tr.ws, 1))
}

// TestMandatory: every listed class of path is write-denied at the
// mandatory layer whatever the policy allows, and stays readable.
func TestMandatory(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testMandatory(t, newTree(t)) })
	// A "[" in the workspace's or home's path is a literal character, not
	// a class that would make every rule anchored there match nothing.
	t.Run("glob characters in the path", func(t *testing.T) { testMandatory(t, newTreeIn(t, "p[1]*?")) })
}

func testMandatory(t *testing.T, tr *tree) {
	policy := tr.writeFile("ws/conf/policy.jsonc", `{
  "filesystem": {"allowWrite": ["/"]},
  "picket": {"mode": "full", "permissions": [{"pattern": "**", "permission": "write", "priority": 1000}]}
}`)
	tr.writeFile("ws/fence.jsonc", `{"extends": "./conf/policy.jsonc"}`)
	tr.mkdir("ws/.git")
	tr.link(filepath.Join(tr.home, ".bashrc"), "ws/innocent")
	env := tr.env("ws")
	env.ProjectDir = tr.ws
	l := tr.load(env)
	pol := l.Policy

	paths := []string{
		policy, "ws/fence.jsonc", "ws/fence.json",
		"xdg/config/fence/fence.jsonc", "xdg/config/fence/new-file",
		"xdg/state/picket/audit.log", "xdg/state/picket/grants/x",
		"bin/picket",
		"home/.claude/settings.json", "home/.claude/settings.local.json",
		"ws/.claude/settings.json", "ws/.claude/settings.local.json",
		"home/.claude/commands/x.md", "home/.claude/agents/a.md", "home/.claude/skills/s/SKILL.md", "home/.claude/hooks/h.sh",
		"ws/.claude/commands/x.md", "ws/.claude/agents/a.md", "ws/.claude/skills/s/SKILL.md", "ws/.claude/hooks/h.sh",
		"home/.pi/agent/extensions/x.ts", "home/.pi/agent/skills/s.md", "home/.pi/agent/prompts/p.md",
		"ws/.pi/extensions/x.ts", "home/.agents/skills/s/SKILL.md",
		"ws/.pi/settings.json", "ws/.pi/skills/s/SKILL.md", "ws/.pi/prompts/p.md",
		"home/.pi/agent/settings.json", "home/.pi/agent/models.json",
		"home/.cursor/mcp.json", "ws/.cursor/mcp.json",
		"home/.claude/plugins/cache/p/hooks/hooks.json", "home/.gemini/extensions/e/gemini-extension.json", "ws/.gemini/extensions/e/gemini-extension.json",
		"home/.codex/config.toml", "home/.codex/hooks.json", "ws/.codex/config.toml",
		"home/.gemini/settings.json", "ws/.gemini/settings.json",
		"home/.cursor/hooks.json", "ws/.cursor/hooks.json",
		"ws/.github/hooks/pre-push", "ws/.mcp.json",
		"ws/.git/hooks/pre-commit", "ws/.git/config",
		"ws/.git/modules/lib/hooks/pre-commit", "ws/.git/modules/lib/config", "ws/.git/modules/a/modules/b/hooks/post-checkout",
		"ws/vendor/x/.git/hooks/pre-commit", "ws/vendor/x/.git/config", "ws/.git/commondir", "ws/sub/deep/.git/commondir",
		"ws/.git/modules/lib/commondir", "ws/.git/worktrees/wt/commondir", "ws/.git/config.worktree", "ws/.git/worktrees/wt/config.worktree",
		"home/.bashrc", "home/.bash_profile", "home/.zshrc", "home/.zprofile", "home/.profile", "home/.gitconfig",
		"home/.zshenv", "home/.zlogin", "home/.zlogout", "home/.bash_login", "home/.bash_logout",
		"home/.config/fish/config.fish", "home/.config/git/config", "home/.claude.json",
		"home/.claude/CLAUDE.md", "home/.codex/AGENTS.md", "home/.gemini/GEMINI.md", "home/.pi/agent/AGENTS.md",
		"ws/innocent",
	}
	for _, p := range paths {
		d := decide.Check(pol, decide.Write, tr.path(p), tr.ws, 1)
		denied(decide.LayerMandatory, decide.RuleMandatory).check(t, "Check(write "+p+")", d)
		if !d.Allow && (d.Suggestion != "" || d.Pattern == "") {
			t.Errorf("Check(write %s): suggestion %q pattern %q, want no suggestion and the pattern", p, d.Suggestion, d.Pattern)
		}
		allow.check(t, "Check(read "+p+")", decide.Check(pol, decide.Read, tr.path(p), tr.ws, -1))
	}
	for _, p := range []string{"ws/.claude/notes.md", "ws/.github/workflows/ci.yml", "ws/.git/HEAD", "home/.bashrc.d/x", "ws/fence.jsonc.bak",
		"ws/.git/modules/lib/HEAD", "ws/vendor/x/.git/objects/ab/cd"} {
		allow.check(t, "Check(write "+p+")", decide.Check(pol, decide.Write, tr.path(p), tr.ws, 1))
	}
	// Each session mode leaves them denied.
	for _, m := range []decide.Mode{decide.ReadOnly, decide.WorkspaceWrite, decide.Full} {
		denied(decide.LayerMandatory, decide.RuleMandatory).check(t, "Check(write .git/hooks/x) in "+string(m), decide.Check(pol.WithMode(m), decide.Write, "ws/.git/hooks/x", tr.dir, 1))
	}

	// allowGitConfig lifts .git/config only.
	tr.writeFile("ws/fence.jsonc", `{"extends": "./conf/policy.jsonc", "filesystem": {"allowGitConfig": true}}`)
	pol = tr.load(env).Policy
	allow.check(t, "Check(write .git/config) with allowGitConfig", decide.Check(pol, decide.Write, ".git/config", tr.ws, 1))
	allow.check(t, "Check(write .git/modules/lib/config) with allowGitConfig", decide.Check(pol, decide.Write, ".git/modules/lib/config", tr.ws, 1))
	denied(decide.LayerMandatory, decide.RuleMandatory).check(t, "Check(write .git/hooks/x) with allowGitConfig", decide.Check(pol, decide.Write, ".git/hooks/x", tr.ws, 1))
}

// TestWithMode: a session's mode is its own; switching one copy leaves the
// other deciding as before.
func TestWithMode(t *testing.T) {
	tr := newTree(t)
	l := tr.load(tr.env("ws"))
	a := l.Policy
	b := a.WithMode(decide.ReadOnly)
	c := b.WithMode("")
	if a.Mode() != decide.WorkspaceWrite || b.Mode() != decide.ReadOnly || c.Mode() != decide.WorkspaceWrite {
		t.Errorf("modes = %s %s %s, want workspace-write read-only workspace-write", a.Mode(), b.Mode(), c.Mode())
	}
	allow.check(t, "Check(write x) in a", decide.Check(a, decide.Write, "x", tr.ws, 1))
	denied(decide.LayerMode, decide.RuleMode).check(t, "Check(write x) in b", decide.Check(b, decide.Write, "x", tr.ws, 1))
	allow.check(t, "Check(write x) in c", decide.Check(c, decide.Write, "x", tr.ws, 1))
	if b.Spec().Mode != a.Spec().Mode {
		t.Errorf("WithMode changed the shared Spec")
	}
}

// TestTemplates checks what each built-in template promises.
func TestTemplates(t *testing.T) {
	type probe struct {
		access decide.Access
		path   string
		want   want
	}
	mode := denied(decide.LayerMode, decide.RuleMode)
	denyRead := denied(decide.LayerBlocklist, decide.RuleDenyRead)
	denyWrite := denied(decide.LayerBlocklist, decide.RuleDenyWrite)
	perms := denied(decide.LayerBlocklist, decide.RulePermissions)
	outsideWrite := denied(decide.LayerBoundary, decide.RuleAllowWrite)
	outsideRead := denied(decide.LayerBoundary, decide.RuleDefaultDenyRead)
	tests := map[string][]probe{
		"code": {
			{decide.Read, "ws/src/a.go", allow}, {decide.Write, "ws/src/a.go", allow},
			{decide.Read, "/etc/hosts", allow}, {decide.Write, "/tmp/picket-test-x", allow},
			{decide.Write, "/var/tmp/picket-test-x", allow}, {decide.Write, "home/.cache/go/x", allow},
			{decide.Write, "/etc/picket-test-x", outsideWrite},
			{decide.Read, "home/.ssh/id_ed25519", denyRead}, {decide.Read, "ws/keys/id_rsa", denyRead},
			{decide.Read, "home/.aws/credentials", denyRead}, {decide.Read, "home/.config/gcloud/x", denyRead},
			{decide.Read, "home/.azure/x", denyRead}, {decide.Read, "home/.kube/config", denyRead},
			{decide.Read, "home/.docker/config.json", denyRead}, {decide.Read, "home/.gnupg/x", denyRead},
			{decide.Read, "home/.netrc", denyRead}, {decide.Read, "home/.bash_history", denyRead},
			{decide.Read, "home/.ssh/known_hosts", allow},
			{decide.Write, "ws/.env", denyWrite}, {decide.Write, "ws/sub/.env.local", denyWrite},
			{decide.Write, "ws/tls/server.key", denyWrite}, {decide.Write, "ws/tls/server.pem", denyWrite},
			{decide.Read, "ws/.env", perms}, {decide.Read, "ws/a/b/.env.local", perms}, {decide.Read, "home/other/.env", perms},
			{decide.List, "ws/.env", allow}, {decide.Read, "ws/.env.example", allow}, {decide.Read, "ws/a/.env.sample", allow},
			{decide.Read, "ws/.env.template", allow}, {decide.Read, "ws/.env.dist", allow}, {decide.Read, "home/other/.env.example", perms},
			{decide.Read, "ws/.envrc", allow}, {decide.Read, "ws/.env.d/prod", allow},
		},
		"code-strict": {
			{decide.Read, "ws/src/a.go", allow}, {decide.Read, "/etc/passwd", outsideRead},
			{decide.Read, "/usr/lib", allow}, {decide.Read, "home/.cargo/bin/cargo", allow}, {decide.Read, "home/.cache/x", allow},
			{decide.Write, "ws/.env", denyWrite}, {decide.Read, "ws/.env", perms}, {decide.Read, "ws/.env.example", allow},
		},
		"read-only": {
			{decide.Read, "ws/src/a.go", allow}, {decide.Write, "ws/src/a.go", mode}, {decide.Read, "home/.aws/x", denyRead},
			{decide.Read, "ws/.env", perms},
		},
		"agent-safe": {
			{decide.Read, "ws/src/a.go", allow},
			{decide.Write, "ws/output/report.txt", allow}, {decide.Write, "ws/tmp/x", allow},
			{decide.Read, "ws/.env.local", perms}, {decide.List, "ws/config/secrets/db.yaml", perms},
			{decide.List, "ws/.git/config", allow}, {decide.Read, "ws/.git/config", perms},
			{decide.Read, "ws/api_token.txt", perms},
		},
	}
	// code and agent-safe make /tmp and /var/tmp writable, and so readable:
	// these hold only for a tree outside them.
	outsideTmp := map[string][]probe{
		"code": {{decide.Write, "home/notes.txt", outsideWrite}},
		"code-strict": {{decide.Read, "home/notes.txt", outsideRead}, {decide.Read, "home/.ssh/id_rsa", outsideRead},
			// a "view" rule restricts: it opens no listing defaultDenyRead closes
			{decide.List, "home/other/.env", outsideRead}},
		"agent-safe": {{decide.Write, "ws/src/a.go", perms}},
	}
	insideTmp := map[string][]probe{
		"code-strict": {{decide.Read, "home/.ssh/id_rsa", denyRead}},
	}
	for name, probes := range tests {
		t.Run(name, func(t *testing.T) {
			tr := newTree(t)
			tr.writeFile("ws/fence.jsonc", `{"extends": "`+name+`"}`)
			env := tr.env("ws")
			env.ProjectDir = tr.ws
			pol := tr.load(env).Policy
			if strings.HasPrefix(tr.dir, "/tmp/") || strings.HasPrefix(tr.dir, "/var/tmp/") {
				probes = append(probes, insideTmp[name]...)
			} else {
				probes = append(probes, outsideTmp[name]...)
			}
			for _, pr := range probes {
				pr.want.check(t, "Check("+string(pr.access)+" "+pr.path+")", decide.Check(pol, pr.access, tr.path(pr.path), tr.ws, 1))
			}
		})
	}
	if got := decide.Templates(); !slices.Equal(got, []string{"agent-safe", "code", "code-strict", "read-only"}) {
		t.Errorf("Templates() = %q", got)
	}
}

// credentials are the files the threat model promises every template keeps
// unreadable: SSH keys, cloud, container and registry credentials, GnuPG,
// .netrc, shell history, the system's TLS keys. Relative to the tree
// (home/, ws/) unless absolute.
var credentials = []string{
	"home/.ssh/id_rsa", "home/.ssh/id_ecdsa", "home/.ssh/id_ed25519", "home/.ssh/id_dsa", "home/.ssh/id_ecdsa_sk",
	"ws/deploy/id_rsa", "ws/deploy/id_ed25519",
	"home/.aws/credentials", "home/.config/gcloud/application_default_credentials.json",
	"home/.azure/msal_token_cache.json", "home/.kube/config",
	"home/.docker/config.json", "home/.config/containers/auth.json", "/run/user/1000/containers/auth.json",
	"home/.config/gh/hosts.yml", "home/.git-credentials", "home/.config/git/credentials",
	"home/.npmrc", "home/.pypirc", "home/.netrc", "home/.cargo/credentials.toml", "home/.cargo/credentials",
	"home/.gem/credentials", "home/.terraform.d/credentials.tfrc.json", "home/.vault-token",
	"home/.claude/.credentials.json", "home/.pi/agent/auth.json", "home/.codex/auth.json",
	"home/.gemini/oauth_creds.json", "home/.config/github-copilot/apps.json",
	"home/.gemini/mcp-oauth-tokens.json", "home/.gemini/a2a-oauth-tokens.json", "home/.gemini/gemini-credentials.json", "home/.gemini/.env",
	"home/.local/share/opencode/auth.json", "home/.local/share/opencode/mcp-auth.json",
	"home/.copilot/config.json", "home/.copilot/mcp-config.json", "home/.copilot/providers.json",
	"home/.gnupg/private-keys-v1.d/0123.key", "home/.gnupg/secring.gpg",
	"home/.qwen/oauth_creds.json", "home/.qwen/mcp-oauth-tokens.json", "home/.qwen/.env",
	"home/.bash_history", "home/.zsh_history", "home/.local/share/fish/fish_history",
	"home/.python_history", "home/.node_repl_history", "home/.psql_history", "home/.mysql_history",
	"/etc/ssl/private/ssl-cert-snakeoil.key", "/etc/pki/tls/private/localhost.key",
}

// TestTemplatesDenyCredentials: every template denies every credential
// through filesystem.denyRead or picket.blocklist, which the shell sandbox
// enforces too, not only through picket.permissions or the boundary.
func TestTemplatesDenyCredentials(t *testing.T) {
	for _, name := range decide.Templates() {
		t.Run(name, func(t *testing.T) {
			tr := newTree(t)
			tr.writeFile("ws/fence.jsonc", `{"extends": "`+name+`"}`)
			env := tr.env("ws")
			env.ProjectDir = tr.ws
			full := tr.load(env).Policy.Spec()
			// Only the lists the sandbox hides: a deny here is one the
			// shell cannot get around.
			enforced := decide.Spec{Root: full.Root, Home: full.Home, Mode: decide.Full, DenyRead: full.DenyRead, Blocklist: full.Blocklist}
			pol := tr.compile(enforced)
			for _, c := range credentials {
				d := decide.Check(pol, decide.Read, tr.path(c), tr.ws, 1)
				if d.Allow || (d.Rule != decide.RuleDenyRead && d.Rule != decide.RuleBlocklist) {
					t.Errorf("%s: Check(read %s) = %s, want a deny by filesystem.denyRead or picket.blocklist", name, c, show(d))
				}
				if fp := decide.Check(tr.load(env).Policy, decide.Read, tr.path(c), tr.ws, 1); fp.Allow {
					t.Errorf("%s: Check(read %s) = %s under the whole template, want a deny", name, c, show(fp))
				}
			}
			for _, ok := range []string{"home/.ssh/known_hosts", "home/.cargo/bin/cargo", "home/.config/containers/registries.conf", "ws/src/main.go"} {
				if d := decide.Check(pol, decide.Read, tr.path(ok), tr.ws, 1); !d.Allow {
					t.Errorf("%s: Check(read %s) = %s, want allowed by the credential denies", name, ok, show(d))
				}
			}
		})
	}
}

// TestLoadNeverMatching: entries that could never match are load errors
// at file:line:col, not silently dropped.
func TestLoadNeverMatching(t *testing.T) {
	for _, tt := range []struct{ name, policy, want string }{
		{"blocklist dotdot", `{"picket": {"blocklist": [".."]}}`, `:1:27: picket.blocklist[0]: blocklist entry ".." can never match`},
		{"extension with a slash", `{"picket": {"writeGuards": {"denyExtensions": ["a/b"]}}}`, `:1:48: picket.writeGuards.denyExtensions[0]: denyExtensions entry "a/b" is not an extension`},
		{"file type glob", `{"picket": {"permissions": [{"pattern": "*.key", "permission": "none", "type": "file"}]}}`, `:1:80: picket.permissions[0].type: pattern "*.key": type "file" takes a path without glob characters`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			f := tr.writeFile("ws/fence.jsonc", tt.policy)
			_, err := decide.Load(tr.env("ws"))
			if err == nil || !strings.Contains(err.Error(), f+tt.want) {
				t.Errorf("Load error = %v, want %s%s", err, f, tt.want)
			}
		})
	}
}

// TestDenyExtensionSource: a denied extension's Decision names the file
// that listed it, not the last one to set a writeGuards field.
func TestDenyExtensionSource(t *testing.T) {
	tr := newTree(t)
	base := tr.writeFile("ws/base.jsonc", `{"picket": {"writeGuards": {"denyExtensions": [".exe"]}}}`)
	child := tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc", "picket": {"writeGuards": {"maxBytes": 5, "denyExtensions": [".zip"]}}}`)
	l := tr.load(tr.env("ws"))
	for file, want := range map[string]string{"a.exe": base, "a.zip": child} {
		d := decide.Check(l.Policy, decide.Write, file, tr.ws, 1)
		if d.Allow || d.Rule != decide.RuleDenyExtensions || d.Source != want {
			t.Errorf("Check(write %s) = %+v, want a denyExtensions deny from %s", file, d, want)
		}
	}
}
