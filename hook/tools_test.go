package hook

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/picketdev/picket/decide"
)

func input(t *testing.T, js string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("bad test input %s: %v", js, err)
	}
	return m
}

func read(p string) Target  { return Target{Access: decide.Read, Path: p, Size: -1} }
func write(p string) Target { return Target{Access: decide.Write, Path: p, Size: -1} }
func list(p string) Target  { return Target{Access: decide.List, Path: p, Size: -1} }
func lists(t Target) Target { t.Listing = true; return t }

// recursive is a search by ripgrep, which skips the symlinks below its
// root.
func recursive(t Target, filter string, grep bool) Target {
	t.Recursive, t.Filter, t.FilterBase, t.Links = true, filter, grep, LinksSkipped
	return t
}

// followed is a search picket scans as one that follows symlinks: a
// pattern climbing out of a Glob's path.
func followed(t Target) Target {
	t.Links = LinksFollowed
	return t
}

// searched is the root a recursive tool was told to search.
func searched(t Target, filter string, grep bool) Target {
	t = recursive(t, filter, grep)
	t.Root = true
	return t
}

// fd marks a filter read as fd's one glob (Pi's find), which lists the
// symlinks below its root by their own names.
func fd(t Target) Target {
	t.Plain, t.Links = true, LinksListed
	return t
}

type mappingCase struct {
	tool, in string
	want     []Target
	wantErr  string // substring, or "not judged" for ErrNotJudged
}

