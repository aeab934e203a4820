package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

func input(t *testing.T, js string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("bad test input %s: %v", js, err)
	}
	return m
}

func read(p string) hook.Target  { return hook.Target{Access: decide.Read, Path: p, Size: -1} }
func write(p string) hook.Target { return hook.Target{Access: decide.Write, Path: p, Size: -1} }
func list(p string) hook.Target  { return hook.Target{Access: decide.List, Path: p, Size: -1} }

// opened is a read of a file as opencode's read opens it: it may list a
// directory.
func opened(p string) hook.Target { t := read(p); t.Listing = true; return t }

// searched is the root ripgrep searches (glob and grep), skipping the
// symlinks below it.
func searched(t hook.Target, filter string, grep bool) hook.Target {
	t.Recursive, t.Root, t.Filter, t.FilterBase, t.Links = true, true, filter, grep, hook.LinksSkipped
	return t
}

type mappingCase struct {
	tool, in string
	want     []hook.Target
	wantErr  string // substring, or "not judged" for hook.ErrNotJudged
}

// TestTargets maps every opencode tool, with the session's directory
// (/p) where relative paths resolve: opencode joins a relative path to its
// Instance directory by text, whatever directory the process is in.
func TestTargets(t *testing.T) {
	dir := t.TempDir() // the session's directory: read and grep look at the disk
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	j := func(p string) string { return filepath.Join(dir, p) }
	sized := write(j("new.txt"))
	sized.Size = 2
	tests := []mappingCase{
		{tool: "read", in: `{"filePath":"a.go"}`, want: []hook.Target{opened(j("a.go"))}},
		{tool: "read", in: `{"filePath":"/etc/hosts","offset":2,"limit":5}`, want: []hook.Target{opened("/etc/hosts")}},
		{tool: "read", in: `{"filePath":"../x/.env"}`, want: []hook.Target{lists(list(filepath.Join(filepath.Dir(dir), "x"))), opened(filepath.Join(filepath.Dir(dir), "x", ".env"))}},
		{tool: "read", in: `{"filePath":"~/.ssh/id_rsa"}`, want: []hook.Target{lists(list(j("~/.ssh"))), opened(j("~/.ssh/id_rsa"))}}, // "~" is a name to opencode
		{tool: "read", in: `{}`, wantErr: "no filePath"},
		{tool: "read", in: `{"filePath":7}`, wantErr: "not a string"},
		{tool: "write", in: `{"filePath":"new.txt","content":"hi"}`, want: []hook.Target{sized}},
		{tool: "write", in: `{"content":"hi"}`, wantErr: "no filePath"},
		{tool: "edit", in: `{"filePath":"a.go","oldString":"a","newString":"b"}`, want: []hook.Target{write(j("a.go"))}},
		{tool: "edit", in: `{"filePath":"/etc/passwd","oldString":"a","newString":"b","replaceAll":true}`, want: []hook.Target{write("/etc/passwd")}},
		{tool: "glob", in: `{"pattern":"**/*.go"}`, want: []hook.Target{searched(list(dir), "**/*.go", false)}},
		{tool: "glob", in: `{"pattern":"*.pem","path":"src"}`, want: []hook.Target{searched(list(j("src")), "*.pem", false)}},
		{tool: "glob", in: `{"path":"src"}`, wantErr: "no pattern"},
		{tool: "grep", in: `{"pattern":"secret"}`, want: []hook.Target{searched(read(dir), "", true)}},
		{tool: "grep", in: `{"pattern":"x","path":"src","include":"*.env"}`, want: []hook.Target{searched(read(j("src")), "*.env", true)}},
		{tool: "grep", in: `{"pattern":"x","path":"a.go"}`, want: []hook.Target{searched(read(dir), "", true)}}, // a file: its directory
		{tool: "grep", in: `{"pattern":"x","include":7}`, wantErr: "include"},
		{tool: "grep", in: `{"path":"src"}`, wantErr: "no pattern"},
		{tool: "apply_patch", in: `{"patchText":"*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: a.go\n*** Move to: ../out.go\n@@\n-package a\n+package b\n*** End Patch"}`,
			want: []hook.Target{write(j("n.txt")), write(j("a.go")), write(dir + "/../out.go")}}, // ".." left for decide to judge both readings
		{tool: "apply_patch", in: `{"patchText":"not a patch"}`, wantErr: "apply_patch"},
		{tool: "apply_patch", in: `{}`, wantErr: "no patchText"},
		{tool: "lsp", in: `{"operation":"hover","filePath":"a.go","line":1,"character":1}`, want: []hook.Target{read(j("a.go"))}},
		{tool: "bash", in: `{"command":"cat .env"}`, wantErr: "not judged"},
		{tool: "webfetch", in: `{"url":"https://example.com"}`, wantErr: "not judged"},
		{tool: "todowrite", in: `{"todos":[]}`, wantErr: "not judged"},
		{tool: "Read", in: `{"filePath":"/etc/shadow"}`, wantErr: "not judged"},
	}
	for _, tt := range tests {
		// The hook's cwd is elsewhere: only the session's directory counts.
		got, err := targets(hook.Call{Agent: Name, Cwd: dir, Tool: tt.tool, Input: input(t, tt.in)})
		checkMapping(t, tt, got, err)
	}
}

