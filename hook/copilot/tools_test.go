package copilot

import (
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

const cwd = "/home/user/project/sub"

func read(p string) hook.Target  { return hook.Target{Access: decide.Read, Path: p, Size: -1} }
func write(p string) hook.Target { return hook.Target{Access: decide.Write, Path: p, Size: -1} }
func list(p string) hook.Target  { return hook.Target{Access: decide.List, Path: p, Size: -1} }

// grep is a search root as grep and rg get it.
func grep(p, glob string) hook.Target {
	t := read(p)
	t.Recursive, t.Root, t.Filter, t.FilterBase, t.Links = true, true, glob, true, hook.LinksFollowed
	return t
}

// glob is a glob root; below is one picket derived from the pattern.
func glob(p, pat string) hook.Target {
	t := list(p)
	t.Recursive, t.Root, t.Filter, t.Links = true, true, pat, hook.LinksFollowed
	return t
}
func below(p, pat string) hook.Target {
	t := glob(p, pat)
	t.Root = false
	return t
}

// TestTargetsRecorded: each recorded call of a file tool, in both
// dialects, maps to the paths it touches, relative ones joined to the
// session's directory (the event's cwd), whatever directory picket hook
// runs in (here: the package's).
func TestTargetsRecorded(t *testing.T) {
	want := map[string][]hook.Target{
		"view notes.txt":                    {read(cwd + "/notes.txt")},
		"view /home/user/project/notes.txt": {read("/home/user/project/notes.txt")},
		"view .":                            {read(cwd + "/.")},
		"create new.txt":                    {write(cwd + "/new.txt")},
		"edit new.txt":                      {write(cwd + "/new.txt")},
		"grep *.txt":                        {grep(cwd+"/.", "*.txt")},
		"grep ":                             {grep(cwd+"/.", "")},
		"glob **/*.txt":                     {glob(cwd+"/.", "**/*.txt")},
		"glob *.txt":                        {glob(cwd+"/.", "*.txt")},
		"apply_patch added.txt notes.txt":   {write(cwd + "/added.txt"), write(cwd + "/notes.txt")},
		"rg ":                               {grep(cwd+"/.", "")},
		"grep  (pascal)":                    {grep(cwd+"/.", "")},
		"view added.txt":                    {read(cwd + "/added.txt")},
	}
	seen := map[string]bool{}
	for _, f := range []string{"chat-camel.ndjson", "chat-pascal.ndjson", "responses-camel.ndjson", "responses-pascal.ndjson"} {
		for _, b := range events(t, f) {
			ev, err := decode(b)
			if err != nil || ev.Kind != hook.BeforeTool {
				continue
			}
			got, err := targets(ev.Call)
			if !Agent.FileTool(ev.Call.Tool) {
				if !errors.Is(err, hook.ErrNotJudged) {
					t.Errorf("%s: %s is no file tool, Targets = %v", f, ev.Call.Tool, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: %v", f, b, err)
				continue
			}
			key := ev.Call.Tool + " " + describe(ev.Call)
			if ev.Call.Dialect == Pascal && strings.HasPrefix(f, "responses") && ev.Call.Tool == "grep" {
				key += " (pascal)"
			}
			w, ok := want[key]
			if !ok {
				t.Errorf("%s: no expectation for %q (%s)", f, key, b)
				continue
			}
			seen[key] = true
			if diff := cmp.Diff(w, got, cmpopts.IgnoreFields(hook.Target{}, "Edit", "Seen", "Size", "Listing")); diff != "" {
				t.Errorf("%s: %s: (-want +got)\n%s", f, key, diff)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no recorded call for %q", k)
		}
	}
}

// describe is what a table key says of a call: its path, glob or the
// files of its patch.
func describe(c hook.Call) string {
	switch c.Tool {
	case "apply_patch":
		ts, _ := targets(c)
		var names []string
		for _, t := range ts {
			names = append(names, filepath.Base(t.Path))
		}
		return strings.Join(names, " ")
	case "grep", "rg":
		return hook.StringField(c.Input, "glob")
	case "glob":
		return hook.StringField(c.Input, "pattern")
	}
	return hook.StringField(c.Input, "path")
}

func call(tool, in string) hook.Call {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		m = map[string]json.RawMessage{rawKey: json.RawMessage(in)}
	}
	return hook.Call{Agent: Name, Session: "s", Cwd: cwd, Tool: tool, Input: m}
}

// TestTargets: every file tool's input to its targets, the corners
// included; an input picket cannot read is an error (a deny), and a tool
// that is no file tool is not judged.
func TestTargets(t *testing.T) {
	sized := write(cwd + "/n.txt")
	sized.Size = 5
	patch := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, tt := range []struct {
		tool, in string
		want     []hook.Target
		err      string // a substring, or "not judged"
	}{
		{tool: "view", in: `{"path":"~/.ssh/id_rsa"}`, want: []hook.Target{read(cwd + "/~/.ssh/id_rsa")}}, // "~" is a name to Copilot CLI
		{tool: "view", in: `{"path":"../.env"}`, want: []hook.Target{read(cwd + "/../.env")}},
		{tool: "view", in: `{"path":" .env"}`, want: []hook.Target{read(cwd + "/ .env")}},
		{tool: "view", in: `{"path":"/etc/passwd","view_range":[1,3]}`, want: []hook.Target{read("/etc/passwd")}},
		{tool: "view", in: `{}`, err: "no path"},
		{tool: "view", in: `{"path":""}`, err: "empty"},
		{tool: "view", in: `{"path":["/etc/passwd"]}`, err: "not a string"},
		{tool: "view", in: `{"file_path":"/etc/passwd"}`, err: "no path"}, // Claude's name: not Copilot's
		{tool: "create", in: `{"path":"n.txt","file_text":"hello"}`, want: []hook.Target{sized}},
		{tool: "create", in: `{"file_text":"x"}`, err: "no path"},
		{tool: "edit", in: `{"path":"/p/a.go","old_str":"a","new_str":"b"}`, want: []hook.Target{write("/p/a.go")}},
		{tool: "str_replace_editor", in: `{"command":"view","path":"/etc/shadow"}`, want: []hook.Target{read("/etc/shadow")}},
		{tool: "str_replace_editor", in: `{"command":"str_replace","path":"a","old_str":"x","new_str":"y"}`, want: []hook.Target{write(cwd + "/a")}},
		{tool: "str_replace_editor", in: `{"command":"insert","path":"/p/a","insert_line":1,"new_str":"y"}`, want: []hook.Target{write("/p/a")}},
		{tool: "str_replace_editor", in: `{"command":"delete","path":"/p/a"}`, err: "not one picket knows"},
		{tool: "apply_patch", in: patch("*** Begin Patch\n*** Update File: a.go\n*** Move to: /etc/cron.d/x\n@@\n-a\n+b\n*** Delete File: ~/old\n*** End Patch\n"),
			want: []hook.Target{write(cwd + "/a.go"), write("/etc/cron.d/x"), write(cwd + "/~/old")}},
		{tool: "apply_patch", in: patch("*** Begin Patch\n*** Add File: .github/hooks/x.json\n+{}\n*** End Patch"), want: []hook.Target{write(cwd + "/.github/hooks/x.json")}},
		{tool: "apply_patch", in: patch("*** Begin Patch\n*** Update File: a\n*** End Patch"), err: "apply_patch"},
		{tool: "apply_patch", in: patch("not a patch"), err: "apply_patch"},
		{tool: "apply_patch", in: `{"path":"a"}`, err: "not the patch text"},
		{tool: "apply_patch", in: `{"patch":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch","path":"b"}`, err: "not the patch text"},
		{tool: "grep", in: `{"pattern":"x","paths":["src","/etc","~","src"]}`, want: []hook.Target{grep(cwd+"/src", ""), grep("/etc", ""), grep(cwd+"/~", "")}},
		{tool: "grep", in: `{"pattern":"x","paths":[]}`, want: []hook.Target{grep(cwd+"/.", "")}},
		{tool: "grep", in: `{"pattern":"x","paths":[""]}`, want: []hook.Target{grep(cwd+"/.", "")}},
		{tool: "rg", in: `{"pattern":"x","paths":["a.txt"],"glob":"*.py,*.txt","type":"py"}`, want: []hook.Target{grep(cwd+"/a.txt", "*.py,*.txt")}},
		{tool: "grep", in: `{"pattern":"x","paths":"/etc"}`, err: "not a list"},
		{tool: "grep", in: `{"pattern":"x","paths":[7]}`, err: "paths[0]"},
		{tool: "grep", in: `{"pattern":"x","glob":["*"]}`, err: "glob"},
		{tool: "glob", in: `{"pattern":"**/.env","paths":["/home/user"]}`, want: []hook.Target{glob("/home/user", "**/.env")}},
		{tool: "glob", in: `{"pattern":"../*"}`, want: []hook.Target{glob(cwd+"/.", "../*"), below(cwd+"/./..", "*")}},
		{tool: "glob", in: `{"pattern":"../../.ssh"}`, want: []hook.Target{glob(cwd+"/.", "../../.ssh"), below(cwd+"/./../..", ".ssh")}},
		{tool: "glob", in: `{"pattern":"/etc/host*"}`, want: []hook.Target{glob(cwd+"/.", "/etc/host*"), below("/etc", "host*")}},
		{tool: "glob", in: `{"pattern":"/etc/passwd"}`, want: []hook.Target{glob(cwd+"/.", "/etc/passwd"), below("/etc", "passwd")}},
		{tool: "glob", in: `{"paths":["."]}`, err: "no pattern"},
		{tool: "glob", in: `{"pattern":3}`, err: "pattern"},
		{tool: "bash", in: `{"command":"cat .env"}`, err: "not judged"}, // wrapped, not judged
		{tool: "powershell", in: `{"command":"gc .env"}`, err: "not judged"},
		{tool: "read_bash", in: `{"shellId":"1"}`, err: "not judged"},
		{tool: "write_bash", in: `{"shellId":"1","input":"cat .env\n"}`, err: "not judged"},
		{tool: "web_fetch", in: `{"url":"file:///etc/passwd"}`, err: "not judged"},
		{tool: "Read", in: `{"path":"/etc/passwd"}`, err: "not judged"}, // decode maps it to view first
	} {
		got, err := targets(call(tt.tool, tt.in))
		switch {
		case tt.err == "not judged":
			if !errors.Is(err, hook.ErrNotJudged) {
				t.Errorf("%s %s: %v, want not judged", tt.tool, tt.in, err)
			}
		case tt.err != "":
			if err == nil || errors.Is(err, hook.ErrNotJudged) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %s: %v, want an error with %q", tt.tool, tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tt.tool, tt.in, err)
		default:
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(hook.Target{}, "Edit", "Seen", "Listing")); diff != "" {
				t.Errorf("%s %s: (-want +got)\n%s", tt.tool, tt.in, diff)
			}
		}
	}
}

// TestViewDirectory: view of a directory lists its names (a listing,
// nothing seen); of a file it reads it (seen, for the read-before-edit
// ledger), as Copilot CLI's view does with what the path is.
func TestViewDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	c := call("view", `{"path":"."}`)
	c.Cwd = dir
	got, err := targets(c)
	if err != nil || len(got) != 1 || got[0].Access != decide.List || !got[0].Listing || got[0].Seen {
		t.Errorf("view of a directory = %+v, %v; want a listing", got, err)
	}
	c = call("view", `{"path":"f"}`)
	c.Cwd = dir
	got, err = targets(c)
	if err != nil || len(got) != 1 || got[0].Access != decide.Read || got[0].Listing || !got[0].Seen {
		t.Errorf("view of a file = %+v, %v; want a read, seen", got, err)
	}
	for _, tt := range []struct{ tool, in string }{{"edit", `{"path":"f"}`}, {"create", `{"path":"f","file_text":""}`}} {
		got, _ := targets(call(tt.tool, tt.in))
		if !got[0].Edit || !got[0].Seen {
			t.Errorf("%s = %+v, want a write in place, seen", tt.tool, got[0])
		}
	}
}

// TestRewrite: a bash call runs under picket run in the session's
// directory, bash -c with the command exactly, every other member kept;
// one picket cannot read, or a PowerShell one, is denied; every other
// call is left alone.
func TestRewrite(t *testing.T) {
	run := hook.ShellRun{Exe: "/opt/picket/bin/picket", Session: "s", Agent: Name}
	c := call("bash", `{"command":"cat '.env' && echo \"$HOME\"","description":"read","mode":"async","shellId":"w1","initial_wait":60}`)
	in, err := rewrite(c, run)
	if err != nil {
		t.Fatal(err)
	}
	want := `/opt/picket/bin/picket run --cwd ` + cwd + ` --session s --agent copilot -- bash -c 'cat '\''.env'\'' && echo "$HOME"'`
	if got := hook.StringField(in, "command"); got != want {
		t.Errorf("command = %s\nwant      %s", got, want)
	}
	for _, k := range []string{"description", "mode", "shellId", "initial_wait"} {
		if string(in[k]) != string(c.Input[k]) {
			t.Errorf("member %s = %s, want it kept as %s", k, in[k], c.Input[k])
		}
	}
	for _, tt := range []struct{ tool, in, err string }{
		{"bash", `{"description":"x"}`, "no command"},
		{"bash", `{"command":7}`, "not a string"},
		{"bash", `{"command":"  "}`, "empty"},
		{"bash", `{"command":"a\u0000b"}`, "NUL"},
		{"powershell", `{"command":"ls"}`, "PowerShell"},
	} {
		if in, err := rewrite(call(tt.tool, tt.in), run); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s %s = %s, %v; want an error with %q", tt.tool, tt.in, in, err, tt.err)
		}
	}
	c.Cwd = "rel"
	if _, err := rewrite(c, run); err == nil {
		t.Errorf("a bash call in a relative directory was wrapped")
	}
	if _, err := rewrite(call("bash", `{"command":"ls"}`), hook.ShellRun{}); err == nil {
		t.Errorf("a bash call was wrapped with no picket to run it under")
	}
	for _, tool := range []string{"view", "read_bash", "write_bash", "stop_bash", "list_bash", "apply_patch"} {
		if in, err := rewrite(call(tool, `{"shellId":"1","input":"x","path":"a"}`), run); in != nil || err != nil {
			t.Errorf("%s = %s, %v; want it left alone", tool, in, err)
		}
	}
}
