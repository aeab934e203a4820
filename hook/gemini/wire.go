package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
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
	d, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	if err := d.removePicket(); err != nil {
		return nil, err
	}
	hooks, i, err := d.root.member("hooks")
	if err != nil {
		return nil, err
	}
	if i < 0 {
		obj := &hujson.Object{}
		for _, e := range events {
			if err := d.addMember(obj, e.name, d.render([]hookGroup{groupFor(e.name, e.matcher, exe)}, 2), 2); err != nil {
				return nil, err
			}
		}
		if err := d.addMember(d.root.obj, "hooks", obj, 1); err != nil {
			return nil, err
		}
		return d.pack(), nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New(`"hooks" is not an object`)
	}
	for _, e := range events {
		arr, j, err := settingsObject{hobj}.member(e.name)
		if err != nil {
			return nil, err
		}
		if j < 0 {
			if err := d.addMember(hobj, e.name, d.render([]hookGroup{groupFor(e.name, e.matcher, exe)}, 2), 2); err != nil {
				return nil, err
			}
			continue
		}
		a, ok := arr.Value.(*hujson.Array)
		if !ok {
			return nil, fmt.Errorf(`"hooks.%s" is not a list`, e.name)
		}
		d.addElement(a, d.render(groupFor(e.name, e.matcher, exe), 3), 3)
	}
	return d.pack(), nil
}

// unwire is the Agent's Unwire: picket's hooks taken out, with the events,
// the hooks object and the file that this leaves empty.
func unwire(b []byte, _ string) ([]byte, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return b, nil
	}
	d, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	if err := d.removePicket(); err != nil {
		return nil, err
	}
	if len(d.root.obj.Members) == 0 {
		return nil, nil
	}
	return d.pack(), nil
}

// settingsDoc is a settings file being edited.
type settingsDoc struct {
	v    hujson.Value
	root settingsObject
	unit string // one level of indentation
}

type settingsObject struct{ obj *hujson.Object }

func parseSettings(b []byte) (*settingsDoc, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}\n")
	}
	v, err := hujson.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("invalid settings JSON: %w", err)
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New("the settings are not a JSON object")
	}
	d := &settingsDoc{root: settingsObject{obj}, unit: "  "}
	if len(obj.Members) > 0 {
		ws := obj.Members[0].Name.BeforeExtra
		if i := bytes.LastIndexByte(ws, '\n'); i >= 0 && len(bytes.Trim(ws[i+1:], " \t")) == 0 && len(ws) > i+1 {
			d.unit = string(ws[i+1:])
		}
	}
	d.v = v
	return d, nil
}

func (d *settingsDoc) pack() []byte {
	d.v.UpdateOffsets()
	return d.v.Pack()
}

// member finds the member named name; i is -1 when there is none. Two
// members of one name are an error: Gemini CLI reads the last, and picket
// cannot tell which one to edit.
func (o settingsObject) member(name string) (v *hujson.Value, i int, err error) {
	i = -1
	for k := range o.obj.Members {
		if lit, ok := o.obj.Members[k].Name.Value.(hujson.Literal); ok && lit.String() == name {
			if i >= 0 {
				return nil, -1, fmt.Errorf("the settings name %q twice", name)
			}
			i = k
		}
	}
	if i < 0 {
		return nil, -1, nil
	}
	return &o.obj.Members[i].Value, i, nil
}

// render is v, marshaled and indented for depth, as a JSON value.
func (d *settingsDoc) render(v any, depth int) hujson.ValueTrimmed {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat(d.unit, depth), d.unit)
	if err := enc.Encode(v); err != nil {
		panic("picket: bug: cannot marshal Gemini CLI hooks: " + err.Error())
	}
	val, err := hujson.Parse(bytes.TrimSpace(b.Bytes()))
	if err != nil {
		panic("picket: bug: Gemini CLI hooks do not parse: " + err.Error())
	}
	return val.Value
}

