package hook_test

import (
	"fmt"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
)

func init() {
	hook.Targets = func(c hook.Call) ([]hook.Target, error) {
		a := agents.Lookup(c.Agent)
		if a == nil {
			return nil, fmt.Errorf("no agent %q", c.Agent)
		}
		return a.Targets(c)
	}
}
