package qwen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/hooklist"
)

// HookName is the name picket's hooks carry in Qwen Code's settings: what
// its /hooks lists, and how uninstall finds them.
const HookName = "picket"

// hookArgs are picket's arguments in the hook command.
const hookArgs = " hook --agent " + Name

// Tool matchers (regular expressions over the tool name): the tools
// picket judges before they run, and those whose result the
// read-before-edit ledger records after.
var (
	PreMatcher  = "^(" + strings.Join(fileTools, "|") + ")$"
	PostMatcher = "^(" + strings.Join(seenTools, "|") + ")$"
)

// HookCommand is the command Qwen Code runs (with bash -c) for the picket
// at exe, under the timeout(1) at timeoutBin ("" for none). Qwen Code
// runs the call when a hook exits 1, exits 2 without a reason, is
// missing, is killed or has not answered within 60 s: timeout(1) ends a
// picket that hangs well before that ([BusTimeout]), and every exit of
// picket but its own block (2, with its reason on stderr) becomes exit 2
// with a reason, a block.
//
// Qwen Code replaces $NAME and ${NAME} in its settings' strings by the
// environment's values before it runs anything, so the command holds no
// "$" but the shell's "$?", and install refuses an executable whose path
// holds one ([checkPath]).
func HookCommand(exe, timeoutBin string) string {
	return hookCommand(exe, timeoutBin, int(WrapperTimeout.Seconds()))
}

// hookCommand is HookCommand with timeout(1) ending picket after seconds.
func hookCommand(exe, timeoutBin string, seconds int) string {
	run := hook.ShellQuote(exe) + hookArgs
	if timeoutBin != "" {
		run = hook.ShellQuote(timeoutBin) + " --foreground -k " + strconv.Itoa(int(KillAfter.Seconds())) + " " + strconv.Itoa(seconds) + " " + run
	}
	return run + ` || { [ $? -eq 2 ] || echo "picket: error: the picket hook failed, timed out or is missing, so Qwen Code's call is blocked; run picket doctor" >&2; exit 2; }`
}

// checkPath refuses a path the hook command cannot carry: a "$", which
// Qwen Code would replace by an environment variable's value, or a
// control character.
func checkPath(what, p string) error {
	if strings.ContainsRune(p, '$') || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%s %q holds a \"$\" or a control character, which Qwen Code's settings cannot carry unchanged; put it at a plainer path", what, p)
	}
	return nil
}

// isPicketHook reports whether a hook entry is picket's: named picket,
// running picket hook for Qwen Code (any executable, any timeout(1)).
func isPicketHook(name, command string) bool {
	return name == HookName && strings.Contains(command, hookArgs+" ")
}

// hookEntry and hookGroup are picket's entries in a settings file.
type hookEntry struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Command string `json:"command"`
	Timeout int64  `json:"timeout"`
}

type hookGroup struct {
	Matcher string      `json:"matcher"`
	Hooks   []hookEntry `json:"hooks"`
}

// events are the events picket hooks, in the order they are written.
var events = []struct{ name, matcher string }{
	{EventPreToolUse, PreMatcher},
	{EventPostToolUse, PostMatcher},
}

func groupFor(matcher, command string) hookGroup {
	return hookGroup{Matcher: matcher, Hooks: []hookEntry{{Type: "command", Name: HookName, Command: command, Timeout: HookTimeout.Milliseconds()}}}
}

// groups are picket's hook groups running command, one per event.
func groups(command string) []hooklist.Group {
	out := make([]hooklist.Group, len(events))
	for k, e := range events {
		out[k] = hooklist.Group{Event: e.name, Value: groupFor(e.matcher, command)}
	}
	return out
}

// wire is the Agent's Wire: picket's hooks running exe (without
// timeout(1), which install adds where the machine has one).
func wire(b []byte, exe string) ([]byte, error) { return AddHooks(b, HookCommand(exe, "")) }

// unwire is the Agent's Unwire: nil means the file goes.
func unwire(b []byte, _ string) ([]byte, error) { return RemoveHooks(b) }

// AddHooks returns the settings (JSON with comments, as Qwen Code reads
// them; empty for none) with picket's hook groups running command, in
// hooks.PreToolUse and hooks.PostToolUse, after the person's own. picket
// hooks already there (another executable, another timeout) are taken
// out first; every other byte is kept, comments and layout included.
// Settings that already hold exactly these groups, each its event's
// last, come back unchanged.
func AddHooks(b []byte, command string) ([]byte, error) {
	d, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	if same, err := d.Holds(groups(command), isPicketHook); err != nil || same {
		return b, err
	}
	if _, err := d.Remove(isPicketHook); err != nil {
		return nil, err
	}
	if err := d.Append(groups(command)); err != nil {
		return nil, err
	}
	return d.Pack(), nil
}

// RemoveHooks returns the settings without picket's hook entries, and
// without the groups, events and hooks object that leaves empty: nil
// when nothing else was in the file. Unchanged when nothing of picket's
// is there.
func RemoveHooks(b []byte) ([]byte, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return b, nil
	}
	d, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	took, err := d.Remove(isPicketHook)
	if err != nil || !took {
		return b, err
	}
	if d.Empty() {
		return nil, nil
	}
	return d.Pack(), nil
}

// HookCommands are the commands of picket's hooks in the settings, in
// their order, for picket doctor and uninstall's messages.
func HookCommands(b []byte) []string {
	d, err := parseSettings(b)
	if err != nil {
		return nil
	}
	var out []string
	d.Each(func(_ string, name, command string) {
		if isPicketHook(name, command) {
			out = append(out, command)
		}
	})
	return out
}

// parseSettings parses a settings file as Qwen Code does: JSON with
// comments, an object. An empty file is an empty object.
func parseSettings(b []byte) (*hooklist.Doc, error) { return hooklist.Parse(b) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