// addMember appends a member at depth (its name indented so): after the
// last member's comma, which it adds where there was none, keeping a
// trailing comma where there was one.
func (d *settingsDoc) addMember(obj *hujson.Object, name string, val hujson.ValueTrimmed, depth int) error {
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte("\n" + strings.Repeat(d.unit, depth)), Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: []byte(" "), Value: val},
	}
	if n := len(obj.Members); n > 0 {
		last := &obj.Members[n-1].Value
		if last.AfterExtra == nil {
			last.AfterExtra = []byte{}
		} else {
			m.Value.AfterExtra = []byte{}
		}
	} else if !bytes.Contains(obj.AfterExtra, []byte("\n")) {
		obj.AfterExtra = []byte("\n" + strings.Repeat(d.unit, depth-1))
	}
	obj.Members = append(obj.Members, m)
	return nil
}

// addElement appends an element at depth, as addMember does.
func (d *settingsDoc) addElement(arr *hujson.Array, val hujson.ValueTrimmed, depth int) {
	e := hujson.Value{BeforeExtra: []byte("\n" + strings.Repeat(d.unit, depth)), Value: val}
	if n := len(arr.Elements); n > 0 {
		last := &arr.Elements[n-1]
		if last.AfterExtra == nil {
			last.AfterExtra = []byte{}
		} else {
			e.AfterExtra = []byte{}
		}
	} else if !bytes.Contains(arr.AfterExtra, []byte("\n")) {
		arr.AfterExtra = []byte("\n" + strings.Repeat(d.unit, depth-1))
	}
	arr.Elements = append(arr.Elements, e)
}

// removePicket takes picket's hook entries out of every event, a group
// that holds nothing else with them, and the events and hooks object
// this leaves empty.
func (d *settingsDoc) removePicket() error {
	hooks, i, err := d.root.member("hooks")
	if err != nil || i < 0 {
		return err
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil // not Gemini CLI's hooks: nothing of picket's
	}
	took := false
	for k := len(hobj.Members) - 1; k >= 0; k-- {
		arr, ok := hobj.Members[k].Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		removed := false
		for j := len(arr.Elements) - 1; j >= 0; j-- {
			g, ok := arr.Elements[j].Value.(*hujson.Object)
			if !ok {
				continue
			}
			left, hit := removeEntries(g)
			if hit && left == 0 {
				removeAt(&arr.Elements, j)
			}
			removed = removed || hit
		}
		if removed && len(arr.Elements) == 0 {
			removeMemberAt(&hobj.Members, k)
		}
		took = took || removed
	}
	if took && len(hobj.Members) == 0 {
		removeMemberAt(&d.root.obj.Members, i)
	}
	return nil
}

// removeEntries takes picket's entries out of a group's hooks, and
// reports how many are left and whether any was taken.
func removeEntries(g *hujson.Object) (left int, hit bool) {
	list, i, err := settingsObject{g}.member("hooks")
	if err != nil || i < 0 {
		return -1, false
	}
	arr, ok := list.Value.(*hujson.Array)
	if !ok {
		return -1, false
	}
	for j := len(arr.Elements) - 1; j >= 0; j-- {
		var e struct{ Name, Command string }
		if json.Unmarshal(standard(arr.Elements[j]), &e) == nil && isPicketHook(e.Name, e.Command) {
			removeAt(&arr.Elements, j)
			hit = true
		}
	}
	return len(arr.Elements), hit
}

// standard is a value as standard JSON.
func standard(v hujson.Value) []byte {
	v = v.Clone()
	v.Standardize()
	return v.Pack()
}

// removeAt removes element j. Where it is the last, the one before it
// becomes the last: with a trailing comma where the removed one had one,
// without where it had none (the comma addElement added).
func removeAt(elems *[]hujson.Value, j int) {
	s := *elems
	if j == len(s)-1 && j > 0 {
		lastComma(&s[j-1], s[j].AfterExtra != nil)
	}
	*elems = append(s[:j], s[j+1:]...)
}

// removeMemberAt is removeAt for an object's members.
func removeMemberAt(members *[]hujson.ObjectMember, j int) {
	s := *members
	if j == len(s)-1 && j > 0 {
		lastComma(&s[j-1].Value, s[j].Value.AfterExtra != nil)
	}
	*members = append(s[:j], s[j+1:]...)
}

// lastComma gives the value that becomes the last of its list a trailing
// comma, or takes it away where nothing but the comma follows it.
func lastComma(v *hujson.Value, comma bool) {
	switch {
	case comma && v.AfterExtra == nil:
		v.AfterExtra = []byte{}
	case !comma && len(v.AfterExtra) == 0:
		v.AfterExtra = nil
	}
}
