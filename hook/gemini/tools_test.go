package gemini

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

func tgt(a decide.Access, p string) hook.Target { return hook.Target{Access: a, Path: p, Size: -1} }

// primary is the spelling Gemini CLI takes first: what the ledger records.
func primary(t hook.Target) hook.Target {
	t.Seen = true
	if t.Access == decide.Write {
		t.Edit = true
	}
	return t
}

func sized(t hook.Target, n int64) hook.Target { t.Size = n; return t }

// scanned is a search root, scanned with links judged by their targets.
func scanned(t hook.Target, filter string) hook.Target {
	t.Recursive, t.Root, t.Filter, t.Links = true, true, filter, hook.LinksFollowed
	return t
}

// grep is grep_search's scan: its filter read as ripgrep, git grep and
// GNU grep read it.
func grep(t hook.Target, filter string) hook.Target {
	t = scanned(t, filter)
	t.FilterBase, t.Fnmatch = true, true
	return t
}

// below is a scan of a pattern's literal head.
func below(t hook.Target, filter string) hook.Target {
	t.Recursive, t.Filter, t.Links = true, filter, hook.LinksFollowed
	return t
}

// TestGeminiTargets maps each file tool's input to the paths Gemini CLI
// 0.61 touches. The workspace (the hook's cwd) is a real directory, so
// the "@" reading sees what exists; a relative path is the workspace's,
// wherever the test runs.
func TestGeminiTargets(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "@scoped/pkg.json", "sub/b.txt", "[x].txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o644)
	}
	R, W, L := decide.Read, decide.Write, decide.List
	j := func(p string) string { return filepath.Join(ws, p) }
	tests := []struct {
		tool, in string
		want     []hook.Target
		wantErr  string // substring, or "not judged"
	}{
		{tool: "read_file", in: `{"file_path":"a.txt"}`, want: []hook.Target{primary(tgt(R, j("a.txt")))}},
		{tool: "read_file", in: `{"file_path":"/etc/passwd","start_line":1}`, want: []hook.Target{primary(tgt(R, "/etc/passwd"))}},
		{tool: "read_file", in: `{"file_path":"sub/../../x"}`, want: []hook.Target{primary(tgt(R, filepath.Dir(ws)+"/x"))}},
		// %-escapes are decoded after the path is joined: "%2Eenv" is .env,
		// "%2E%2E" climbs.
		{tool: "read_file", in: `{"file_path":"%2Eenv"}`, want: []hook.Target{primary(tgt(R, j(".env"))), tgt(R, j("%2Eenv"))}},
		{tool: "read_file", in: `{"file_path":"sub/%2E%2E/%2E%2E/y"}`, want: []hook.Target{primary(tgt(R, filepath.Dir(ws)+"/y")), tgt(R, j("sub/%2E%2E/%2E%2E/y"))}},
		{tool: "read_file", in: `{"file_path":"%zz.txt"}`, want: []hook.Target{primary(tgt(R, j("%zz.txt")))}},
		// "@x" is x where no file "@x" exists; both are judged.
		{tool: "read_file", in: `{"file_path":"@.env"}`, want: []hook.Target{primary(tgt(R, j(".env"))), tgt(R, j("@.env"))}},
		{tool: "read_file", in: `{"file_path":"@/etc/passwd"}`, want: []hook.Target{primary(tgt(R, j("etc/passwd"))), tgt(R, j("@/etc/passwd"))}},
		{tool: "read_file", in: `{"file_path":"@scoped/pkg.json"}`, want: []hook.Target{primary(tgt(R, j("@scoped/pkg.json"))), tgt(R, j("scoped/pkg.json"))}},
		{tool: "read_file", in: `{"file_path":"a\u0000.txt"}`, wantErr: "NUL"},
		{tool: "read_file", in: `{"file_path":"x%00"}`, wantErr: "NUL"},
		{tool: "read_file", in: `{"file_path":""}`, wantErr: "file_path is empty"},
		{tool: "read_file", in: `{"file_path":7}`, wantErr: "not a string"},
		{tool: "read_file", in: `{"File_Path":"/etc/passwd"}`, wantErr: "no file_path"},
		{tool: "write_file", in: `{"file_path":"new.txt","content":"hello"}`, want: []hook.Target{sized(primary(tgt(W, j("new.txt"))), 5)}},
		{tool: "write_file", in: `{"file_path":"/tmp/o","content":7}`, want: []hook.Target{primary(tgt(W, "/tmp/o"))}},
		{tool: "replace", in: `{"file_path":"a.txt","instruction":"i","old_string":"x","new_string":"y"}`, want: []hook.Target{primary(tgt(W, j("a.txt")))}},
		{tool: "replace", in: `{"file_path":".gemini/settings.json","old_string":"","new_string":"{}"}`, want: []hook.Target{primary(tgt(W, j(".gemini/settings.json")))}},
		{tool: "list_directory", in: `{"dir_path":"sub","ignore":["*.log"]}`, want: []hook.Target{{Access: L, Path: j("sub"), Size: -1, Listing: true}}},
		// list_directory neither decodes nor drops "@".
		{tool: "list_directory", in: `{"dir_path":"%2E%2E"}`, want: []hook.Target{{Access: L, Path: j("%2E%2E"), Size: -1, Listing: true}}},
		{tool: "list_directory", in: `{}`, wantErr: "no dir_path"},
		{tool: "glob", in: `{"pattern":"**/*.txt"}`, want: []hook.Target{scanned(tgt(L, ws), "**/*.txt")}},
		{tool: "glob", in: `{"pattern":"*.txt","dir_path":"sub","case_sensitive":true}`, want: []hook.Target{scanned(tgt(L, j("sub")), "*.txt")}},
		{tool: "glob", in: `{"pattern":"../../etc/*"}`, want: []hook.Target{scanned(tgt(L, ws), "../../etc/*"), below(tgt(L, filepath.Dir(filepath.Dir(ws))+"/etc"), "*")}},
		{tool: "glob", in: `{"pattern":"/etc/*.conf"}`, want: []hook.Target{scanned(tgt(L, ws), "/etc/*.conf"), below(tgt(L, "/etc"), "*.conf")}},
		// An extglob node-glob reads and picket's filter does not: all of it.
		{tool: "glob", in: `{"pattern":"+(.e|x)nv"}`, want: []hook.Target{scanned(tgt(L, ws), "")}},
		// A file of the pattern's very name is listed as it is.
		{tool: "glob", in: `{"pattern":"[x].txt"}`, want: []hook.Target{scanned(tgt(L, ws), "[x].txt"), below(tgt(L, j("[x].txt")), "")}},
		{tool: "glob", in: `{"pattern":"  "}`, wantErr: "pattern is empty"},
		{tool: "grep_search", in: `{"pattern":"k"}`, want: []hook.Target{grep(tgt(R, ws), "")}},
		{tool: "grep_search", in: `{"pattern":"k","dir_path":"sub","include_pattern":"*.go"}`, want: []hook.Target{grep(tgt(R, j("sub")), "*.go")}},
		{tool: "search_file_content", in: `{"pattern":"k","dir_path":"%2E"}`, want: []hook.Target{grep(tgt(R, ws), ""), grep(tgt(R, j("%2E")), "")}},
		{tool: "grep_search", in: `{"pattern":"k","include_pattern":"@(x).env"}`, want: []hook.Target{grep(tgt(R, ws), "")}},
		{tool: "grep_search", in: `{"dir_path":"."}`, wantErr: "no pattern"},
		{tool: "read_many_files", in: `{"include":["src/**/*.ts","../x/*"]}`, want: []hook.Target{
			scanned(tgt(R, ws), "src/**/*.ts"), scanned(tgt(R, ws), "../x/*"), below(tgt(R, filepath.Dir(ws)+"/x"), "*")}},
		{tool: "read_many_files", in: `{"include":"*.ts"}`, wantErr: "not a list"},
		{tool: "run_shell_command", in: `{"command":"cat .env"}`, wantErr: "not judged"},
		{tool: "web_fetch", in: `{"prompt":"x"}`, wantErr: "not judged"},
		{tool: "mcp_fs_read_file", in: `{"file_path":".env"}`, wantErr: "not judged"},
	}
	for _, tt := range tests {
		got, err := targets(hook.Call{Agent: Name, Cwd: ws, Tool: tt.tool, Input: input(t, tt.in)})
		switch {
		case tt.wantErr == "not judged":
			if !errors.Is(err, hook.ErrNotJudged) {
				t.Errorf("%s %s: err %v, want ErrNotJudged", tt.tool, tt.in, err)
			}
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s %s: err %v, want %q", tt.tool, tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tt.tool, tt.in, err)
		default:
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s %s: mismatch (-want +got):\n%s", tt.tool, tt.in, d)
			}
		}
	}
}

