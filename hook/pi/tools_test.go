package pi

import (
	"encoding/json"
	"errors"
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

func read(p string) hook.Target       { return hook.Target{Access: decide.Read, Path: p, Size: -1} }
func write(p string) hook.Target      { return hook.Target{Access: decide.Write, Path: p, Size: -1} }
func list(p string) hook.Target       { return hook.Target{Access: decide.List, Path: p, Size: -1} }
func lists(t hook.Target) hook.Target { t.Listing = true; return t }

// recursive is a search by ripgrep, which skips the symlinks below its
// root.
func recursive(t hook.Target, filter string, grep bool) hook.Target {
	t.Recursive, t.Filter, t.FilterBase, t.Links = true, filter, grep, hook.LinksSkipped
	return t
}

// searched is the root a recursive tool was told to search.
func searched(t hook.Target, filter string, grep bool) hook.Target {
	t = recursive(t, filter, grep)
	t.Root = true
	return t
}

// fd marks a filter read as fd's one glob (Pi's find), which lists the
// symlinks below its root by their own names.
func fd(t hook.Target) hook.Target {
	t.Plain, t.Links = true, hook.LinksListed
	return t
}

type mappingCase struct {
	tool, in string
	want     []hook.Target
	wantErr  string // substring, or "not judged" for hook.ErrNotJudged
}

func TestPiTargets(t *testing.T) {
	sized := write("/p/new.txt")
	sized.Size = 2
	tests := []mappingCase{
		{tool: "read", in: `{"path":"@/home/u/.ssh/id_rsa"}`, want: []hook.Target{read("/home/u/.ssh/id_rsa")}},
		{tool: "read", in: `{"path":"@src/a.go","offset":1}`, want: []hook.Target{read("src/a.go")}},
		{tool: "read", in: `{"path":"@@x"}`, want: []hook.Target{read("@x")}}, // Pi drops one "@"
		{tool: "read", in: `{"path":"a@b"}`, want: []hook.Target{read("a@b")}},
		{tool: "read", in: `{}`, wantErr: "no path"},
		{tool: "read", in: `{"path":1}`, wantErr: "not a string"},
		{tool: "write", in: `{"path":"@/p/new.txt","content":"hi"}`, want: []hook.Target{sized}},
		{tool: "write", in: `{"content":"hi"}`, wantErr: "no path"},
		{tool: "edit", in: `{"path":"@/p/a.go","edits":[]}`, want: []hook.Target{write("/p/a.go")}},
		{tool: "ls", in: `{"path":"@/etc"}`, want: []hook.Target{lists(list("/etc"))}},
		{tool: "ls", in: `{}`, want: []hook.Target{lists(list("."))}},
		{tool: "grep", in: `{"pattern":"x","path":"@/p","glob":"*.md"}`, want: []hook.Target{searched(read("/p"), "*.md", true)}},
		{tool: "grep", in: `{"pattern":"x"}`, want: []hook.Target{searched(read("."), "", true)}},
		{tool: "grep", in: `{"pattern":"x","glob":7}`, wantErr: "glob: not a string"},
		{tool: "find", in: `{"pattern":"**/*.md","path":"@/p"}`, want: []hook.Target{fd(searched(list("/p"), "**/*.md", false))}},
		{tool: "find", in: `{"pattern":"../../etc/*"}`, want: []hook.Target{fd(searched(list("."), "../../etc/*", false))}}, // fd walks its path alone
		{tool: "find", in: `{"pattern":"/etc/*","path":"@/p"}`, want: []hook.Target{fd(searched(list("/p"), "/etc/*", false))}},
		{tool: "find", in: `{"path":"/p"}`, wantErr: "no pattern"},
		{tool: "find", in: `{"pattern":1}`, wantErr: "pattern: not a string"},
		{tool: "bash", in: `{"command":"cat .env"}`, wantErr: "not judged"},
		{tool: "Read", in: `{"path":"/etc/shadow"}`, wantErr: "not judged"},
	}
	for _, tt := range tests {
		got, err := targets(hook.Call{Agent: Name, Tool: tt.tool, Input: input(t, tt.in)})
		checkMapping(t, "targets", tt, got, err)
	}
	judged := func(name string) bool {
		_, err := targets(hook.Call{Agent: Name, Tool: name, Input: map[string]json.RawMessage{}})
		return !errors.Is(err, hook.ErrNotJudged)
	}
	for _, name := range []string{"read", "write", "edit", "ls", "grep", "find"} {
		if !judged(name) {
			t.Errorf("Pi tool %q is not judged, want judged", name)
		}
	}
	for _, name := range []string{"bash", "Read", ""} {
		if judged(name) {
			t.Errorf("Pi tool %q is judged, want passed through", name)
		}
	}
}

func checkMapping(t *testing.T, fn string, tt mappingCase, got []hook.Target, err error) {
	t.Helper()
	switch {
	case tt.wantErr == "not judged":
		if !errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("%s(%s, %s) error = %v, want hook.ErrNotJudged", fn, tt.tool, tt.in, err)
		}
	case tt.wantErr != "":
		if err == nil || errors.Is(err, hook.ErrNotJudged) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s(%s, %s) error = %v, want %q", fn, tt.tool, tt.in, err, tt.wantErr)
		}
	case err != nil:
		t.Errorf("%s(%s, %s) = %v", fn, tt.tool, tt.in, err)
	default:
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(hook.Target{}, "Edit", "Seen")); diff != "" {
			t.Errorf("%s(%s, %s) mismatch (-want +got):\n%s", fn, tt.tool, tt.in, diff)
		}
	}
}
