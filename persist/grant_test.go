package persist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/picketdev/picket/decide"
)

// clock returns a Now that starts at a fixed instant and ticks 1.5 ms a call.
func clock() func() time.Time {
	at := time.Date(2026, 11, 30, 4, 43, 1, 123e6, time.UTC)
	return func() time.Time {
		at = at.Add(1500 * time.Microsecond)
		return at
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists dir, to show that a refusal wrote nothing.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestProjectRoot(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	worktree := t.TempDir()
	writeFile(t, filepath.Join(worktree, ".git"), "gitdir: /elsewhere\n")
	plain := t.TempDir()
	tests := []struct{ cwd, want string }{
		{repo, repo},
		{deep, repo},
		{worktree, worktree},
		{plain, plain},
	}
	for _, tt := range tests {
		if got := ProjectRoot(tt.cwd); got != tt.want {
			t.Errorf("ProjectRoot(%q) = %q, want %q", tt.cwd, got, tt.want)
		}
	}
}

func TestTargetAndBranches(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		userConfig bool
		wantFile   string
		wantCreate bool
		wantExtend string
	}{
		{"jsonc exists", map[string]string{"fence.jsonc": `{"extends": "code"}`, "fence.json": `{}`}, false, "fence.jsonc", false, "code"},
		{"only json exists", map[string]string{"fence.json": `{"extends": "@base"}`}, false, "fence.json", false, "@base"},
		{"neither, no user config", nil, false, "fence.jsonc", true, "code"},
		{"neither, user config", nil, true, "fence.jsonc", true, "@base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, filepath.Join(root, name), content)
			}
			var validated []string
			res, err := grant(Options{
				Root: root, Access: "read", Path: "/srv/a", UserConfigExists: tt.userConfig, Now: clock(),
				Validate: func(file string, src []byte) error { validated = append(validated, file); return nil },
			})
			if err != nil {
				t.Fatalf("Grant error: %v", err)
			}
			want := filepath.Join(root, tt.wantFile)
			if res.File != want || res.Created != tt.wantCreate {
				t.Errorf("Grant = %+v, want File %s, Created %v", res, want, tt.wantCreate)
			}
			if diff := cmp.Diff([]string{want}, validated); diff != "" {
				t.Errorf("Validate calls mismatch (-want +got):\n%s", diff)
			}
			doc, err := decode([]byte(readFile(t, want)))
			if err != nil {
				t.Fatal(err)
			}
			m := doc.(map[string]any)
			if m["extends"] != tt.wantExtend {
				t.Errorf("extends = %v, want %s", m["extends"], tt.wantExtend)
			}
			if got := m["filesystem"].(map[string]any)["allowRead"]; !cmp.Equal(got, []any{"/srv/[a]"}) {
				t.Errorf("allowRead = %v, want [/srv/[a]]", got)
			}
			if tt.files["fence.jsonc"] == "" && tt.files["fence.json"] != "" {
				if _, err := os.Lstat(filepath.Join(root, "fence.jsonc")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("fence.jsonc was created beside fence.json: %v", err)
				}
			}
		})
	}
}

