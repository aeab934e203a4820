package gemini

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/hooklist"
)

// HookName is the name picket's hooks carry in Gemini CLI's settings: what
// /hooks lists, what a "Hook(s) [picket] failed" warning names, and how
// uninstall finds them.
const HookName = "picket"

// HookArgs are picket's arguments in the hook command.
var HookArgs = []string{"hook", "--agent", Name}

// Tool matchers (regular expressions over the tool name): the tools
// picket judges or rewrites before they run, and the ones whose result
// the read-before-edit ledger records after.
const (
	BeforeMatcher = "^(read_file|write_file|replace|list_directory|glob|grep_search|search_file_content|read_many_files|run_shell_command)$"
	AfterMatcher  = "^(read_file|write_file|replace)$"
)

// HookCommand is the command Gemini CLI runs (through bash) for the picket
// at exe. Gemini CLI runs the call when a hook exits 1, exits 3 or more
// without text, is missing, is killed or outlives its timeout: the
// command runs picket under coreutils' timeout, shorter than Gemini
// CLI's own, and turns every non-zero exit into exit 2 with a reason on
// stderr, which blocks. The timeout is named by the absolute path found
// when the command is made ([hook.TimeoutBin]): a "timeout" put on PATH
// later, one that exits 0, would otherwise stand in for it and let every
// call through. (Where there is none, picket's own deadline is all there
// is; install says so.)
func HookCommand(exe string) string { return hookCommand(exe, timeoutBin(), KillAfter) }

// timeoutBin is coreutils' timeout by absolute path, looked up once.
var timeoutBin = sync.OnceValue(func() string { return hook.TimeoutBin(os.Getenv) })

// hookCommand is HookCommand with the timeout at tb ("" for none)
// killing picket after kill.
func hookCommand(exe, tb string, kill time.Duration) string {
	p := hook.ShellQuote(exe) + " " + strings.Join(HookArgs, " ")
	if tb != "" {
		p = hook.ShellQuote(tb) + timeoutArgs + strconv.Itoa(int(kill.Seconds())) + " " + p
	}
	return p + " || " +
		`{ echo "picket: error: picket's hook failed, timed out or is missing (exit $?), so Gemini CLI's call was blocked; run picket doctor" >&2; exit 2; }`
}

// timeoutArgs stand between the timeout's path and its seconds.
const timeoutArgs = " --foreground -s KILL "

// isPicketHook reports whether a hook entry is picket's: named picket,
// running picket hook for Gemini CLI (any executable).
func isPicketHook(name, command string) bool {
	return name == HookName && strings.Contains(command, " "+strings.Join(HookArgs, " "))
}

// hookEntry and hookGroup are picket's entries in a settings file.
type hookEntry struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Command string `json:"command"`
	Timeout int64  `json:"timeout"`
}

type hookGroup struct {
	Matcher string `json:"matcher,omitempty"`
	// Sequential runs every hook of the event one after the other, each
	// given the input as the hooks before it rewrote it. Gemini CLI
	// otherwise runs them side by side on the model's input and takes
	// the last one's tool_input: a person's hook after picket's (in the
	// workspace or system settings, or an extension) that rewrites a
	// shell command would run it without picket's wrapping.
	Sequential bool        `json:"sequential,omitempty"`
	Hooks      []hookEntry `json:"hooks"`
}

// events are the events picket hooks, with their groups, in the order
// they are written.
var events = []struct{ name, matcher string }{
	{EventBeforeTool, BeforeMatcher},
	{EventBeforeAgent, ""},
	{EventAfterTool, AfterMatcher},
	// A session event's matcher is compared with its trigger as a
	// string: none matches every trigger.
	{EventSessionStart, ""},
	{EventSessionEnd, ""},
}

func groupFor(event, matcher, exe string) hookGroup {
	return hookGroup{Matcher: matcher, Sequential: event == EventBeforeTool,
		Hooks: []hookEntry{{Type: "command", Name: HookName, Command: HookCommand(exe), Timeout: HookTimeout.Milliseconds()}}}
}

// wire is the Agent's Wire: picket's hook groups added to the settings
// (JSON with comments, as Gemini CLI reads them), everything else kept as
// it was, comments and layout included. Stale picket hooks (another
// executable) are taken out first.
func wire(b []byte, exe string) ([]byte, error) {
	d, err := hooklist.Parse(b)
	if err != nil {
		return nil, err
	}
	if _, err := d.Remove(isPicketHook); err != nil {
		return nil, err
	}
	groups := make([]hooklist.Group, len(events))
	for k, e := range events {
		groups[k] = hooklist.Group{Event: e.name, Value: groupFor(e.name, e.matcher, exe)}
	}
	if err := d.Append(groups); err != nil {
		return nil, err
	}
	return d.Pack(), nil
}

// unwire is the Agent's Unwire: picket's hooks taken out, with the events,
// the hooks object and the file that this leaves empty.
func unwire(b []byte, _ string) ([]byte, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return b, nil
	}
	d, err := hooklist.Parse(b)
	if err != nil {
		return nil, err
	}
	if _, err := d.Remove(isPicketHook); err != nil {
		return nil, err
	}
	if d.Empty() {
		return nil, nil
	}
	return d.Pack(), nil
}
