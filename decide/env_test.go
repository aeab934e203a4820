package decide_test

import (
	"slices"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestEnvPatternMatch: "*" spans any run of characters, "?" one, the rest
// is literal, and case does not matter.
func TestEnvPatternMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*_TOKEN", "GITHUB_TOKEN", true},
		{"*_TOKEN", "github_token", true},
		{"*_TOKEN", "GITHUB_TOKEN_X", false},
		{"*_TOKEN", "_TOKEN", true},
		{"*_TOKEN", "TOKEN", false},
		{"*SECRET*", "AWS_SECRET_ACCESS_KEY", true},
		{"*_AUTHTOKEN", "npm_config_//registry.npmjs.org/:_authToken", true},
		{"A?C", "abc", true},
		{"A?C", "ac", false},
		{"*", "", true},
		{"", "", true},
		{"", "X", false},
		{"**x", "ax", true},
		{"a*b*c", "a_b_b_c", true},
		{"a*b*c", "a_b_b_", false},
		{"[A]", "A", false}, // no classes: "[" is a character
		{"[A]", "[a]", true},
	} {
		if got := decide.EnvPatternMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("EnvPatternMatch(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestCodeTemplateStripsCredentials: the code template's stripEnv takes
// the credential variables of the tools agents run, and leaves what a
// shell and the agent's commands need; agent-safe strips the same.
func TestCodeTemplateStripsCredentials(t *testing.T) {
	tr := newTree(t)
	tr.writeFile("ws/fence.jsonc", `{"extends": "code"}`)
	set := tr.load(tr.env("ws")).Settings.Sandbox
	stripped := []string{
		"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
		"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY",
		"GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "AZURE_STORAGE_KEY",
		"NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config__authToken", "npm_config_//registry.npmjs.org/:_authToken",
		"TWINE_PASSWORD", "PYPI_TOKEN", "CARGO_REGISTRY_TOKEN", "DOCKER_PASSWORD", "DOCKER_AUTH_CONFIG",
		"HF_TOKEN", "VAULT_TOKEN", "SLACK_WEBHOOK_URL", "SENTRY_DSN", "DATABASE_URL", "PGPASSWORD", "MYSQL_PWD",
		"SSHPASS", "GITHUB_PAT", "TF_TOKEN_app_terraform_io", "STRIPE_SECRET_KEY", "SECRET_KEY_BASE",
		"DB_PASSWORD", "TOKEN", "github_token", "Openai_Api_Key", "GPG_PASSPHRASE", "JWT_PRIVATE_KEY",
		"BW_SESSION", "OP_SESSION_my", "RAILS_MASTER_KEY", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	}
	kept := []string{
		"PATH", "HOME", "TERM", "USER", "SHELL", "LANG", "LC_ALL", "PWD", "TMPDIR", "EDITOR", "PAGER",
		"SSH_AUTH_SOCK", "SSH_AGENT_PID", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
		"GOPATH", "GOFLAGS", "GOPROXY", "NODE_OPTIONS", "VIRTUAL_ENV", "JAVA_HOME", "CARGO_HOME", "KUBECONFIG",
		"AWS_PROFILE", "AWS_REGION", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "KRB5CCNAME", "GPG_TTY",
		"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PROJECT_DIR", "COLORTERM", "HOSTNAME", "SHLVL", "_",
		"http_proxy", "NO_PROXY", "CI", "GITHUB_ACTIONS", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
	}
	for _, n := range stripped {
		if !set.Strips(n) {
			t.Errorf("code template: Strips(%q) = false, want it stripped", n)
		}
	}
	for _, n := range kept {
		if set.Strips(n) {
			t.Errorf("code template: Strips(%q) = true, want it kept", n)
		}
	}
	tr.writeFile("ws/fence.jsonc", `{"extends": "agent-safe"}`)
	if got := tr.load(tr.env("ws")).Settings.Sandbox.StripEnv; !slices.Equal(got, set.StripEnv) {
		t.Errorf("agent-safe strips %q, want the code template's %q", got, set.StripEnv)
	}
}

// TestKeepEnv: a policy lets a named variable through, by its exact name;
// lists merge along the chain, so a child cannot take back a base's keep.
func TestKeepEnv(t *testing.T) {
	tr := newTree(t)
	tr.writeFile("ws/base.jsonc", `{"extends": "code", "picket": {"sandbox": {"keepEnv": ["NPM_TOKEN"]}}}`)
	tr.writeFile("ws/fence.jsonc", `{"extends": "./base.jsonc", "picket": {"sandbox": {"keepEnv": ["GITHUB_TOKEN"], "stripEnv": ["MY_VAR"]}}}`)
	set := tr.load(tr.env("ws")).Settings.Sandbox
	kept, stripped := set.Environ([]string{"GITHUB_TOKEN=a", "github_token=b", "NPM_TOKEN=c", "GH_TOKEN=d", "MY_VAR=e", "PATH=/bin", "EMPTY="})
	if want := []string{"GITHUB_TOKEN=a", "NPM_TOKEN=c", "PATH=/bin", "EMPTY="}; !slices.Equal(kept, want) {
		t.Errorf("Environ kept %q, want %q", kept, want)
	}
	if want := []string{"github_token", "GH_TOKEN", "MY_VAR"}; !slices.Equal(stripped, want) {
		t.Errorf("Environ stripped %q, want %q", stripped, want)
	}
}
