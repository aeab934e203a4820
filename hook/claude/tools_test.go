package claude

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

// followed is a search picket scans as one that follows symlinks: a
// pattern climbing out of a Glob's path.
func followed(t hook.Target) hook.Target {
	t.Links = hook.LinksFollowed
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

func TestClaudeTargets(t *testing.T) {
	sized := write("/p/new.txt")
	sized.Size = 5
	empty := write("/p/empty")
	empty.Size = 0
	tests := []mappingCase{
		{tool: "Read", in: `{"file_path":"/p/a.go","offset":3,"limit":10}`, want: []hook.Target{read("/p/a.go")}},
		{tool: "Read", in: `{"file_path":"rel/a.go"}`, want: []hook.Target{read("rel/a.go")}},
		{tool: "Read", in: `{}`, wantErr: "no file_path"},
		{tool: "Read", in: `{"file_path":null}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":7}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":["/etc/passwd"]}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":{"p":"/etc/passwd"}}`, wantErr: "file_path: not a string"},
		{tool: "Read", in: `{"file_path":""}`, wantErr: "file_path is empty"},
		{tool: "Read", in: `{"File_Path":"/etc/passwd","path":"/etc/passwd"}`, wantErr: "no file_path"},
		{tool: "Write", in: `{"file_path":"/p/new.txt","content":"hello"}`, want: []hook.Target{sized}},
		{tool: "Write", in: `{"file_path":"/p/empty","content":""}`, want: []hook.Target{empty}},
		{tool: "Write", in: `{"file_path":"/p/a","content":42}`, want: []hook.Target{write("/p/a")}},
		{tool: "Write", in: `{"content":"x"}`, wantErr: "no file_path"},
		{tool: "Edit", in: `{"file_path":"/p/a.go","old_string":"a","new_string":"b"}`, want: []hook.Target{write("/p/a.go")}},
		{tool: "Edit", in: `{"file_path":false}`, wantErr: "not a string"},
		{tool: "MultiEdit", in: `{"file_path":"/p/a.go","edits":[]}`, want: []hook.Target{write("/p/a.go")}},
		{tool: "MultiEdit", in: `{"edits":[]}`, wantErr: "no file_path"},
		{tool: "NotebookEdit", in: `{"notebook_path":"/p/n.ipynb","new_source":"x"}`, want: []hook.Target{write("/p/n.ipynb")}},
		{tool: "NotebookEdit", in: `{"file_path":"/p/n.ipynb"}`, wantErr: "no notebook_path"},
		{tool: "LS", in: `{"path":"/p/sub"}`, want: []hook.Target{lists(list("/p/sub"))}},
		{tool: "LS", in: `{}`, wantErr: "no path"},
		// Claude Code 2.1.332's LSP tool: the language server answers
		// about filePath (a hover shows a constant's value).
		{tool: "LSP", in: `{"operation":"hover","filePath":"secrets/keys.go","line":4,"character":8}`, want: []hook.Target{read("secrets/keys.go")}},
		{tool: "LSP", in: `{"operation":"workspaceSymbol","query":"APIKey"}`, wantErr: "no filePath"},
		// PowerShell bypasses the shell prefix: denied whatever it runs.
		{tool: "PowerShell", in: `{"command":"Get-Content .env"}`, wantErr: "outside picket's shell sandbox"},
		{tool: "Grep", in: `{"pattern":"x"}`, want: []hook.Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":null}`, want: []hook.Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":""}`, want: []hook.Target{searched(read("."), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"/p/src"}`, want: []hook.Target{searched(read("/p/src"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"src","glob":"*.md"}`, want: []hook.Target{searched(read("src"), "*.md", true)}},
		{tool: "Grep", in: `{"pattern":"x","glob":"docs/**/*.md"}`, want: []hook.Target{searched(read("."), "docs/**/*.md", true)}},
		// Claude Code trims and NFC-normalizes Grep and Glob paths after
		// the hook: both spellings are judged.
		{tool: "Grep", in: `{"pattern":"x","path":".env "}`, want: []hook.Target{searched(read(".env"), "", true), searched(read(".env "), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"\u00a0~/.ssh\n"}`, want: []hook.Target{searched(read("~/.ssh"), "", true), searched(read("\u00a0~/.ssh\n"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"\ufeff\u2003sub\u3000"}`, want: []hook.Target{searched(read("sub"), "", true), searched(read("\ufeff\u2003sub\u3000"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":"cafe\u0301"}`, want: []hook.Target{searched(read("caf\u00e9"), "", true), searched(read("cafe\u0301"), "", true)}},
		{tool: "Grep", in: `{"pattern":"x","path":" "}`, want: []hook.Target{searched(read("."), "", true), searched(read(" "), "", true)}}, // trimmed to nothing: the cwd
		{tool: "Grep", in: `{"pattern":"x","path":"a\u0085"}`, want: []hook.Target{searched(read("a\u0085"), "", true)}},                    // NEL is not JavaScript white space
		{tool: "Glob", in: `{"pattern":"src/*.go","path":" /p "}`, want: []hook.Target{searched(list("/p"), "src/*.go", false), searched(list(" /p "), "src/*.go", false)}},
		{tool: "Grep", in: `{"pattern":"x","path":3}`, wantErr: "path: not a string"},
		{tool: "Grep", in: `{"pattern":"x","glob":["*.md"]}`, wantErr: "glob: not a string"},
		{tool: "Glob", in: `{"pattern":"**/*.md"}`, want: []hook.Target{searched(list("."), "**/*.md", false)}},
		{tool: "Glob", in: `{"pattern":"*.go","path":"/p/src"}`, want: []hook.Target{searched(list("/p/src"), "*.go", false)}},
		{tool: "Glob", in: `{"pattern":"../../etc/**"}`, want: []hook.Target{searched(list("."), "../../etc/**", false), followed(recursive(list("./../../etc"), "**", false))}},
		{tool: "Glob", in: `{"pattern":"../../etc/**","path":"/p/a"}`, want: []hook.Target{searched(list("/p/a"), "../../etc/**", false), followed(recursive(list("/p/a/../../etc"), "**", false))}},
		{tool: "Glob", in: `{"pattern":"/etc/*"}`, want: []hook.Target{list("."), recursive(list("/etc"), "*", false)}},
		{tool: "Glob", in: `{"pattern":"/*"}`, want: []hook.Target{list("."), recursive(list("/"), "*", false)}},
		{tool: "Glob", in: `{"pattern":"/home/u/.ssh/id_*","path":"/p"}`, want: []hook.Target{list("/p"), recursive(list("/home/u/.ssh"), "id_*", false)}},
		{tool: "Glob", in: `{"pattern":"src/{a,b}/*.go"}`, want: []hook.Target{searched(list("."), "src/{a,b}/*.go", false)}},
		{tool: "Glob", in: `{"pattern":"README.md"}`, want: []hook.Target{searched(list("."), "README.md", false)}},
		{tool: "Glob", in: `{"pattern":"/etc/passwd"}`, want: []hook.Target{list("."), recursive(list("/etc"), "passwd", false)}},
		// Claude Code cuts an absolute pattern before its first glob
		// character and trims the directory it searches.
		{tool: "Glob", in: `{"pattern":"/h/.ssh /id*"}`, want: []hook.Target{list("."), recursive(list("/h/.ssh "), "id*", false), recursive(list("/h/.ssh"), "id*", false)}},
		{tool: "Glob", in: `{"pattern":"/h/.ssh/!x"}`, want: []hook.Target{list("."), recursive(list("/h/.ssh"), "!x", false)}},
		{tool: "Glob", in: `{"path":"/p"}`, wantErr: "no pattern"},
		{tool: "Glob", in: `{"pattern":null}`, wantErr: "no pattern"},
		{tool: "Glob", in: `{"pattern":1}`, wantErr: "pattern: not a string"},
		{tool: "Glob", in: `{"pattern":"*","path":{}}`, wantErr: "path: not a string"},
		// Copilot CLI's Grep and Glob (through a repository's
		// .claude/settings.json) name their roots in "paths": judged by
		// "path" alone, they would pass a search of anything.
		{tool: "Grep", in: `{"pattern":"SECRET","paths":["/home/u/.ssh"]}`, wantErr: `"paths"`},
		{tool: "Grep", in: `{"pattern":"x","path":".","paths":[".env"]}`, wantErr: `"paths"`},
		{tool: "Glob", in: `{"pattern":"*","paths":["/home/u/.ssh"]}`, wantErr: `"paths"`},
		{tool: "Glob", in: `{"pattern":"*","paths":null}`, wantErr: `"paths"`},
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
		got, err := Targets(tt.tool, input(t, tt.in))
		checkMapping(t, "Targets", tt, got, err)
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
		if diff := cmp.Diff(tt.want, got, ignoreFlags); diff != "" {
			t.Errorf("%s(%s, %s) mismatch (-want +got):\n%s", fn, tt.tool, tt.in, diff)
		}
	}
}

// ignoreFlags leaves the ledger's flags to TestTargetFlags.
var ignoreFlags = cmpopts.IgnoreFields(hook.Target{}, "Edit", "Seen")

// TestTargetFlags: a Read is seen once it ran; a Write, Edit, MultiEdit
// and NotebookEdit change a file in place (read-before-edit) and are seen;
// nothing else is either.
func TestTargetFlags(t *testing.T) {
	tests := []struct {
		tool, in   string
		edit, seen bool
	}{
		{"Read", `{"file_path":"/p/a"}`, false, true},
		{"Write", `{"file_path":"/p/a","content":""}`, true, true},
		{"Edit", `{"file_path":"/p/a"}`, true, true},
		{"MultiEdit", `{"file_path":"/p/a"}`, true, true},
		{"NotebookEdit", `{"notebook_path":"/p/a"}`, true, true},
		{"LSP", `{"filePath":"/p/a"}`, false, false},
		{"LS", `{"path":"/p"}`, false, false},
		{"Grep", `{"path":"/p"}`, false, false},
	}
	for _, tt := range tests {
		got, err := Targets(tt.tool, input(t, tt.in))
		if err != nil || len(got) == 0 {
			t.Fatalf("Targets(%s) = %v, %v", tt.tool, got, err)
		}
		if got[0].Edit != tt.edit || got[0].Seen != tt.seen {
			t.Errorf("Targets(%s) edit, seen = %v, %v, want %v, %v", tt.tool, got[0].Edit, got[0].Seen, tt.edit, tt.seen)
		}
	}
}
