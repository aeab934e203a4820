package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkBashFence asserts what both agents' bash tests script as tool uses
// 0 to 3: `cat ~/.ssh/id_rsa` fails without the key reaching the model,
// `touch ../outside` fails and creates nothing, `ls` lists the project and
// `echo hi > inside.txt` writes inside it. It returns the lookup of the
// other tool results, each logged as it is read.
func checkBashFence(t *testing.T, results map[string]toolResult, project, outside, key string) func(k int, what string) toolResult {
	t.Helper()
	result := func(k int, what string) toolResult {
		t.Helper()
		r, ok := results[ToolUseID(k)]
		if !ok {
			t.Errorf("%s: the model never received a tool_result", what)
		}
		t.Logf("%s: is_error %v, %q", what, r.IsError, r.text())
		return r
	}
	if r := result(0, "cat ~/.ssh/id_rsa"); !r.IsError || strings.Contains(r.text(), key) {
		t.Errorf("cat ~/.ssh/id_rsa: tool_result = %q (is_error %v), want a failure without the key", r.text(), r.IsError)
	}
	if r := result(1, "touch ../outside"); !r.IsError {
		t.Errorf("touch ../outside: tool_result = %q, want a failure", r.text())
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("touch ../outside created %s", outside)
	}
	if r := result(2, "ls"); r.IsError || !strings.Contains(r.text(), "README.md") {
		t.Errorf("ls: tool_result = %q (is_error %v), want the listing", r.text(), r.IsError)
	}
	if r := result(3, "echo hi > inside.txt"); r.IsError {
		t.Errorf("echo hi > inside.txt: tool_result = %q, want success", r.text())
	}
	if got, _ := os.ReadFile(filepath.Join(project, "inside.txt")); string(got) != "hi\n" {
		t.Errorf("inside.txt holds %q, want the shell write", got)
	}
	return result
}
