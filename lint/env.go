package lint

import (
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
)

// checkKeepEnv warns at each picket.sandbox.keepEnv entry that names a
// variable the policy's stripEnv takes for a credential: it reaches every
// sandboxed command, with whatever the agent's environment holds in it.
func checkKeepEnv(t *target) []Warning {
	set := t.loaded.Settings.Sandbox
	var out []Warning
	for _, name := range set.KeepEnv {
		strip := slices.IndexFunc(set.StripEnv, func(p string) bool { return decide.EnvPatternMatch(p, name) })
		if strip < 0 {
			continue
		}
		src := t.listSource("picket.sandbox.keepEnv", name)
		out = append(out, t.warn(entry{rule: decide.Rule{Pattern: name, Source: src}, field: "picket.sandbox.keepEnv"}, CodeCredentialEnv,
			"picket.sandbox.keepEnv lets %s through to every sandboxed command, though stripEnv takes it for a credential (%q); keep it only if the agent's commands need it",
			name, set.StripEnv[strip]))
	}
	return out
}

// listSource is the first file of the chain whose list at field (a dotted
// key path) holds value, or the chain's nearest file.
func (t *target) listSource(field, value string) string {
	chain := t.loaded.Chain
	for _, f := range chain {
		if d := t.doc(f); d != nil {
			list, _ := lookup(d.v, strings.Split(field, ".")).([]any)
			if slices.Contains(list, any(value)) {
				return f
			}
		}
	}
	return chain[len(chain)-1]
}