func TestClaudeTargets(t *testing.T) {
	sized := write("/p/new.txt")
	sized.Size = 5
	empty := write("/p/empty")
	empty.Size = 0
	tests := []mappingCase{
		{tool: "Read", in: `{"file_path":"/p/a.go","offset":3,"limit":10}`, want: []Target{read("/p/a.go")}},
		{tool: "Read", in: `{"file_path":"rel/a.go"}`, want: []Target{read("rel/a.go")}},
		{tool: "Read", in: `{}`, wantErr: "no file_path"},
		{tool: "Read", in: `{"file_path":null}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":7}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":["/etc/passwd"]}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":{"p":"/etc/passwd"}}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":""}`, wantErr: "file_path is empty"},
		{tool: "Read", in: `{"File_Path":"/etc/passwd","path":"/etc/passwd"}`, wantErr: "no file_path"},
		{tool: "Write", in: `{"file_path":"/p/new.txt","content":"hello"}`, want: []Target{sized}},
		{tool: "Write", in: `{"file_path":"/p/empty","content":""}`, want: []Target{empty}},
		{tool: "Write", in: `{"file_path":"/p/a","content":42}`, want: []Target{write("/p/a")}},
		{tool: "Write", in: `{"content":"x"}`, wantErr: "no file_path"},
		{tool: "Edit", in: `{"file_path":"/p/a.go","old_string":"a","new_string":"b"}`, want: []Target{write("/p/a.go")}},
		{tool: "Edit", in: `{"file_path":false}`, wantErr: "not a string"},
		{tool: "MultiEdit", in: `{"file_path":"/p/a.go","edits":[]}`, want: []Target{write("/p/a.go")}},
		{tool: "MultiEdit", in: `{"edits":[]}`, wantErr: "no file_path"},
		{tool: "NotebookEdit", in: `{"notebook_path":"/p/n.ipynb","new_source":"x"}`, want: []Target{write("/p/n.ipynb")}},
		{tool: "NotebookEdit", in: `{"file_path":"/p/n.ipynb"}`, wantErr: "no notebook_path"},
		{tool: "LS", in: `{"path":"/p/sub"}`, want: []Target{lists(list("/p/sub"))}},
		{tool: "LS", in: `{}`, wantErr: "no path"},
		// Claude Code 2.1.332's LSP tool: the language server answers
		// about filePath (a hover shows a constant's value).
		{tool: "LSP", in: `{"operation":"hover","filePath":"secrets/keys.go","line":4,"character":8}`, want: []Target{read("secrets/keys.go")}},
		{tool: "LSP", in: `{"operation":"workspaceSymbol","query":"APIKey"}`, wantErr: "no filePath"},
		// PowerShell bypasses the shell prefix: denied whatever it runs.
		{tool: "PowerShell", in: `{"command":"Get-Content .env"}`, wantErr: "outside picket's shell sandbox"},
		{tool: "Grep", in: `{"pattern":"x"}`, want: []Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":null}`, want: []Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":""}`, want: []Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"/p/src"}`, want: []Target{searched(read("/p/src"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"src","glob":"*.md"}`, want: []Target{searched(read("src"), "*.md", true)}},
		{tool: "Grep", in: `{"pattern":"x","glob":"docs/**/*.md"}`, want: []Target{searched(read("."), "docs/**/*.md", true)}},
		// Claude Code trims and NFC-normalizes Grep and Glob paths after
		// the hook: both spellings are judged.
		{tool: "Grep", in: `{"pattern":"x","path":".env "}`, want: []Target{searched(read(".env"), "", true), searched(read(".env "), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"\u00a0~/.ssh\n"}`, want: []Target{searched(read("~/.ssh"), "", true), searched(read("\u00a0~/.ssh\n"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"\ufeff\u2003sub\u3000"}`, want: []Target{searched(read("sub"), "", true), searched(read("\ufeff\u2003sub\u3000"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"cafe\u0301"}`, want: []Target{searched(read("caf\u00e9"), "", true), searched(read("cafe\u0301"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":" "}`, want: []Target{searched(read("."), "", true), searched(read(" "), "", true)}}, // trimmed to nothing: the cwd
		{tool: "Grep", in: `{"pattern":"x","path":"a\u0085"}`, want: []Target{searched(read("a\u0085"), "", true)}},                    // NEL is not JavaScript white space
		{tool: "Glob", in: `{"pattern":"src/*.go","path":" /p "}`, want: []Target{searched(list("/p"), "src/*.go", false), searched(list(" /p "), "src/*.go", false)}},
		{tool: "Grep", in: `{"pattern":"x","path":3}`, wantErr: "path: not a string"},
		{tool: "Grep", in: `{"pattern":"x","glob":["*.md"]}`, wantErr: "glob: not a string"},
		{tool: "Glob", in: `{"pattern":"**/*.md"}`, want: []Target{searched(list("."), "**/*.md", false)}},
		{tool: "Glob", in: `{"pattern":"*.go","path":"/p/src"}`, want: []Target{searched(list("/p/src"), "*.go", false)}},
		{tool: "Glob", in: `{"pattern":"../../etc/**"}`, want: []Target{searched(list("."), "../../etc/**", false), followed(recursive(list("./../../etc"), "**", false))}},
		{tool: "Glob", in: `{"pattern":"../../etc/**","path":"/p/a"}`, want: []Target{searched(list("/p/a"), "../../etc/**", false), followed(recursive(list("/p/a/../../etc"), "**", false))}},
		{tool: "Glob", in: `{"pattern":"/etc/*"}`, want: []Target{list("."), recursive(list("/etc"), "*", false)}},
		{tool: "Glob", in: `{"pattern":"/*"}`, want: []Target{list("."), recursive(list("/"), "*", false)}},
		{tool: "Glob", in: `{"pattern":"/home/u/.ssh/id_*","path":"/p"}`, want: []Target{list("/p"), recursive(list("/home/u/.ssh"), "id_*", false)}},
		{tool: "Glob", in: `{"pattern":"src/{a,b}/*.go"}`, want: []Target{searched(list("."), "src/{a,b}/*.go", false)}},
		{tool: "Glob", in: `{"pattern":"README.md"}`, want: []Target{searched(list("."), "README.md", false)}},
		{tool: "Glob", in: `{"pattern":"/etc/passwd"}`, want: []Target{list("."), recursive(list("/etc"), "passwd", false)}},
		// Claude Code cuts an absolute pattern before its first glob
		// character and trims the directory it searches.
		{tool: "Glob", in: `{"pattern":"/h/.ssh /id*"}`, want: []Target{list("."), recursive(list("/h/.ssh "), "id*", false), recursive(list("/h/.ssh"), "id*", false)}},
		{tool: "Glob", in: `{"pattern":"/h/.ssh/!x"}`, want: []Target{list("."), recursive(list("/h/.ssh"), "!x", false)}},
		{tool: "Glob", in: `{"path":"/p"}`, wantErr: "no pattern"},
		{tool: "Glob", in: `{"pattern":null}`, wantErr: "no pattern"},
		{tool: "Glob", in: `{"pattern":1}`, wantErr: "pattern: not a string"},
		{tool: "Glob", in: `{"pattern":"*","path":{}}`, wantErr: "path: not a string"},
		{tool: "Bash", in: `{"command":"cat ~/.ssh/id_rsa"}`, wantErr: "not judged"},
		{tool: "WebFetch", in: `{"url":"file:///etc/passwd"}`, wantErr: "not judged"},
		{tool: "mcp__x__read_file", in: `{"path":"/etc/shadow"}`, wantErr: "not judged"},
		{tool: "read", in: `{"path":"/etc/shadow"}`, wantErr: "not judged"}, // Pi's name, not Claude's
		{tool: "", in: `{}`, wantErr: "not judged"},
	}
	for _, tt := range tests {
		for i := range tt.want {
			// Claude Code's Grep glob is read only as Claude Code splits it.
			tt.want[i].Split = tt.want[i].FilterBase
		}
		got, err := ClaudeTargets(tt.tool, input(t, tt.in))
		checkMapping(t, "ClaudeTargets", tt, got, err)
	}
}

func TestPiTargets(t *testing.T) {
	sized := write("/p/new.txt")
	sized.Size = 2
	tests := []mappingCase{
		{tool: "read", in: `{"path":"@/home/u/.ssh/id_rsa"}`, want: []Target{read("/home/u/.ssh/id_rsa")}},
		{tool: "read", in: `{"path":"@src/a.go","offset":1}`, want: []Target{read("src/a.go")}},
		{tool: "read", in: `{"path":"@@x"}`, want: []Target{read("@x")}}, // Pi drops one "@"
		{tool: "read", in: `{"path":"a@b"}`, want: []Target{read("a@b")}},
		{tool: "read", in: `{}`, wantErr: "no path"},
		{tool: "read", in: `{"path":1}`, wantErr: "not a string"},
		{tool: "write", in: `{"path":"@/p/new.txt","content":"hi"}`, want: []Target{sized}},
		{tool: "write", in: `{"content":"hi"}`, wantErr: "no path"},
		{tool: "edit", in: `{"path":"@/p/a.go","edits":[]}`, want: []Target{write("/p/a.go")}},
		{tool: "ls", in: `{"path":"@/etc"}`, want: []Target{lists(list("/etc"))}},
		{tool: "ls", in: `{}`, want: []Target{lists(list("."))}},
		{tool: "grep", in: `{"pattern":"x","path":"@/p","glob":"*.md"}`, want: []Target{searched(read("/p"), "*.md", true)}},
		{tool: "grep", in: `{"pattern":"x"}`, want: []Target{searched(read("."), "", true)}},
		{tool: "grep", in: `{"pattern":"x","glob":7}`, wantErr: "glob: not a string"},
		{tool: "find", in: `{"pattern":"**/*.md","path":"@/p"}`, want: []Target{fd(searched(list("/p"), "**/*.md", false))}},
		{tool: "find", in: `{"pattern":"../../etc/*"}`, want: []Target{fd(searched(list("."), "../../etc/*", false))}}, // fd walks its path alone
		{tool: "find", in: `{"pattern":"/etc/*","path":"@/p"}`, want: []Target{fd(searched(list("/p"), "/etc/*", false))}},
		{tool: "find", in: `{"path":"/p"}`, wantErr: "no pattern"},
		{tool: "find", in: `{"pattern":1}`, wantErr: "pattern: not a string"},
		{tool: "bash", in: `{"command":"cat .env"}`, wantErr: "not judged"},
		{tool: "Read", in: `{"path":"/etc/shadow"}`, wantErr: "not judged"},
	}
	for _, tt := range tests {
		got, err := Targets(Call{Agent: "pi", Tool: tt.tool, Input: input(t, tt.in)})
		checkMapping(t, "Targets(pi)", tt, got, err)
	}
	judged := func(name string) bool {
		_, err := Targets(Call{Agent: "pi", Tool: name, Input: map[string]json.RawMessage{}})
		return !errors.Is(err, ErrNotJudged)
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

func checkMapping(t *testing.T, fn string, tt mappingCase, got []Target, err error) {
	t.Helper()
	switch {
	case tt.wantErr == "not judged":
		if !errors.Is(err, ErrNotJudged) {
			t.Errorf("%s(%s, %s) error = %v, want ErrNotJudged", fn, tt.tool, tt.in, err)
		}
	case tt.wantErr != "":
		if err == nil || errors.Is(err, ErrNotJudged) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s(%s, %s) error = %v, want %q", fn, tt.tool, tt.in, err, tt.wantErr)
		}
	case err != nil:
		t.Errorf("%s(%s, %s) = %v", fn, tt.tool, tt.in, err)
	default:
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s(%s, %s) mismatch (-want +got):\n%s", fn, tt.tool, tt.in, diff)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	tests := []struct{ pat, prefix, rest string }{
		{"**/*.md", "", "**/*.md"},
		{"*.go", "", "*.go"},
		{"src/*.go", "src", "*.go"},
		{"../../etc/**", "../../etc", "**"},
		{"/etc/*", "/etc", "*"},
		{"/*", "/", "*"},
		{"a/b/c", "a/b/c", ""},
		{"a/[bc]/d", "a", "[bc]/d"},
		{"a/b?/d", "a", "b?/d"},
		{"{a,b}/c", "", "{a,b}/c"},
		{"", "", ""},
	}
	for _, tt := range tests {
		prefix, rest := literalPrefix(tt.pat)
		if prefix != tt.prefix || rest != tt.rest {
			t.Errorf("literalPrefix(%q) = %q, %q, want %q, %q", tt.pat, prefix, rest, tt.prefix, tt.rest)
		}
	}
}
