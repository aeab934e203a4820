package gemini

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestWrapShell: the rewritten command, run by bash as Gemini CLI runs
// it, starts picket run in the directory Gemini CLI would have used, with
// the model's command intact as bash -c's argument and the workspace in
// GEMINI_PROJECT_DIR; every other input member is kept.
func TestWrapShell(t *testing.T) {
	base := t.TempDir()
	stub := filepath.Join(base, "pick et's")
	os.WriteFile(stub, []byte("#!/bin/sh\nprintf 'root=%s\\n' \"$GEMINI_PROJECT_DIR\"\nfor a; do printf '[%s]\\n' \"$a\"; done\n"), 0o755)
	ws := filepath.Join(base, "w s")
	run := hook.ShellRun{Exe: stub, Session: "s-1", Agent: Name}
	for _, tt := range []struct {
		in, dir string
	}{
		{`{"command":"cat .env","description":"show it"}`, ws},
		{`{"command":"echo 'a b' \"$HOME\" \\\\ ; ls\n","dir_path":"sub/../x","is_background":true}`, ws + "/x"},
		{`{"command":"true","dir_path":"/etc"}`, "/etc"},
		{`{"command":"echo hi","dir_path":""}`, ws},
	} {
		in := input(t, tt.in)
		out, err := rewrite(hook.Call{Agent: Name, Session: "s-1", Cwd: ws, Tool: toolShell, Input: in}, run)
		if err != nil {
			t.Fatalf("rewrite %s: %v", tt.in, err)
		}
		var cmd, orig string
		json.Unmarshal(out["command"], &cmd)
		json.Unmarshal(in["command"], &orig)
		for k, v := range in {
			if k != "command" && string(out[k]) != string(v) {
				t.Errorf("rewrite %s: %s = %s, want it kept", tt.in, k, out[k])
			}
		}
		got, err := exec.Command("bash", "-c", cmd).Output()
		if err != nil {
			t.Fatalf("bash -c %s: %v", cmd, err)
		}
		want := "root=" + ws + "\n[run]\n[--cwd]\n[" + tt.dir + "]\n[--session]\n[s-1]\n[--agent]\n[gemini]\n[--]\n[bash]\n[-c]\n[" + orig + "]\n"
		if string(got) != want {
			t.Errorf("rewrite %s runs:\n%s\nwant:\n%s", tt.in, got, want)
		}
		if substitution(cmd) {
			t.Errorf("the rewritten command %s reads as a command substitution: Gemini CLI would refuse it", cmd)
		}
	}
	for _, in := range []string{`{}`, `{"command":7}`, `{"command":"echo $(id)"}`, "{\"command\":\"a\\u0000b\"}", `{"command":"ls","dir_path":3}`} {
		if _, err := rewrite(hook.Call{Cwd: ws, Tool: toolShell, Input: input(t, in)}, run); err == nil {
			t.Errorf("rewrite %s: no error, want the call denied", in)
		}
	}
	if _, err := rewrite(hook.Call{Cwd: ws, Tool: toolShell, Input: input(t, `{"command":"ls"}`)}, hook.ShellRun{}); err == nil {
		t.Errorf("rewrite with no picket to run: no error")
	}
}

// TestRewriteSearches: a glob or grep_search without dir_path is held to
// the workspace root; one with it, and other tools, are left alone.
func TestRewriteSearches(t *testing.T) {
	ws := t.TempDir()
	for _, tt := range []struct {
		tool, in, want string
	}{
		{toolGrep, `{"pattern":"x"}`, `{"dir_path":".","pattern":"x"}`},
		{toolGrepOld, `{"pattern":"x","dir_path":""}`, `{"dir_path":".","pattern":"x"}`},
		{toolGlob, `{"pattern":"*","dir_path":null}`, `{"dir_path":".","pattern":"*"}`},
		{toolGlob, `{"pattern":"*","dir_path":"src"}`, ``},
		{toolRead, `{"file_path":"x"}`, ``},
		{"web_fetch", `{"prompt":"x"}`, ``},
	} {
		out, err := rewrite(hook.Call{Cwd: ws, Tool: tt.tool, Input: input(t, tt.in)}, hook.ShellRun{})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.in, err)
		}
		got := ""
		if out != nil {
			b, _ := json.Marshal(out)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("%s %s: rewritten to %s, want %s", tt.tool, tt.in, got, tt.want)
		}
	}
}

// TestPinEdit: a replace whose relative path names no file is held to the
// path picket judged, spelled so that Gemini CLI's decoding gives it back.
func TestPinEdit(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(ws, "here.txt"), []byte("x"), 0o644)
	for _, tt := range []struct{ in, want string }{
		{`{"file_path":"here.txt","old_string":"x","new_string":"y"}`, ""},
		{`{"file_path":"/abs/x.txt","old_string":"x","new_string":"y"}`, ""},
		{`{"file_path":"gone.txt","old_string":"","new_string":"y"}`, ws + "/gone.txt"},
		{`{"file_path":"100%25.txt","old_string":"","new_string":"y"}`, ws + "/100%25.txt"}, // Gemini CLI decodes it to 100%.txt, as picket judged
	} {
		out, err := rewrite(hook.Call{Cwd: ws, Tool: toolEdit, Input: input(t, tt.in)}, hook.ShellRun{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		json.Unmarshal(out["file_path"], &got)
		if got != tt.want {
			t.Errorf("replace %s: file_path pinned to %q, want %q", tt.in, got, tt.want)
		}
		if d, ok := decodeURIComponent(got); got != "" && (!ok || !strings.HasSuffix(d, ".txt") || strings.Contains(d, "%25")) {
			t.Errorf("pinned %q decodes to %q", got, d)
		}
	}
}

func TestSubstitution(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"echo $(id)", true},
		{"echo `id`", true},
		{"diff <(ls) x", true},
		{"tee >(cat)", true},
		{`echo "$(id)"`, true},
		{`echo "<(x)"`, false},
		{`echo '$(id)'`, false},
		{`echo \$(id)`, false},
		{`echo "\$(id)"`, false},
		{`bash -c 'echo $(id)'`, true},
		{`/bin/sh -c "echo \$(id)"`, true},
		{`BASH -C 'x'`, false},
		{"ls -la", false},
		{`echo "it's"`, false},
	} {
		if got := substitution(tt.cmd); got != tt.want {
			t.Errorf("substitution(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}
