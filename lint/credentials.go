package lint

import (
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
)

// credentials are secrets every policy should keep from agents; the
// built-in templates deny reading each of them.
var credentials = []string{
	"~/.ssh/id_rsa",
	"~/.ssh/id_ed25519",
	"~/.aws/credentials",
	"~/.config/gcloud/credentials.db",
	"~/.kube/config",
	"~/.netrc",
	"~/.git-credentials",
	"~/.gnupg/private-keys-v1.d",
	"~/.claude/.credentials.json",
	"~/.pi/agent/auth.json",
	"~/.codex/auth.json",
	"~/.local/share/opencode/auth.json",
}

// checkCredentials warns when the resolved policy lets agents read a
// credential. The usual cause is a fence file without "extends": it
// replaces picket's defaults and the user's own fence config, so a
// project's `{}` (or one a cloned repository brings) opens them all. The
// warning is about the chain as a whole, placed on its nearest file.
func checkCredentials(t *target) []Warning {
	if len(t.loaded.Chain) == 0 {
		return nil
	}
	var open []string
	for _, c := range credentials {
		p, ok := t.expandHome(c)
		if !ok {
			continue
		}
		d := decide.Decide(t.loaded.Policy, decide.Request{Access: decide.Read, Path: p, Resolved: t.resolve(p), Size: -1})
		if d.Allow {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return nil
	}
	named := strings.Join(open, ", ")
	if len(open) > 3 {
		named = fmt.Sprintf("%s and %d more", strings.Join(open[:3], ", "), len(open)-3)
	}
	return []Warning{{
		File: t.loaded.Chain[len(t.loaded.Chain)-1],
		Code: CodeCredentialsOpen,
		Msg: "agents may read " + named + ": no rule of this policy denies them" +
			` (a fence file without "extends" replaces picket's defaults and your user config);` +
			` add "extends": "code" (or "@base"), or list them in filesystem.denyRead`,
	}}
}