func lists(t hook.Target) hook.Target { t.Listing = true; return t }

func checkMapping(t *testing.T, tt mappingCase, got []hook.Target, err error) {
	t.Helper()
	switch {
	case tt.wantErr == "not judged":
		if !errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("targets(%s, %s) error = %v, want hook.ErrNotJudged", tt.tool, tt.in, err)
		}
	case tt.wantErr != "":
		if err == nil || errors.Is(err, hook.ErrNotJudged) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("targets(%s, %s) error = %v, want %q", tt.tool, tt.in, err, tt.wantErr)
		}
	case err != nil:
		t.Errorf("targets(%s, %s) = %v", tt.tool, tt.in, err)
	default:
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(hook.Target{}, "Edit", "Seen")); diff != "" {
			t.Errorf("targets(%s, %s) mismatch (-want +got):\n%s", tt.tool, tt.in, diff)
		}
	}
}

// TestRecordedEvents maps the calls opencode 1.18.33 handed a plugin
// (testdata, recorded by the probe): each decodes, and each file tool's
// path resolves against the session's directory.
func TestRecordedEvents(t *testing.T) {
	files, _ := filepath.Glob("testdata/opencode-1.18.33/*.ndjson")
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	tools := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(all))
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		ev, err := decode(sc.Bytes())
		if err != nil {
			t.Fatalf("decode(%s) = %v", sc.Bytes(), err)
		}
		c := ev.Call
		if ev.Kind != hook.BeforeTool || c.Agent != Name || c.Session == "" || !filepath.IsAbs(c.Cwd) {
			t.Errorf("decode(%s) = %+v", sc.Bytes(), ev)
		}
		tools[c.Tool] = true
		got, err := targets(c)
		if c.Tool == "bash" {
			if !errors.Is(err, hook.ErrNotJudged) {
				t.Errorf("bash: targets = %v, want not judged (the plugin runs it under picket run)", err)
			}
			continue
		}
		if err != nil || len(got) == 0 {
			t.Errorf("targets(%s) = %v, %v", sc.Bytes(), got, err)
			continue
		}
		last := got[len(got)-1]
		if !strings.HasPrefix(last.Path, c.Cwd+"/") && !strings.HasPrefix(last.Path, "/") {
			t.Errorf("targets(%s): path %s is not resolved", sc.Bytes(), last.Path)
		}
		var raw struct {
			Args map[string]any `json:"args"`
		}
		json.Unmarshal(sc.Bytes(), &raw)
		if p, ok := raw.Args["filePath"].(string); ok && !filepath.IsAbs(p) && last.Path != filepath.Join(c.Cwd, p) {
			t.Errorf("targets(%s): relative %s resolved to %s, want it under the session's directory %s", sc.Bytes(), p, last.Path, c.Cwd)
		}
	}
	for _, want := range []string{"read", "write", "edit", "glob", "grep", "bash"} {
		if !tools[want] {
			t.Errorf("the recorded events hold no %s call", want)
		}
	}
}

// TestDecode is strict: unknown members, a missing tool or arguments that
// are not an object deny.
func TestDecode(t *testing.T) {
	for _, bad := range []string{
		`{"input":{"tool":"read","sessionID":"s","callID":"c"},"args":{"filePath":"x"},"directory":"/p","extra":1}`,
		`{"input":{"sessionID":"s"},"args":{},"directory":"/p"}`,
		`{"input":{"tool":"read"},"directory":"/p"}`,
		`{"input":{"tool":"read"},"args":[1],"directory":"/p"}`,
		"{\"input\":{\"tool\":\"read\xff\"},\"args\":{}}",
		`not json`,
	} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%s) took it", bad)
		}
	}
}

// TestReply: a block throws picket's reason; an allow is nothing.
func TestReply(t *testing.T) {
	r := reply(hook.Answer{Deny: true, Reason: "picket: blocked read /p/.env\n{}"})
	if string(r.Stdout) != `{"throw":"picket: blocked read /p/.env\n{}"}` || r.Exit != 0 {
		t.Errorf("block reply = %+v", r)
	}
	if r := reply(hook.Answer{}); len(r.Stdout) != 0 || r.Exit != 0 {
		t.Errorf("allow reply = %+v, want nothing", r)
	}
}
