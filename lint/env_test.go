package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// outsideHome is a home directory that does not exist and is not under the
// temp dir: the code template allows writes to /tmp, which would otherwise
// hold the test's home and its ~/.bashrc.
const outsideHome = "/nonexistent/picket-lint-home"

func TestClean(t *testing.T) {
	for _, name := range append(decide.Templates(), "@base") {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, `{"extends": "`+name+`"}`)
			if ws := runOthers(f.load(t, decide.Env{Home: outsideHome})); len(ws) > 0 {
				t.Errorf("Run() = %q, want no warnings", f.brief(ws))
			}
		})
	}
}

// A home under /tmp is opened up by the code template's "/tmp" entry: the
// warning points into the built-in template.
func TestHomeUnderTmp(t *testing.T) {
	f := newFixture(t, `{"extends": "code"}`)
	home, err := filepath.EvalSymlinks(f.home)
	if err != nil || !strings.HasPrefix(home, "/tmp/") {
		t.Skipf("the temp dir %s is not under /tmp", f.home)
	}
	ws := runOthers(f.load(t, decide.Env{}))
	want := []string{"builtin:code:6:25 [canary-write]"}
	if got := f.brief(ws); !slices.Equal(got, want) {
		t.Fatalf("Run() = %q, want %q\n%s", got, want, dump(ws))
	}
	if !strings.Contains(ws[0].Msg, `"/tmp" lets agents write ~/.bashrc, ~/.zshrc;`) {
		t.Errorf("Run()[0].Msg = %q", ws[0].Msg)
	}
}

func TestWorkspaceHome(t *testing.T) {
	f := newFixture(t, `{"filesystem": {"allowWrite": ["."]}}`)
	if err := os.WriteFile(filepath.Join(f.home, "fence.jsonc"), []byte(`{"filesystem": {"allowWrite": ["."]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  decide.Env
		want []string
	}{
		{"root is home", decide.Env{Cwd: f.home}, []string{"$TMP/home:0:0 [workspace-home]"}},
		{"root holds home", decide.Env{Cwd: f.dir, ConfigFile: f.file}, []string{"$TMP:0:0 [workspace-home]"}},
		{"root is /", decide.Env{Cwd: "/", ConfigFile: f.file}, []string{"/:0:0 [workspace-home]"}},
		{"root beside home", decide.Env{Cwd: f.proj}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env.Cwd == "/" && decide.GitTop("/") != "" {
				t.Skip("/ is inside a git repository")
			}
			ws := runOthers(f.load(t, tt.env))
			if got := f.brief(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("Run() = %q, want %q\n%s", got, tt.want, dump(ws))
			}
		})
	}
}

// With the workspace root at /, a relative ".." climbs above it.
func TestAboveRootRelative(t *testing.T) {
	if decide.GitTop("/") != "" {
		t.Skip("/ is inside a git repository")
	}
	f := newFixture(t, `{
  "filesystem": {
    "denyRead": ["../x"]
  }
}`)
	ws := runOthers(f.load(t, decide.Env{Cwd: "/", ConfigFile: f.file}))
	want := []string{"/:0:0 [workspace-home]", file + ":3:18 [above-root]"}
	if got := f.brief(ws); !slices.Equal(got, want) {
		t.Fatalf("Run() = %q, want %q\n%s", got, want, dump(ws))
	}
}

func TestFileModes(t *testing.T) {
	tests := []struct {
		name          string
		file, projDir os.FileMode
		want          []string
		msg           string
	}{
		{"private", 0o644, 0o755, nil, ""},
		{"file writable by all", 0o666, 0o755, []string{file + ":0:0 [writable-policy]"}, "mode 0666"},
		{"file writable by the group", 0o664, 0o755, []string{file + ":0:0 [writable-policy]"}, "chmod go-w"},
		{"directory writable by all", 0o644, 0o777, []string{file + ":0:0 [writable-policy]"}, "the directory $TMP/proj is writable by other users without the sticky bit"},
		{"sticky directory", 0o644, 0o777 | os.ModeSticky, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, `{}`)
			chmod(t, f.file, tt.file)
			chmod(t, f.proj, tt.projDir)
			ws := runOthers(f.load(t, decide.Env{}))
			if got := f.brief(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("Run() = %q, want %q\n%s", got, tt.want, dump(ws))
			}
			if tt.msg != "" && !strings.Contains(strings.ReplaceAll(ws[0].Msg, f.dir, "$TMP"), tt.msg) {
				t.Errorf("Run()[0].Msg = %q, want it to contain %q", ws[0].Msg, tt.msg)
			}
		})
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o755) })
}

func TestWarningString(t *testing.T) {
	tests := []struct {
		w    Warning
		want string
	}{
		{Warning{File: "/p/fence.jsonc", Line: 3, Col: 18, Code: CodeBrace, Msg: "m"}, "/p/fence.jsonc:3:18: warning: m [brace]"},
		{Warning{File: "/p/fence.jsonc", Code: CodeWritablePolicy, Msg: "m"}, "/p/fence.jsonc: warning: m [writable-policy]"},
		// Policy text reaches terminals and the agent's session escaped.
		{Warning{File: "/p/\x1b]0;t\a.jsonc", Line: 1, Col: 2, Code: CodeBrace, Msg: "entry \"/x/{a,b}\u2800\" names /x/a\x1b[2J"},
			`/p/\x1b]0;t\a.jsonc:1:2: warning: entry "/x/{a,b}\u2800" names /x/a\x1b[2J [brace]`},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
