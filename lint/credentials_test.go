package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// runOthers is Run without the credentials-open warning, for the tests of
// the other checks, whose bare policies deny no credentials.
func runOthers(l *decide.Loaded) []Warning {
	return slices.DeleteFunc(Run(l), func(w Warning) bool { return w.Code == CodeCredentialsOpen })
}

func TestCredentialsOpen(t *testing.T) {
	tests := []struct {
		name, src string
		user      string // the user's fence config, when set
		want      []string
	}{
		{name: "empty project file", src: `{}`, want: []string{"~/.ssh/id_rsa", "~/.aws/credentials"}},
		{name: "project file with a blocklist only", src: `{"picket":{"blocklist":[".env"]}}`, want: []string{"~/.ssh/id_rsa"}},
		{name: "project file ignores the user config", user: `{"extends":"code-strict"}`, src: `{}`, want: []string{"~/.ssh/id_rsa"}},
		{name: "extends code", src: `{"extends":"code"}`},
		{name: "extends @base with a user config", user: `{"extends":"code"}`, src: `{"extends":"@base"}`},
		{name: "extends @base without one", src: `{"extends":"@base"}`},
		{name: "read-only template", src: `{"extends":"read-only"}`},
		{name: "agent-safe template", src: `{"extends":"agent-safe"}`},
		{name: "own denies", src: `{"filesystem":{"denyRead":["~/.ssh","~/.aws","~/.config/gcloud","~/.kube","~/.netrc","~/.git-credentials","~/.gnupg","~/.claude/.credentials.json","~/.pi/agent/auth.json","~/.codex/auth.json","~/.local/share/opencode/auth.json"]}}`},
		{name: "own denies without the agents' tokens", src: `{"filesystem":{"denyRead":["~/.ssh","~/.aws","~/.config/gcloud","~/.kube","~/.netrc","~/.git-credentials","~/.gnupg"]}}`, want: []string{"~/.claude/.credentials.json"}},
		{name: "default deny read", src: `{"filesystem":{"defaultDenyRead":true,"allowRead":["."]}}`},
		{name: "one left open", src: `{"filesystem":{"denyRead":["~/.ssh","~/.aws","~/.config/gcloud","~/.kube","~/.git-credentials","~/.gnupg","~/.claude","~/.pi","~/.codex","~/.local/share/opencode"]}}`, want: []string{"~/.netrc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.src)
			env := decide.Env{}
			if tt.user != "" {
				cfg := filepath.Join(f.home, ".config")
				if err := os.MkdirAll(filepath.Join(cfg, "fence"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cfg, "fence", "fence.jsonc"), []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
				env.ConfigHome = cfg
			}
			var got []Warning
			for _, w := range Run(f.load(t, env)) {
				if w.Code == CodeCredentialsOpen {
					got = append(got, w)
				}
			}
			if len(tt.want) == 0 {
				if len(got) > 0 {
					t.Fatalf("credentials-open warning %q, want none", got[0].Msg)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d credentials-open warnings, want 1\n%s", len(got), dump(got))
			}
			if got[0].File != f.file || got[0].Line != 0 {
				t.Errorf("warning placed at %s:%d, want the project file as a whole (%s)", got[0].File, got[0].Line, f.file)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0].Msg, w) {
					t.Errorf("warning %q does not name %s", got[0].Msg, w)
				}
			}
		})
	}
}

// TestEnvOpened: a project's permissions rule that grants reading opens
// the .env files below it that the code template hides (its rules sit
// below every rule of the project); a rule that names a .env file, one
// with a view rule above it for them, and one on a base without .env rules
// are not warned about.
func TestEnvOpened(t *testing.T) {
	for _, tc := range []struct {
		name, perms, base string
		want              []string
	}{
		{"broad read", `{"pattern": "vendor/**", "permission": "read"}`, "code", []string{"vendor/**"}},
		{"broad write anywhere", `{"pattern": "**/gen/**", "permission": "write"}`, "code", []string{"**/gen/**"}},
		{"names the file", `{"pattern": ".env.test", "permission": "read"}`, "code", nil},
		{"view above it", `{"pattern": "vendor/**", "permission": "read"}, {"pattern": "vendor/**/.env*", "permission": "view", "priority": 1}`, "code", nil},
		{"restricting", `{"pattern": "vendor/**", "permission": "view"}`, "code", nil},
		{"agent-safe hides them above", `{"pattern": "src/**", "permission": "write", "priority": 10}`, "agent-safe", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, `{"extends": "`+tc.base+`", "picket": {"permissions": [`+tc.perms+`]}}`)
			var got []string
			for _, w := range Run(f.load(t, decide.Env{Home: outsideHome})) {
				if w.Code == CodeEnvOpened {
					got = append(got, strings.Split(w.Msg, `"`)[1])
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("env-opened warnings for %q = %q, want %q", tc.perms, got, tc.want)
			}
		})
	}
}

// TestCredentialEnv: a keepEnv entry that stripEnv takes for a credential
// is a warning at the entry; one it does not strip, or a stripEnv alone,
// is not.
func TestCredentialEnv(t *testing.T) {
	f := newFixture(t, `{
  "extends": "code",
  "picket": {"sandbox": {
    "keepEnv": ["GITHUB_TOKEN", "MY_VAR"]
  }}
}`)
	var got []string
	for _, w := range Run(f.load(t, decide.Env{Home: outsideHome})) {
		got = append(got, w.String())
	}
	want := []string{f.file + `:4:17: warning: picket.sandbox.keepEnv lets GITHUB_TOKEN through to every sandboxed command, though stripEnv takes it for a credential ("*_TOKEN"); keep it only if the agent's commands need it [credential-env]`}
	if !slices.Equal(got, want) {
		t.Errorf("Run() = %q, want %q", got, want)
	}
}
