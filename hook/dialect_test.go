package hook

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/picketdev/picket/decide"
)

// TestRewriteKeepsDialect: a rewrite carries the dialect of the call it
// rewrites, for an agent that answers in the dialect it was asked in.
func TestRewriteKeepsDialect(t *testing.T) {
	p := &Pipeline{Agent: &rewriteAgent, Audit: &memAudit{}, Exe: "/opt/picket",
		Policies: func(string) (*decide.Loaded, error) { return nil, errors.New("unused") }}
	in, _ := json.Marshal("ls")
	a := p.BeforeTool(Call{Agent: "rw", Cwd: "/w", Tool: "shell", Dialect: "pascal", Input: map[string]json.RawMessage{"cmd": in}})
	if a.Input == nil || a.Dialect != "pascal" {
		t.Errorf("rewrite = %+v, want the input rewritten in the call's dialect", a)
	}
}