func TestCreatedGolden(t *testing.T) {
	root := t.TempDir()
	res, err := grant(Options{Root: root, Access: "write", Path: "/srv/out", Now: clock()})
	if err != nil || !res.Created || res.Backup != "" {
		t.Fatalf("Grant = %+v, %v; want created without backup", res, err)
	}
	got := readFile(t, res.File)
	golden := filepath.Join("testdata", "golden", "created.jsonc")
	if *update {
		writeFile(t, golden, got)
	}
	if diff := cmp.Diff(readFile(t, golden), got); diff != "" {
		t.Errorf("created file mismatch (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(res.File); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("created file mode = %v, %v; want 0644", fi.Mode(), err)
	}
	if diff := cmp.Diff([]string{"fence.jsonc"}, dirNames(t, root)); diff != "" {
		t.Errorf("files left mismatch (-want +got):\n%s", diff)
	}
}

func TestGrantKeepsCommentsOnDisk(t *testing.T) {
	root := t.TempDir()
	src := readFile(t, "testdata/in/comments.jsonc")
	file := filepath.Join(root, "fence.jsonc")
	writeFile(t, file, src)
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	res, err := grant(Options{Root: root, Access: "list", Path: goldenPath, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	// The golden edit of addEntry, with the entry Grant writes for the path.
	want := strings.Replace(readFile(t, "testdata/golden/comments.jsonc"), `"`+goldenPath+`"`, `"`+entryFor("read", goldenPath)+`"`, 1)
	if diff := cmp.Diff(want, readFile(t, file)); diff != "" {
		t.Errorf("edited file mismatch (-want +got):\n%s", diff)
	}
	if got := readFile(t, res.Backup); got != src {
		t.Errorf("backup %s = %q, want the previous content", res.Backup, got)
	}
	if want := file + ".bak.20261130T044301.124Z"; res.Backup != want {
		t.Errorf("backup = %s, want %s", res.Backup, want)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the original 0640 kept", fi.Mode())
	}
}

func TestAlreadyPresent(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := readFile(t, "testdata/in/present.jsonc")
	writeFile(t, file, src)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	res, err := grant(Options{Root: root, Access: "read", Path: goldenPath, Now: clock()})
	if err != nil || !res.AlreadyPresent || res.Backup != "" {
		t.Fatalf("Grant = %+v, %v; want AlreadyPresent, no backup", res, err)
	}
	fi, _ := os.Stat(file)
	if readFile(t, file) != src || !fi.ModTime().Equal(old) {
		t.Errorf("already-present grant touched the file")
	}
	if diff := cmp.Diff([]string{"fence.jsonc"}, dirNames(t, root)); diff != "" {
		t.Errorf("files mismatch (-want +got):\n%s", diff)
	}
}

func TestBackupsCappedAtThree(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	writeFile(t, file, "{}\n")
	// A name that merely looks like a backup is not ours to prune.
	writeFile(t, file+".bak.keep-me", "x")
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) } // a stalled clock
	var contents []string
	for i := range 5 {
		contents = append(contents, readFile(t, file))
		if _, err := grant(Options{Root: root, Access: "read", Path: fmt.Sprintf("/p%d", i), Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := backups(file)
	if err != nil {
		t.Fatal(err)
	}
	var names, held []string
	for _, b := range got {
		names = append(names, filepath.Base(b.name))
		held = append(held, readFile(t, b.name))
	}
	want := []string{"fence.jsonc.bak.20260102T030405.002Z", "fence.jsonc.bak.20260102T030405.003Z", "fence.jsonc.bak.20260102T030405.004Z"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("backups mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(contents[2:], held); diff != "" {
		t.Errorf("backup contents mismatch (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(file + ".bak.keep-me"); err != nil {
		t.Errorf("unrelated file pruned: %v", err)
	}
}

func TestChangedOnDisk(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, file string)
	}{
		{"size", func(t *testing.T, file string) { writeFile(t, file, `{"extends": "code", "x": 1}`) }},
		{"mtime", func(t *testing.T, file string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(file, later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced", func(t *testing.T, file string) {
			fi, _ := os.Stat(file)
			writeFile(t, file+".new", `{"extends": "zzzz"}`)
			os.Chtimes(file+".new", fi.ModTime(), fi.ModTime())
			if err := os.Rename(file+".new", file); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted", func(t *testing.T, file string) { os.Remove(file) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			file := filepath.Join(root, "fence.jsonc")
			writeFile(t, file, `{"extends": "code"}`)
			var theirs string
			o := Options{Root: root, Access: "read", Path: "/p", Now: clock()}
			o.beforeCommit = func(string) {
				tt.change(t, file)
				theirs, _ = readString(file)
			}
			_, err := grant(o)
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), file+" changed on disk, retry") {
				t.Fatalf("Grant error = %v, want %q", err, file+" changed on disk, retry")
			}
			if got, _ := readString(file); got != theirs {
				t.Errorf("file = %q, want the other writer's %q", got, theirs)
			}
			for _, name := range dirNames(t, root) {
				if name != "fence.jsonc" {
					t.Errorf("aborted grant left %s", name)
				}
			}
		})
	}
}

func TestCreateRace(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	o := Options{Root: root, Access: "read", Path: "/p", Now: clock()}
	o.beforeCommit = func(string) { writeFile(t, file, "{}") }
	if _, err := grant(o); !errors.Is(err, ErrChanged) {
		t.Fatalf("Grant error = %v, want ErrChanged", err)
	}
	if got := readFile(t, file); got != "{}" {
		t.Errorf("file created meanwhile was clobbered: %q", got)
	}
}

func readString(name string) (string, error) {
	b, err := os.ReadFile(name)
	return string(b), err
}

func TestRefusals(t *testing.T) {
	etcFile := "/etc/passwd"
	if _, err := os.Stat(etcFile); err != nil {
		t.Skipf("no %s: %v", etcFile, err)
	}
	refusedDir := t.TempDir()
	writeFile(t, filepath.Join(refusedDir, "fence.jsonc"), `{"extends": "code"}`)
	aliasDir := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(refusedDir, aliasDir); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string)
		refuse  []string
		path    string
		access  string
		wantErr string
		wantIs  error
	}{
		{"symlink into refused dir", func(t *testing.T, root string) {
			os.Symlink(filepath.Join(refusedDir, "fence.jsonc"), filepath.Join(root, "fence.jsonc"))
		}, []string{refusedDir}, "/p", "read", "resolves into " + refusedDir, ErrRefused},
		{"symlink into refused dir named via a symlink", func(t *testing.T, root string) {
			os.Symlink(filepath.Join(refusedDir, "fence.jsonc"), filepath.Join(root, "fence.jsonc"))
		}, []string{aliasDir}, "/p", "read", "resolves into " + aliasDir, ErrRefused},
		{"symlink into /etc", func(t *testing.T, root string) {
			os.Symlink(etcFile, filepath.Join(root, "fence.json"))
		}, nil, "/p", "read", "resolves into /etc", ErrRefused},
		{"dangling symlink", func(t *testing.T, root string) {
			os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "fence.jsonc"))
		}, nil, "/p", "read", "dangling symlink", fs.ErrNotExist},
		{"directory", func(t *testing.T, root string) {
			os.Mkdir(filepath.Join(root, "fence.jsonc"), 0o755)
		}, nil, "/p", "read", "not a regular file", ErrRefused},
		{"malformed", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "fence.jsonc"), "{\n  \"filesystem\": {\n")
		}, nil, "/p", "read", "malformed JSONC: hujson: line 3", ErrMalformed},
		{"relative path", func(t *testing.T, root string) {}, nil, "p", "read", "not an absolute clean path", nil},
		{"unclean path", func(t *testing.T, root string) {}, nil, "/a/../p", "read", "not an absolute clean path", nil},
		{"invalid utf-8", func(t *testing.T, root string) {}, nil, "/p\xff", "read", "not valid UTF-8", nil},
		{"unknown access", func(t *testing.T, root string) {}, nil, "/p", "exec", `cannot persist access "exec"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(t, root)
			before := dirNames(t, root)
			_, err := grant(Options{Root: root, Access: tt.access, Path: tt.path, Refuse: tt.refuse, Now: clock()})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Grant error = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Grant error = %v, want errors.Is %v", err, tt.wantIs)
			}
			if diff := cmp.Diff(before, dirNames(t, root)); diff != "" {
				t.Errorf("refused grant wrote files (-before +after):\n%s", diff)
			}
		})
	}
	if got := readFile(t, filepath.Join(refusedDir, "fence.jsonc")); got != `{"extends": "code"}` {
		t.Errorf("refused file changed: %q", got)
	}
}

func TestValidateFailureWritesNothing(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	writeFile(t, file, `{"extends": "code"}`)
	schemaErr := errors.New("/filesystem/allowRead/0: does not match pattern")
	_, err := grant(Options{Root: root, Access: "read", Path: "/p", Now: clock(),
		Validate: func(string, []byte) error { return schemaErr }})
	if !errors.Is(err, schemaErr) || !strings.Contains(err.Error(), "refusing to write "+file) {
		t.Fatalf("Grant error = %v, want the schema error naming %s", err, file)
	}
	if readFile(t, file) != `{"extends": "code"}` || len(dirNames(t, root)) != 1 {
		t.Errorf("failed validation wrote something: %v", dirNames(t, root))
	}
}

func TestPlantedTmpSymlinkIsNotFollowed(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, victim, "echo hi\n")
	writeFile(t, filepath.Join(root, "fence.jsonc"), `{}`)
	for _, name := range []string{"fence.jsonc.tmp", "fence.jsonc.bak.20261130T044301.124Z"} {
		if err := os.Symlink(victim, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := grant(Options{Root: root, Access: "read", Path: "/p", Now: clock()}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, victim); got != "echo hi\n" {
		t.Errorf("write followed a planted symlink: victim = %q", got)
	}
}

func TestSymlinkedPolicyIsEditedInPlace(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	real := filepath.Join(elsewhere, "policy.jsonc")
	writeFile(t, real, `{"extends": "code"}`)
	link := filepath.Join(root, "fence.jsonc")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	res, err := grant(Options{Root: root, Access: "write", Path: "/p", Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if res.File != link || res.Resolved != real {
		t.Errorf("Grant = %+v, want File %s, Resolved %s", res, link, real)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", fi.Mode(), err)
	}
	if got := readFile(t, real); got != `{"extends": "code", "filesystem": {"allowWrite": ["/[p]"]}}` {
		t.Errorf("target = %q", got)
	}
}

func TestHostilePathCannotInjectPolicy(t *testing.T) {
	root := t.TempDir()
	path := "/x\n\"}, \"extends\": \"evil\" /* */ y"
	res, err := grant(Options{Root: root, Access: "read", Path: path, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := decode([]byte(readFile(t, res.File)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"$schema":    SchemaURL,
		"extends":    "code",
		"filesystem": map[string]any{"allowRead": []any{decide.LiteralPattern(path)}},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("created policy mismatch (-want +got):\n%s", diff)
	}
}

// TestGrantQuotesGlobs: a persisted path with glob characters is written
// quoted, so that it names that path and not its siblings; the policy
// that results allows the path and nothing more (an allow glob matches
// exactly, so not even what is below it, where a plain path covers that).
func TestGrantQuotesGlobs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, entry string }{
		{root + "/sec/*", root + "/sec/[*]"},
		{root + "/sec/[ab]/private.txt", root + "/sec/[[]ab]/private.txt"},
		{root + "/**", root + "/[*][*]"},
		{root + "/what?", root + "/what[?]"},
		{root + `/back\slash{a,b}`, root + `/back\slash{a,[b]}`},
	} {
		os.Remove(filepath.Join(root, "fence.jsonc"))
		res, err := grant(Options{Root: root, Access: "read", Path: tt.path, Now: clock()})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := decode([]byte(readFile(t, res.File)))
		if err != nil {
			t.Fatal(err)
		}
		got := doc.(map[string]any)["filesystem"].(map[string]any)["allowRead"].([]any)[0]
		if got != tt.entry {
			t.Errorf("Grant(%q) wrote %q, want %q", tt.path, got, tt.entry)
		}
		p := decide.MustCompile(decide.Spec{Root: "/nonexistent-workspace", Home: "/nonexistent", Mode: decide.WorkspaceWrite,
			DefaultDenyRead: true, StrictDenyRead: true, AllowRead: decide.Rules("test", tt.entry)})
		for _, c := range []struct {
			q    string
			want bool
		}{{tt.path, true}, {tt.path + "/below", false}, {root + "/sec/a", false}, {root + "/sec/a/private.txt", false}, {root + "/whatx", false}, {root + "/other", false}} {
			d := decide.Decide(p, decide.Request{Access: decide.Read, Path: c.q, Resolved: c.q, Size: -1})
			if d.Allow != c.want {
				t.Errorf("entry %q: read %s allowed %v, want %v", tt.entry, c.q, d.Allow, c.want)
			}
		}
	}
}

// grant is Grant into the file Target names now, as a person who was just
// shown it confirms it.
func grant(o Options) (Result, error) {
	if o.File == "" {
		o.File, _ = Target(o.Root)
	}
	return Grant(o)
}

// TestGrantOnlyIntoConfirmedFile: the person confirmed a persist into
// fence.json; a fence.jsonc created since would take it, so nothing is
// written, and the same goes for a file that was to be created.
func TestGrantOnlyIntoConfirmedFile(t *testing.T) {
	root := t.TempDir()
	json := filepath.Join(root, "fence.json")
	if err := os.WriteFile(json, []byte(`{"extends": "code"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	confirmed, _ := Target(root)
	jsonc := filepath.Join(root, "fence.jsonc")
	if err := os.WriteFile(jsonc, []byte(`{"extends": "code"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Grant(Options{Root: root, File: confirmed, Access: "read", Path: "/data"}); !errors.Is(err, ErrChanged) {
		t.Errorf("Grant after fence.jsonc appeared = %v, want ErrChanged", err)
	}
	for _, f := range []string{json, jsonc} {
		if b := readFile(t, f); b != `{"extends": "code"}` {
			t.Errorf("%s changed: %s", f, b)
		}
	}
	if _, err := Grant(Options{Root: root, Access: "read", Path: "/data"}); err == nil || !strings.Contains(err.Error(), "no policy file was confirmed") {
		t.Errorf("Grant with no confirmed file = %v, want a refusal that says so", err)
	}
}

// TestGrantKeepsCRLF: in a file whose lines all end in CRLF, the new
// lines do too; a file with LF lines stays LF.
func TestGrantKeepsCRLF(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := "// policy\r\n{\r\n  \"extends\": \"code\",\r\n  \"filesystem\": {\r\n    \"allowRead\": [\"/a\"]\r\n  }\r\n}\r\n"
	writeFile(t, file, src)
	if _, err := grant(Options{Root: root, Access: "read", Path: "/b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := grant(Options{Root: root, Access: "write", Path: "/c"}); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, file)
	if n, crlf := strings.Count(got, "\n"), strings.Count(got, "\r\n"); n != crlf {
		t.Errorf("%d of %d line ends are CRLF:\n%q", crlf, n, got)
	}
	if !strings.HasPrefix(got, "// policy\r\n{\r\n  \"extends\": \"code\",\r\n") || !strings.Contains(got, `"/[b]"`) || !strings.Contains(got, `"/[c]"`) {
		t.Errorf("edit lost content:\n%q", got)
	}
}
