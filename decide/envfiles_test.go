package decide_test

import (
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestEnvFilesDefault: with no fence.jsonc anywhere the embedded default
// denies reading .env and .env.* at any depth, but the committed templates
// in the workspace; the deny is one a person may grant, and a project's
// own policy can let one file through with a permissions rule, which
// outranks the default's, while its own restrictions also outrank the
// default's exceptions.
func TestEnvFilesDefault(t *testing.T) {
	perms := denied(decide.LayerBlocklist, decide.RulePermissions)
	for _, tc := range []struct {
		name, fence string // "" is no policy file: the embedded default
		probes      map[string]want
	}{
		{"embedded default", "", map[string]want{
			".env": perms, "deep/er/.env": perms, ".env.local": perms, "pkg/config/.env.production": perms,
			".env.example": allow, "pkg/.env.sample": allow, ".env.template": allow, ".env.dist": allow,
			"src/main.go": allow, "env.go": allow, ".envrc": allow,
		}},
		{"a project allows one file", `{"extends": "code", "picket": {"permissions": [{"pattern": ".env.test", "permission": "read"}]}}`, map[string]want{
			".env.test": allow, ".env": perms, ".env.local": perms, "sub/.env.test": perms, ".env.example": allow,
		}},
		{"a project allows them at any depth", `{"extends": "code", "picket": {"permissions": [{"pattern": "**/.env.test", "permission": "read"}]}}`, map[string]want{
			".env.test": allow, "sub/.env.test": allow, ".env": perms,
		}},
		{"a project's restriction outranks the templates", `{"extends": "code", "picket": {"permissions": [{"pattern": "secrets/**", "permission": "none"}]}}`, map[string]want{
			"secrets/.env.example": perms, ".env.example": allow, ".env": perms,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.mkdir("ws/.git")
			if tc.fence != "" {
				tr.writeFile("ws/fence.jsonc", tc.fence)
			}
			l := tr.load(tr.env("ws"))
			if want := "builtin:code"; l.Chain[0] != want {
				t.Fatalf("Chain = %q, want it to start with %s", l.Chain, want)
			}
			for p, w := range tc.probes {
				d := decide.Check(l.Policy, decide.Read, tr.path("ws/"+p), tr.ws, -1)
				w.check(t, "Check(read "+p+")", d)
				if !d.Allow && !d.Grantable() {
					t.Errorf("Check(read %s) = %+v, want a deny a person can grant", p, d)
				}
			}
		})
	}
}
