package qwen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// recorded returns the fixtures' events, decoded, in their order: what
// Qwen Code 0.15.10 sent its hook in TestQwenProbe (its session in
// /home/user/project/sub), then the three of agents.md's sample.
func recorded(t *testing.T) []hook.Event {
	t.Helper()
	f, err := os.Open("testdata/qwen-code-0.15.10/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hook.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		ev, err := decode(sc.Bytes())
		if err != nil {
			t.Fatalf("decode(%s) = %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

const sub = "/home/user/project/sub"

// TestTargetsRecorded maps every recorded call. Relative paths (glob's
// and grep_search's ".") resolve against the session's directory from
// the event, never against the hook process's own working directory,
// which this test moves elsewhere.
func TestTargetsRecorded(t *testing.T) {
	evs := recorded(t)
	t.Chdir(t.TempDir())
	want := [][]hook.Target{
		{{Access: decide.Read, Path: sub + "/picket-canary.txt", Size: -1, Seen: true}},
		{{Access: decide.Read, Path: sub + "/deep.txt", Size: -1, Seen: true}},
		{{Access: decide.Read, Path: "/home/user/project/notes.txt", Size: -1, Seen: true}},
		{{Access: decide.Write, Path: sub + "/written.txt", Size: int64(len("written by the model\n")), Seen: true, Edit: true}},
		{{Access: decide.Write, Path: sub + "/deep.txt", Size: -1, Seen: true, Edit: true}},
		{{Access: decide.List, Path: sub, Size: -1, Listing: true}},
		{{Access: decide.List, Path: sub + "/.", Size: -1, Recursive: true, Root: true, Filter: "*.txt", Links: hook.LinksFollowed}},
		{{Access: decide.Read, Path: sub + "/.", Size: -1, Recursive: true, Root: true, FilterBase: true, Fnmatch: true, Links: hook.LinksFollowed}},
		hook.ShellLine("cat deep.txt", sub),
		hook.ShellLine(`printf '%s-%s\n' ran mode-exit1`, sub),
		{{Access: decide.Read, Path: "/home/user/project/secret.txt", Size: -1, Seen: true}},
		hook.ShellLine("cat secret.txt", "/home/user/project"),
		{{Access: decide.Read, Path: "/home/user/project/notes.txt", Size: -1, Seen: true}},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d recorded events, %d expected", len(evs), len(want))
	}
	for i, ev := range evs {
		if ev.Kind != hook.BeforeTool || ev.Call.Agent != Name || ev.Call.Session == "" || !filepath.IsAbs(ev.Call.Cwd) {
			t.Errorf("event %d: decoded %+v", i, ev)
		}
		got, err := targets(ev.Call)
		if err != nil {
			t.Errorf("event %d (%s): Targets = %v", i, ev.Call.Tool, err)
			continue
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("event %d (%s): Targets = %+v, want %+v", i, ev.Call.Tool, got, want[i])
		}
	}
}

func in(s string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// TestTargets covers the inputs the probe did not: relative and "~"
// paths (against the session's directory and home, never the hook's
// cwd), searches without a path, patterns that climb out or are
// absolute, a glob filter, a shell command's and monitor's directory,
// lsp, and the inputs picket cannot read, which are errors (denied).
func TestTargets(t *testing.T) {
	t.Chdir(t.TempDir())
	root := "/w/p"
	for _, tt := range []struct {
		tool, input string
		want        []hook.Target
	}{
		{toolRead, `{"file_path":"rel/.env"}`, []hook.Target{{Access: decide.Read, Path: "/w/p/rel/.env", Size: -1, Seen: true}}},
		{toolRead, `{"file_path":"/a/b","absolute_path":"/a/c"}`, []hook.Target{
			{Access: decide.Read, Path: "/a/b", Size: -1, Seen: true}, {Access: decide.Read, Path: "/a/c", Size: -1}}},
		{toolList, `{"path":"~/.ssh"}`, []hook.Target{{Access: decide.List, Path: "~/.ssh", Size: -1, Listing: true}}},
		{toolGlob, `{"pattern":"**/*.go"}`, []hook.Target{{Access: decide.List, Path: "/w/p", Size: -1, Recursive: true, Root: true, Filter: "**/*.go", Links: hook.LinksFollowed}}},
		{toolGlob, `{"pattern":"../../etc/*","path":"src"}`, []hook.Target{
			{Access: decide.List, Path: "/w/p/src", Size: -1, Recursive: true, Root: true, Filter: "../../etc/*", Links: hook.LinksFollowed},
			{Access: decide.List, Path: "/w/etc", Size: -1, Recursive: true, Filter: "*", Links: hook.LinksFollowed}}},
		{toolGlob, `{"pattern":"/etc/ssh/*_key"}`, []hook.Target{
			{Access: decide.List, Path: "/w/p", Size: -1, Recursive: true, Root: true, Filter: "/etc/ssh/*_key", Links: hook.LinksFollowed},
			{Access: decide.List, Path: "/etc/ssh", Size: -1, Recursive: true, Filter: "*_key", Links: hook.LinksFollowed}}},
		{toolGlob, `{"pattern":"+(a|b)","path":"~"}`, []hook.Target{{Access: decide.List, Path: "~", Size: -1, Recursive: true, Root: true, Links: hook.LinksFollowed}}},
		{toolGrep, `{"pattern":"AKIA","glob":"*.env","path":"../other"}`, []hook.Target{
			{Access: decide.Read, Path: "/w/p/../other", Size: -1, Recursive: true, Root: true, Filter: "*.env", FilterBase: true, Fnmatch: true, Links: hook.LinksFollowed}}},
		{toolShell, `{"command":"cat .env"}`, hook.ShellLine("cat .env", "/w/p")},
		{toolShell, `{"command":"cat .env","directory":"sub"}`, hook.ShellLine("cat .env", "/w/p/sub")},
		{toolMonitor, `{"command":"tail -f log","directory":"/w/p/logs"}`, hook.ShellLine("tail -f log", "/w/p/logs")},
		{toolLSP, `{"operation":"hover","filePath":"main.go","line":3}`, []hook.Target{{Access: decide.Read, Path: "/w/p/main.go", Size: -1}}},
	} {
		got, err := Targets(tt.tool, in(tt.input), root)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s = %+v, %v; want %+v", tt.tool, tt.input, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ tool, input string }{
		{toolRead, `{}`}, {toolRead, `{"file_path":""}`}, {toolRead, `{"file_path":7}`}, {toolRead, `{"file_path":"/a\u0000b"}`},
		{toolRead, `{"file_path":"/a","absolute_path":5}`},
		{toolWrite, `{"content":"x"}`}, {toolEdit, `{"file_path":null}`}, {toolList, `{}`},
		{toolGlob, `{"path":"."}`}, {toolGlob, `{"pattern":"*","path":["a"]}`},
		{toolGrep, `{"path":"."}`}, {toolGrep, `{"pattern":"x","glob":1}`},
		{toolShell, `{}`}, {toolShell, `{"command":"ls","directory":false}`}, {toolMonitor, `{"command":""}`},
		{toolLSP, `{"operation":"workspaceSymbol","query":"Key"}`},
	} {
		if got, err := Targets(tt.tool, in(tt.input), root); err == nil || errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("%s %s = %+v, %v; want an error (a deny)", tt.tool, tt.input, got, err)
		}
	}
	for _, tool := range []string{"web_fetch", "agent", "skill", "todo_write", "mcp__fs__read_file", "replace", "search_file_content"} {
		if _, err := targets(hook.Call{Tool: tool, Cwd: root}); !errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("%s: Targets = %v, want ErrNotJudged", tool, err)
		}
	}
	if _, err := targets(hook.Call{Tool: toolRead, Cwd: "rel", Input: in(`{"file_path":"/a"}`)}); err == nil {
		t.Errorf("a relative session directory was accepted")
	}
}

// TestGlobLiteral: a file whose name is the pattern is listed by that name
// (Qwen Code escapes the pattern then), so it is judged as itself.
func TestGlobLiteral(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "[id].env"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Targets(toolGlob, in(`{"pattern":"[id].env"}`), root)
	if err != nil || len(got) != 2 || got[1].Path != root+"/[id].env" {
		t.Errorf("Targets = %+v, %v; want the literal file too", got, err)
	}
}

// TestRecordedPrePost decodes a recorded session's PreToolUse and
// PostToolUse events: a PostToolUse of read_file, edit and write_file is
// what the read-before-edit ledger records (its first target seen), and
// monitor's command line is judged as a shell line in the session's
// directory.
func TestRecordedPrePost(t *testing.T) {
	b, err := os.ReadFile("testdata/qwen-code-0.15.10/pre-post.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []hook.EventKind
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, hook.MaxEvent)
	for sc.Scan() {
		ev, err := decode(sc.Bytes())
		if err != nil {
			t.Fatalf("decode(%s) = %v", sc.Text(), err)
		}
		kinds = append(kinds, ev.Kind)
		got, err := targets(ev.Call)
		if err != nil {
			t.Errorf("%s: Targets = %v", ev.Call.Tool, err)
			continue
		}
		switch ev.Call.Tool {
		case toolMonitor:
			if !reflect.DeepEqual(got, hook.ShellLine("echo hi", sub)) {
				t.Errorf("monitor: Targets = %+v", got)
			}
		default:
			if !got[0].Seen || got[0].Path[:len(sub)] != sub {
				t.Errorf("%s: Targets = %+v, want a seen path in %s", ev.Call.Tool, got, sub)
			}
		}
	}
	want := []hook.EventKind{hook.BeforeTool, hook.AfterTool, hook.BeforeTool, hook.AfterTool, hook.BeforeTool, hook.AfterTool, hook.BeforeTool, hook.AfterTool}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("event kinds %v, want %v", kinds, want)
	}
}
