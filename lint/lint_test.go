package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// fixture is a temporary machine: a home and a git-less project, with the
// project's fence.jsonc holding src.
type fixture struct {
	dir, home, proj, file string
}

func newFixture(t *testing.T, src string) fixture {
	t.Helper()
	dir := t.TempDir()
	f := fixture{dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj")}
	f.file = filepath.Join(f.proj, "fence.jsonc")
	for _, d := range []string{f.home, f.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) load(t *testing.T, env decide.Env) *decide.Loaded {
	t.Helper()
	if env.Cwd == "" {
		env.Cwd = f.proj
	}
	if env.Home == "" {
		env.Home = f.home
	}
	l, err := decide.Load(env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

// brief is each warning as "file:line:col [code]", the fixture's dir
// spelled $TMP.
func (f fixture) brief(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, strings.ReplaceAll(
			fmt.Sprintf("%s:%d:%d [%s]", w.File, w.Line, w.Col, w.Code), f.dir, "$TMP"))
	}
	return out
}

const file = "$TMP/proj/fence.jsonc"

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
		msg  string // a substring of the first warning's message
	}{{
		name: "canary /etc/passwd",
		src: `{
  "filesystem": {
    "defaultDenyRead": true,
    "allowRead": ["/usr", "/etc"]
  }
}`,
		want: []string{file + ":4:27 [canary-read]"},
		msg:  `filesystem.allowRead entry "/etc" lets agents read /etc/passwd;`,
	}, {
		name: "canary ~/.ssh/id_rsa",
		src: `{"filesystem": {
  // the agent needs my ssh config
  "allowRead": ["~/.ssh"]
}}`,
		want: []string{file + ":3:17 [canary-read]"},
		msg:  "lets agents read ~/.ssh/id_rsa;",
	}, {
		name: "canary ~/.aws/credentials",
		src:  `{"filesystem": {"allowRead": ["~/.aws/*"]}}`,
		want: []string{file + ":1:31 [canary-read]"},
		msg:  "lets agents read ~/.aws/credentials;",
	}, {
		name: "canary ~/.bash_history",
		src: `{
  "filesystem": {
    "allowRead": [
      "~/.bash_*",
    ],
  },
}`,
		want: []string{file + ":4:7 [canary-read]"},
		msg:  "lets agents read ~/.bash_history;",
	}, {
		name: "canary /etc/hosts",
		src: `{
  "filesystem": {
    "allowWrite": ["/etc/host?"]
  }
}`,
		want: []string{file + ":3:20 [canary-write]"},
		msg:  `filesystem.allowWrite entry "/etc/host?" lets agents write /etc/hosts;`,
	}, {
		name: "canary ~/.bashrc, still denied by the mandatory layer",
		src: `{
  "filesystem": {
    "allowWrite": ["~/.bash*"]
  }
}`,
		want: []string{file + ":3:20 [canary-write]"},
		msg:  "lets agents write ~/.bashrc; narrow it to the paths the agent needs (another rule still denies it",
	}, {
		name: "canary ~/.zshrc, also shadowed",
		src: `{
  "filesystem": {
    "allowWrite": ["~/.zshrc"]
  }
}`,
		want: []string{file + ":3:20 [canary-write]", file + ":3:20 [shadowed]"},
		msg:  "lets agents write ~/.zshrc;",
	}, {
		name: "a denied canary is still named",
		src: `{
  "filesystem": {
    "allowRead": ["~/.ssh/**"],
    "denyRead": ["~/.ssh/id_*"]
  }
}`,
		want: []string{file + ":3:19 [canary-read]"},
		msg:  "(another rule still denies it, but this entry is broader than it should be)",
	}, {
		name: "top ** in allowRead",
		src: `{
  "filesystem": {
    "defaultDenyRead": true,
    "allowRead": ["**"]
  }
}`,
		want: []string{file + ":4:19 [canary-read]", file + ":4:19 [top-globstar]"},
		msg:  "lets agents read /etc/passwd, ~/.ssh/id_rsa, ~/.aws/credentials, ~/.bash_history;",
	}, {
		name: "top /** in allowWrite",
		src: `{
  "filesystem": {
    "allowWrite": ["/**"]
  }
}`,
		want: []string{file + ":3:20 [canary-write]", file + ":3:20 [top-globstar]"},
	}, {
		name: "top ~/** in allowWrite",
		src: `{
  "filesystem": {
    "allowWrite": ["~/**"]
  }
}`,
		want: []string{file + ":3:20 [canary-write]", file + ":3:20 [top-globstar]"},
	}, {
		name: "braces",
		src: `{
  "filesystem": {
    "denyRead": ["~/.{ssh,aws,gnupg}/**"]
  }
}`,
		want: []string{file + ":3:18 [brace]"},
		msg:  `write one entry per alternative: "~/.ssh/**", "~/.aws/**", "~/.gnupg/**"`,
	}, {
		name: "braces in the blocklist",
		src: `{
  "picket": {
    "blocklist": [".env", "*.{pem,key}"]
  }
}`,
		want: []string{file + ":3:27 [brace]"},
	}, {
		name: "fused ** at the end of a name",
		src: `{
  "filesystem": {
    "denyWrite": ["build/a**"]
  }
}`,
		want: []string{file + ":3:19 [fused-globstar]"},
		msg:  `fuses "**" with other characters in "a**"`,
	}, {
		name: "fused ** in a permission",
		src: `{
  "picket": {
    "permissions": [
      { "pattern": "x/**y", "permission": "read" }
    ]
  }
}`,
		want: []string{file + ":4:20 [fused-globstar]"},
	}, {
		name: "fused ** at the start",
		src:  `{"filesystem": {"denyRead": ["**b"]}}`,
		want: []string{file + ":1:30 [fused-globstar]"},
	}, {
		name: "a trailing slash on a literal path is fine",
		src:  `{"filesystem": {"denyWrite": ["~/.config/"]}}`,
	}, {
		name: ".. climbing above /",
		src: `{
  "filesystem": {
    "denyRead": ["/../etc/shadow"]
  }
}`,
		want: []string{file + ":3:18 [above-root]"},
	}, {
		name: ".. climbing out of the workspace root",
		src: `{
  "filesystem": {
    "allowRead": ["../outside/notes.txt"]
  }
}`,
		want: []string{file + ":3:19 [escapes-root]"},
		msg:  `filesystem.allowRead entry "../outside/notes.txt" climbs out of the workspace root with "..": picket reads it as $TMP/outside/notes.txt (from the root $TMP/proj), but the root is CLAUDE_PROJECT_DIR, else the git top level, else the working directory, so in another session the entry names another path; write the absolute or ~/ path it should name`,
	}, {
		name: ".. climbing out before a glob, in permissions",
		src: `{
  "picket": {
    "permissions": [{ "pattern": "./sub/../../shared/*.md", "permission": "read" }]
  }
}`,
		want: []string{file + ":3:34 [escapes-root]"},
		msg:  `reads it as $TMP/shared/*.md (from the root $TMP/proj)`,
	}, {
		name: ".. that stays inside the workspace is fine",
		src:  `{"filesystem": {"denyRead": ["sub/../secrets", "~/../x", "/a/../b"]}}`,
	}, {
		name: "allow shadowed by denyRead",
		src: `{
  "filesystem": {
    "allowRead": ["~/.gnupg/pubring.kbx"],
    "denyRead": ["~/.gnupg"]
  }
}`,
		want: []string{file + ":3:19 [shadowed]"},
		msg:  `filesystem.allowRead entry "~/.gnupg/pubring.kbx" is fully shadowed: filesystem.denyRead "~/.gnupg" ($TMP/proj/fence.jsonc) denies ~/.gnupg/pubring.kbx and everything below it`,
	}, {
		name: "allow shadowed by the blocklist",
		src: `{
  "filesystem": {
    "allowWrite": ["secrets/*.txt"]
  },
  "picket": {
    "blocklist": ["secrets"]
  }
}`,
		want: []string{file + ":3:20 [shadowed]"},
	}, {
		name: "allow shadowed by a mandatory deny",
		src: `{
  "filesystem": {
    "allowWrite": ["~/.config/fence"]
  }
}`,
		want: []string{file + ":3:20 [shadowed]"},
		msg:  "picket.mandatory",
	}, {
		name: "an allow next to an unrelated deny is fine",
		src: `{
  "filesystem": {
    "allowWrite": ["out", "~/.cache/tool"],
    "denyWrite": ["out/keep", "**/*.pem"]
  }
}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.src)
			ws := runOthers(f.load(t, decide.Env{}))
			if got := f.brief(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("Run() = %q, want %q\n%s", got, tt.want, dump(ws))
			}
			if tt.msg != "" {
				if msg := strings.ReplaceAll(ws[0].Msg, f.dir, "$TMP"); !strings.Contains(msg, tt.msg) {
					t.Errorf("Run()[0].Msg = %q, want it to contain %q", msg, tt.msg)
				}
			}
		})
	}
}

// TestNeverMatchesIsAPolicyError: a glob followed by "..", "." or an empty
// component never matches, and decide refuses such a policy at the rule's
// file:line:col, so lint, which reads loaded policies, never sees one.
func TestNeverMatchesIsAPolicyError(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{\n  \"filesystem\": {\n    \"denyRead\": [\"src/*/../secret\"]\n  }\n}", file + ":3:18: "},
		{"{\n  \"filesystem\": {\n    \"denyWrite\": [\"~/.config/*/\"]\n  }\n}", file + ":3:19: "},
	}
	for _, tt := range tests {
		f := newFixture(t, tt.src)
		_, err := decide.Load(decide.Env{Cwd: f.proj, Home: f.home})
		if err == nil || !strings.HasPrefix(strings.ReplaceAll(err.Error(), f.dir, "$TMP"), tt.want) {
			t.Errorf("Load(%s) = %v, want an error at %s", tt.src, err, tt.want)
		}
	}
}

func dump(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

// TestWarningsEscaped guards against policy text repainting the terminal:
// a brace pattern holding an OSC title sequence and a screen clear once
// reached picket lint's output raw through the alternatives it lists.
func TestWarningsEscaped(t *testing.T) {
	f := newFixture(t, `{"filesystem": {"allowRead": ["/x/{a,b}\u001b]0;LINT-PWNED\u0007\u001b[2J\u001b[H", "/x/\u2800\u3164{c,d}"]}}`)
	ws := runOthers(f.load(t, decide.Env{}))
	if len(ws) == 0 {
		t.Fatal("Run() gave no warnings, want brace warnings")
	}
	for _, w := range ws {
		s := w.String()
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u2800' || r == '\u3164' }) {
			t.Errorf("String() = %q, holds a control or blank rune", s)
		}
	}
	want := `write one entry per alternative: "/x/a\x1b]0;LINT-PWNED\a\x1b[2J\x1b[H", "/x/b\x1b]0;LINT-PWNED\a\x1b[2J\x1b[H"`
	if s := dump(ws); !strings.Contains(s, want) {
		t.Errorf("warnings = %s\nwant one to contain %s", s, want)
	}
}
