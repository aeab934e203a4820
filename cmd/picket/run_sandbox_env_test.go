//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvFilesAgree guards against the embedded default leaving a
// project's .env readable (no fence.jsonc anywhere), and against the rule
// being the file tools' only: check, the hook and the shell agree on
// .env and .env.* at any depth, in the workspace and in home, on the
// committed templates that stay readable, on a virtualenv named .env
// whose files stay usable, and on a file a project's policy allows on
// purpose.
func TestEnvFilesAgree(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	files := map[string]string{ // path below base: what a read must do ("" denied)
		"ws/.env":                  "",
		"ws/deep/er/.env":          "",
		"ws/pkg/config/.env.local": "",
		"ws/.env.production":       "",
		"home/other/.env":          "",
		"home/other/.env.example":  "",
		"ws/.env.example":          "TEMPLATE-EXAMPLE",
		"ws/sub/.env.sample":       "TEMPLATE-SAMPLE",
		"ws/.env.dist":             "TEMPLATE-DIST",
		"ws/py/.env/bin/activate":  "VENV-ACTIVATE",
		"ws/main.go":               "MAIN-GO",
		"ws/allowed/.env.test":     "", // readable with the project's own rule only
	}
	for f, c := range files {
		if c == "" {
			c = "SECRET-" + strings.NewReplacer("/", "-", ".", "_").Replace(f)
		}
		write(t, filepath.Join(base, f), c)
	}
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main")
	bin := picketBin(t, base)
	for _, pc := range []struct {
		name, fence string
		readable    func(f string) bool
	}{
		{"embedded default", "", func(f string) bool { return files[f] != "" }},
		{"a project allows one file", `{"extends": "code", "picket": {"permissions": [{"pattern": "allowed/.env.test", "permission": "read"}]}}`,
			func(f string) bool { return files[f] != "" || f == "ws/allowed/.env.test" }},
	} {
		t.Run(pc.name, func(t *testing.T) {
			os.Remove(filepath.Join(ws, "fence.jsonc"))
			if pc.fence != "" {
				write(t, filepath.Join(ws, "fence.jsonc"), pc.fence)
			}
			env := sandboxEnv(home, ws, "CLAUDE_PROJECT_DIR="+ws, "CI=1")
			var script strings.Builder
			for f := range files {
				p := filepath.Join(base, f)
				want := pc.readable(f)
				var out, errb strings.Builder
				if code := run([]string{"check", "--cwd", ws, "read", p}, env, strings.NewReader(""), &out, &errb); (code == 0) != want {
					t.Errorf("check read %s = %d %s, want allowed %v", f, code, out.String(), want)
				}
				ev := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"t1"}`, ws, p)
				if a := runHookCLI(t, env, ev); (a.kind() == wantPass) != want {
					t.Errorf("hook Read %s = %v %q, want allowed %v", f, a.kind(), a.reason, want)
				}
				fmt.Fprintf(&script, "echo \"== %s\"; cat %q\n", f, p)
			}
			script.WriteString("ls -a; echo pwned >> deep/er/.env\n")
			_, stdout, stderr := pk(t, bin, ws, env, "run", "--", "sh", "-c", script.String())
			for f := range files {
				content, _ := os.ReadFile(filepath.Join(base, f))
				shown := strings.Contains(stdout, string(content))
				if want := pc.readable(f); shown != want {
					t.Errorf("picket run: cat %s showed it: %v, want %v\n%s%s", f, shown, want, stdout, stderr)
				}
			}
			if !strings.Contains(stdout, "\n.env\n") {
				t.Errorf("picket run: ls -a does not list .env (view: listed, not read):\n%s", stdout)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "deep", "er", ".env")); strings.Contains(string(b), "pwned") {
				t.Errorf("picket run appended to deep/er/.env")
			}
		})
	}
}
