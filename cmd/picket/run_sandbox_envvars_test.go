//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunStripsCredentialEnv guards against the shell inheriting the
// agent's credentials: `picket run -- env` printed AWS_SECRET_ACCESS_KEY,
// GITHUB_TOKEN, ANTHROPIC_API_KEY and OPENAI_API_KEY while the code
// template denied reading ~/.aws. Under the code template they are gone
// (in any case, and with --unsandboxed too), ordinary variables and the
// agent's socket path stay, and picket.sandbox.keepEnv lets a named one
// through.
func TestRunStripsCredentialEnv(t *testing.T) {
	requireBwrap(t)
	base := sandboxScratch(t)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main")
	bin := picketBin(t, base)
	secrets := map[string]string{
		"AWS_SECRET_ACCESS_KEY": "aws-s3cr3t", "GITHUB_TOKEN": "ghp_s3cr3t", "ANTHROPIC_API_KEY": "sk-ant-s3cr3t",
		"OPENAI_API_KEY": "sk-s3cr3t", "github_token": "lower-s3cr3t", "DATABASE_URL": "postgres://u:pw@h/db",
	}
	ordinary := map[string]string{"FOO": "bar", "TERM": "xterm", "SSH_AUTH_SOCK": "/run/user/1/ssh.sock", "LANG": "C"}
	var extra []string
	for k, v := range secrets {
		extra = append(extra, k+"="+v)
	}
	for k, v := range ordinary {
		extra = append(extra, k+"="+v)
	}
	env := sandboxEnv(home, ws, extra...)
	for _, tc := range []struct {
		name, fence string
		args        []string
		keep        string
	}{
		{"code", `{"extends": "code"}`, nil, ""},
		{"unsandboxed", `{"extends": "code"}`, []string{"--unsandboxed"}, ""},
		{"keepEnv", `{"extends": "code", "picket": {"sandbox": {"keepEnv": ["GITHUB_TOKEN"]}}}`, nil, "GITHUB_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, filepath.Join(ws, "fence.jsonc"), tc.fence)
			code, stdout, stderr := pk(t, bin, ws, env, append(append([]string{"run"}, tc.args...), "--", "env")...)
			if code != 0 {
				t.Fatalf("picket run -- env: exit %d: %s", code, stderr)
			}
			for k, v := range secrets {
				if got, want := strings.Contains(stdout, k+"="+v), k == tc.keep; got != want {
					t.Errorf("env shows %s: %v, want %v", k, got, want)
				}
			}
			for k, v := range ordinary {
				if !strings.Contains(stdout, k+"="+v+"\n") {
					t.Errorf("env lost %s=%s:\n%s", k, v, stdout)
				}
			}
		})
	}
	code, stdout, _ := pk(t, bin, ws, env, "show")
	if want := "shell sandbox: stripped from commands here: ANTHROPIC_API_KEY, AWS_SECRET_ACCESS_KEY, DATABASE_URL, OPENAI_API_KEY, github_token (picket.sandbox.stripEnv: "; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("picket show does not say %q:\n%s", want, stdout)
	}
	if want := "shell sandbox: let through on purpose: GITHUB_TOKEN (picket.sandbox.keepEnv)"; !strings.Contains(stdout, want) {
		t.Errorf("picket show does not say %q", want)
	}
}
