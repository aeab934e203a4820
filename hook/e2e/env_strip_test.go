package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeBashStripsCredentials guards against Claude Code's Bash
// commands inheriting the agent's credentials (the shell prefix runs them
// with Claude Code's environment): `env` in the Bash tool shows the
// ordinary variables and none of the credential ones, whose values never
// reach the model, under the code template; a project whose policy lets
// GITHUB_TOKEN through on purpose (picket.sandbox.keepEnv) gets that one
// and no other.
func TestClaudeCodeBashStripsCredentials(t *testing.T) {
	claude := claudeBinary(t)
	requireBwrap(t)
	secrets := map[string]string{
		"GITHUB_TOKEN":          "ghp_e2e" + randomHex(t),
		"AWS_SECRET_ACCESS_KEY": "aws-e2e-" + randomHex(t),
		"OPENAI_API_KEY":        "sk-e2e-" + randomHex(t),
	}
	ordinary := "ordinary-e2e-" + randomHex(t)
	extra := []string{"PICKET_E2E_ORDINARY=" + ordinary}
	for k, v := range secrets {
		extra = append(extra, k+"="+v)
	}
	w := newWorld(t, extra...)
	w.installClaude(t)
	for _, tc := range []struct{ name, fence, keep string }{
		{"code", projectFence, ""},
		{"keepEnv", `{"extends": "code", "picket": {"sandbox": {"keepEnv": ["GITHUB_TOKEN"]}}}`, "GITHUB_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, filepath.Join(w.project, "fence.jsonc"), tc.fence)
			model, err := StartModel([]Turn{
				0: ToolUse("Bash", map[string]any{"command": "env"}),
				1: Text("done"),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			runClaudeWith(t, claude, w.project, w.env, model, "Read,Write,Edit,NotebookEdit,Grep,Glob,Bash")
			reqs := model.Requests()
			r, ok := toolResults(t, reqs)[ToolUseID(0)]
			if !ok || r.IsError {
				t.Fatalf("env: tool_result %q (is_error %v), want the environment", r.text(), r.IsError)
			}
			if !strings.Contains(r.text(), "PICKET_E2E_ORDINARY="+ordinary) {
				t.Errorf("env lost an ordinary variable:\n%s", r.text())
			}
			if _, ok := secrets[tc.keep]; ok && !strings.Contains(r.text(), tc.keep+"="+secrets[tc.keep]) {
				t.Errorf("env in Claude Code's Bash tool lacks %s, which keepEnv lets through:\n%s", tc.keep, r.text())
			}
			for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
				if name != tc.keep && strings.Contains(r.text(), name+"=") {
					t.Errorf("env in Claude Code's Bash tool shows %s=…", name)
				}
			}
			for i, req := range reqs {
				for k, v := range secrets {
					if k != tc.keep && bytes.Contains(req.Body, []byte(v)) {
						t.Errorf("request %d carries %s's value to the model", i, k)
					}
				}
			}
		})
	}
}
