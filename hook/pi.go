package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
)

// piTargets maps a Pi tool call (read, write, edit, ls, grep, find) to the
// paths it touches. Pi hands tool_call the path as the model wrote it; its
// tools drop one leading "@" (file mentions) before resolving, so picket
// does the same.
func piTargets(c Call) ([]Target, error) {
	var t []Target
	var err error
	switch c.Tool {
	case "read":
		t, err = one(c.Input, "path", decide.Read, false)
	case "write":
		if t, err = one(c.Input, "path", decide.Write, false); err == nil {
			t[0].Size = stringLen(c.Input["content"])
		}
	case "edit":
		t, err = one(c.Input, "path", decide.Write, false)
	case "ls":
		t, err = listing(one(c.Input, "path", decide.List, true))
	case "grep":
		if t, err = one(c.Input, "path", decide.Read, true); err == nil {
			t[0].Recursive, t[0].Root = true, true
			t[0].Filter, err = optString(c.Input, "glob")
			t[0].FilterBase, t[0].Links = true, LinksSkipped
		}
	case "find":
		t, err = findTargets(c.Input)
	default:
		return nil, ErrNotJudged
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
func findTargets(in map[string]json.RawMessage) ([]Target, error) {
	t, err := one(in, "path", decide.List, true)
	if err != nil {
		return nil, err
	}
	raw, ok := in["pattern"]
	if !ok || string(raw) == "null" {
		return nil, fmt.Errorf("tool input has no pattern")
	}
	pat, err := stringOf(raw)
	if err != nil {
		return nil, fmt.Errorf("tool input field pattern: %w", err)
	}
	t[0].Recursive, t[0].Root, t[0].Filter, t[0].Plain, t[0].Links = true, true, pat, true, LinksListed
	return t, nil
}
