package hook

import (
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
			t[0].FilterBase = true
		}
	case "find":
		t, err = globTargets(c.Input, "path", "pattern")
		for i := range t {
			t[i].Plain = t[i].Recursive // fd --glob reads the pattern as is
		}
	default:
		return nil, ErrNotJudged
	}
	for i := range t {
		t[i].Path = strings.TrimPrefix(t[i].Path, "@")
	}
	return t, err
}
