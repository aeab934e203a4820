package agents

import (
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestHost: the agent whose hook variable is set runs the hook, whatever
// agent's settings named the command; with none set, no agent does.
func TestHost(t *testing.T) {
	host := &hook.Agent{Name: "host", Hook: &hook.CommandHook{HostEnv: "HOST_PROJECT_DIR"}}
	defer func(all []*hook.Agent) { All = all }(All)
	All = append(append([]*hook.Agent(nil), All...), host)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if a := Host(getenv); a != nil {
		t.Errorf("Host with no variable set = %s, want none", a.Name)
	}
	env["HOST_PROJECT_DIR"] = "/p"
	if a := Host(getenv); a != host {
		t.Errorf("Host = %v, want the agent whose variable is set", a)
	}
}
