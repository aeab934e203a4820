package pi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// targets maps a Pi tool call (read, write, edit, ls, grep, find) to the
// paths it touches. Pi hands tool_call the path as the model wrote it; its
// tools drop one leading "@" (file mentions) before resolving, so picket
// does the same.
func targets(c hook.Call) ([]hook.Target, error) {
	var t []hook.Target
	var err error
	switch c.Tool {
	case "read":
		if t, err = hook.PathTarget(c.Input, "path", decide.Read, false); err == nil {
			t[0].Seen = true
		}
	case "write":
		if t, err = hook.PathTarget(c.Input, "path", decide.Write, false); err == nil {
			t[0].Size = hook.StringLen(c.Input["content"])
			t[0].Edit, t[0].Seen = true, true
		}
	case "edit":
		if t, err = hook.PathTarget(c.Input, "path", decide.Write, false); err == nil {
			t[0].Edit, t[0].Seen = true, true
		}
	case "ls":
		t, err = hook.Listing(hook.PathTarget(c.Input, "path", decide.List, true))
	case "grep":
		if t, err = hook.PathTarget(c.Input, "path", decide.Read, true); err == nil {
			t[0].Recursive, t[0].Root = true, true
			t[0].Filter, err = hook.OptString(c.Input, "glob")
			t[0].FilterBase, t[0].Links = true, hook.LinksSkipped
		}
	case "find":
		t, err = findTargets(c.Input)
	default:
		return nil, hook.ErrNotJudged
	}
	for i := range t {
		t[i].Path = strings.TrimPrefix(t[i].Path, "@")
	}
	return t, err
}

// findTargets maps Pi's find, which runs fd --glob on its path alone: the
// pattern only filters what fd lists below it (a name, or with a slash
// the absolute path, case folded when it is all lowercase), so the path
// is the one root, scanned with the pattern read as fd reads it. A
// literal directory in the pattern is not searched (fd never goes there),
// and an absolute pattern is matched below the path, not at its prefix,
// which fd may match in another case.
func findTargets(in map[string]json.RawMessage) ([]hook.Target, error) {
	t, err := hook.PathTarget(in, "path", decide.List, true)
	if err != nil {
		return nil, err
	}
	raw, ok := in["pattern"]
	if !ok || string(raw) == "null" {
		return nil, fmt.Errorf("tool input has no pattern")
	}
	pat, err := hook.StringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field pattern: %w", err)
	}
	t[0].Recursive, t[0].Root, t[0].Filter, t[0].Plain, t[0].Links = true, true, pat, true, hook.LinksListed
	return t, nil
}