// TestGeminiFixtures maps every call recorded from Gemini CLI 0.61 (a
// session in project/sub of a git repository): relative paths are the
// session directory's, the hook's cwd, wherever picket runs.
func TestGeminiFixtures(t *testing.T) {
	data, err := os.ReadFile("testdata/gemini-cli-0.61.0/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	const sub = "/home/user/scratch/project/sub"
	want := map[string]hook.Target{
		`{"file_path":"deep.txt"}`:                                    primary(tgt(decide.Read, sub+"/deep.txt")),
		`{"content":"new\n","file_path":"new.txt"}`:                   sized(primary(tgt(decide.Write, sub+"/new.txt")), 4),
		`{"dir_path":".","ignore":["*.log"]}`:                         {Access: decide.List, Path: sub, Size: -1, Listing: true},
		`{"pattern":"**/*.txt"}`:                                      scanned(tgt(decide.List, sub), "**/*.txt"),
		`{"dir_path":".","include_pattern":"*.txt","pattern":"deep"}`: grep(tgt(decide.Read, sub), "*.txt"),
	}
	kinds := map[hook.EventKind]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		ev, err := decode(sc.Bytes())
		if err != nil {
			t.Fatalf("decode %s: %v", sc.Bytes(), err)
		}
		kinds[ev.Kind]++
		if ev.Call.Cwd != sub {
			t.Errorf("%s: cwd %q, want %q", ev.Call.Tool, ev.Call.Cwd, sub)
		}
		if ev.Kind != hook.BeforeTool {
			continue
		}
		in, _ := json.Marshal(ev.Call.Input)
		got, err := targets(ev.Call)
		if ev.Call.Tool == toolShell {
			if !errors.Is(err, hook.ErrNotJudged) {
				t.Errorf("run_shell_command: Targets = %v, want it left to the rewrite", err)
			}
			continue
		}
		if err != nil || len(got) == 0 {
			t.Errorf("%s %s: %v", ev.Call.Tool, in, err)
			continue
		}
		if w, ok := want[string(in)]; ok && !cmp.Equal(w, got[0]) {
			t.Errorf("%s %s: mismatch (-want +got):\n%s", ev.Call.Tool, in, cmp.Diff(w, got[0]))
		}
	}
	if kinds[hook.BeforeTool] != 12 || kinds[hook.AfterTool] != 12 || kinds[hook.SessionStart] != 1 || kinds[hook.SessionEnd] != 1 {
		t.Errorf("event kinds %v, want 12 before, 12 after, one start and one end", kinds)
	}
}
