package decide_test

import (
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestBlocklistNames: entries are compared with every component, case
// folded, and dot-files match like any other name ("*.pem" matches ".pem",
// as "**/*.pem" does in a deny list).
func TestBlocklistNames(t *testing.T) {
	tr := newTree(t)
	s := tr.spec()
	s.Blocklist = rules("*.pem", ".env", "id_rsa*", "?.key", "[ab].db")
	s.DenyRead = rules("**/*.crt")
	pol := tr.compile(s)
	tests := []struct {
		path string
		want want
	}{
		{"certs/server.pem", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("*.pem")},
		{"certs/.pem", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("*.pem")},
		{"certs/.crt", denied(decide.LayerBlocklist, decide.RuleDenyRead).at("**/*.crt")},
		{"a.PEM.bak", allow},
		{"x.pem/inner", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("*.pem")},
		{"ID_RSA.pub", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("id_rsa*")},
		{"k.key", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("?.key")},
		{"kk.key", allow},
		{"B.db", denied(decide.LayerBlocklist, decide.RuleBlocklist).at("[ab].db")},
		{"env", allow},
	}
	for _, tt := range tests {
		tt.want.check(t, "Check(read "+tt.path+")", decide.Check(pol, decide.Read, tt.path, tr.ws, -1))
	}
}
