package lint

import (
	"fmt"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/schema"
)

// checkPromptTimeout warns when picket.prompt.timeoutSeconds is longer than
// a prompt may wait ([decide.PromptTimeoutCap]): the hook cuts it without a
// word, so the person sees the prompt give up sooner than the policy says.
// The warning is placed at the value in force, the nearest file of the
// chain that sets it.
func checkPromptTimeout(t *target) []Warning {
	n := t.loaded.Settings.Prompt.TimeoutSeconds
	if n <= decide.PromptTimeoutCap {
		return nil
	}
	chain := t.loaded.Chain
	for i := len(chain) - 1; i >= 0; i-- {
		d := t.doc(chain[i])
		if d == nil || lookup(d.v, []string{"picket", "prompt", "timeoutSeconds"}) == nil {
			continue
		}
		line, col := schema.Position(d.src, "/picket/prompt/timeoutSeconds")
		return []Warning{{File: chain[i], Line: line, Col: col, Code: CodePromptTimeout, Msg: promptTimeoutMsg(n)}}
	}
	return []Warning{{File: chain[len(chain)-1], Code: CodePromptTimeout, Msg: promptTimeoutMsg(n)}}
}

func promptTimeoutMsg(n int) string {
	return fmt.Sprintf("picket.prompt.timeoutSeconds is %d, but a prompt waits at most %d s: that is 30 s less than the hook timeout picket install writes, kept for the prompt lock and the answer, since an agent that kills a hook still waiting lets the call through; set %d or less",
		n, decide.PromptTimeoutCap, decide.PromptTimeoutCap)
}
