package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
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
func AddHooks(b []byte, command string) ([]byte, error) {
	d, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	if same, err := d.holds(command); err != nil || same {
		return b, err
	}
	if _, err := d.removePicket(); err != nil {
		return nil, err
	}
	hooks, err := d.root.member("hooks")
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		obj := &hujson.Object{}
		for _, e := range events {
			d.addMember(obj, e.name, d.render([]hookGroup{groupFor(e.matcher, command)}, 2), 2)
		}
		d.addMember(d.root.obj, "hooks", obj, 1)
		return d.pack(), nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New(`"hooks" is not an object`)
	}
	for _, e := range events {
		list, err := object{hobj}.member(e.name)
		if err != nil {
			return nil, err
		}
		if list == nil {
			d.addMember(hobj, e.name, d.render([]hookGroup{groupFor(e.matcher, command)}, 2), 2)
			continue
		}
		arr, ok := list.Value.(*hujson.Array)
		if !ok {
			return nil, fmt.Errorf(`"hooks.%s" is not a list`, e.name)
		}
		d.addElement(arr, d.render(groupFor(e.matcher, command), 3), 3)
	}
	return d.pack(), nil
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
	took, err := d.removePicket()
	if err != nil || !took {
		return b, err
	}
	if len(d.root.obj.Members) == 0 {
		return nil, nil
	}
	return d.pack(), nil
}

// HookCommands are the commands of picket's hooks in the settings, in
// their order, for picket doctor and uninstall's messages.
func HookCommands(b []byte) []string {
	d, err := parseSettings(b)
	if err != nil {
		return nil
	}
	var out []string
	d.eachEntry(func(_ string, name, command string) {
		if isPicketHook(name, command) {
			out = append(out, command)
		}
	})
	return out
}

// settings is a settings file being edited.
type settings struct {
	v    hujson.Value
	root object
	unit string // one level of indentation
}

type object struct{ obj *hujson.Object }

// parseSettings parses a settings file as Qwen Code does: JSON with
// comments, an object. An empty file is an empty object.
func parseSettings(b []byte) (*settings, error) {
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
	d := &settings{v: v, root: object{obj}, unit: "  "}
	if len(obj.Members) > 0 {
		ws := obj.Members[0].Name.BeforeExtra
		if i := bytes.LastIndexByte(ws, '\n'); i >= 0 && len(ws) > i+1 && len(bytes.Trim(ws[i+1:], " \t")) == 0 {
			d.unit = string(ws[i+1:])
		}
	}
	return d, nil
}

func (d *settings) pack() []byte {
	d.v.UpdateOffsets()
	return d.v.Pack()
}

// member returns the value of the member named name, nil when there is
// none. Two members of one name are an error: Qwen Code reads the last,
// and picket cannot tell which one to edit.
func (o object) member(name string) (*hujson.Value, error) {
	i, err := o.index(name)
	if err != nil || i < 0 {
		return nil, err
	}
	return &o.obj.Members[i].Value, nil
}

func (o object) index(name string) (int, error) {
	i := -1
	for k := range o.obj.Members {
		if lit, ok := o.obj.Members[k].Name.Value.(hujson.Literal); ok && lit.String() == name {
			if i >= 0 {
				return -1, fmt.Errorf("the settings name %q twice", name)
			}
			i = k
		}
	}
	return i, nil
}

// render is v, marshaled and indented for depth, as a JSON value.
func (d *settings) render(v any, depth int) hujson.ValueTrimmed {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat(d.unit, depth), d.unit)
	if err := enc.Encode(v); err != nil {
		panic("picket: bug: cannot marshal Qwen Code hooks: " + err.Error())
	}
	val, err := hujson.Parse(bytes.TrimSpace(b.Bytes()))
	if err != nil {
		panic("picket: bug: Qwen Code hooks do not parse: " + err.Error())
	}
	return val.Value
}

// addMember appends a member at depth (its name indented so), keeping a
// trailing comma where the last member had one.
func (d *settings) addMember(obj *hujson.Object, name string, val hujson.ValueTrimmed, depth int) {
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte("\n" + strings.Repeat(d.unit, depth)), Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: []byte(" "), Value: val},
	}
	if n := len(obj.Members); n > 0 {
		if obj.Members[n-1].Value.AfterExtra != nil {
			m.Value.AfterExtra = []byte{}
		}
	} else if !bytes.Contains(obj.AfterExtra, []byte("\n")) {
		obj.AfterExtra = []byte("\n" + strings.Repeat(d.unit, depth-1))
	}
	obj.Members = append(obj.Members, m)
}

// addElement appends an element at depth, as addMember does.
func (d *settings) addElement(arr *hujson.Array, val hujson.ValueTrimmed, depth int) {
	e := hujson.Value{BeforeExtra: []byte("\n" + strings.Repeat(d.unit, depth)), Value: val}
	if n := len(arr.Elements); n > 0 {
		if arr.Elements[n-1].AfterExtra != nil {
			e.AfterExtra = []byte{}
		}
	} else if !bytes.Contains(arr.AfterExtra, []byte("\n")) {
		arr.AfterExtra = []byte("\n" + strings.Repeat(d.unit, depth-1))
	}
	arr.Elements = append(arr.Elements, e)
}

// eachEntry calls f with every hook entry's event, name and command.
func (d *settings) eachEntry(f func(event, name, command string)) {
	hooks, err := d.root.member("hooks")
	if err != nil || hooks == nil {
		return
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return
	}
	for _, m := range hobj.Members {
		arr, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for _, g := range arr.Elements {
			var group struct {
				Hooks []struct{ Name, Command string } `json:"hooks"`
			}
			if json.Unmarshal(standard(g), &group) != nil {
				continue
			}
			for _, h := range group.Hooks {
				f(m.Name.Value.(hujson.Literal).String(), h.Name, h.Command)
			}
		}
	}
}

// holds reports whether the settings hold exactly picket's groups for
// command, each event's last, and no other picket hook: then install has
// nothing to change.
func (d *settings) holds(command string) (bool, error) {
	hooks, err := d.root.member("hooks")
	if err != nil || hooks == nil {
		return false, err
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return false, nil
	}
	n := 0
	d.eachEntry(func(_, name, cmd string) {
		if isPicketHook(name, cmd) {
			n++
		}
	})
	if n != len(events) {
		return false, nil
	}
	for _, e := range events {
		list, err := object{hobj}.member(e.name)
		if err != nil || list == nil {
			return false, err
		}
		arr, ok := list.Value.(*hujson.Array)
		if !ok || len(arr.Elements) == 0 {
			return false, nil
		}
		var got, want bytes.Buffer
		w, _ := json.Marshal(groupFor(e.matcher, command))
		if json.Compact(&got, standard(arr.Elements[len(arr.Elements)-1])) != nil || json.Compact(&want, w) != nil || got.String() != want.String() {
			return false, nil
		}
	}
	return true, nil
}

// removePicket takes picket's hook entries out of every event, a group
// that holds nothing else with them, and the events and hooks object
// this leaves empty. It reports whether it took anything.
func (d *settings) removePicket() (bool, error) {
	i, err := d.root.index("hooks")
	if err != nil || i < 0 {
		return false, err
	}
	hobj, ok := d.root.obj.Members[i].Value.Value.(*hujson.Object)
	if !ok {
		return false, nil // not Qwen Code's hooks: nothing of picket's
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
	return took, nil
}

// removeEntries takes picket's entries out of a group's hooks, and
// reports how many are left and whether any was taken.
func removeEntries(g *hujson.Object) (left int, hit bool) {
	list, err := object{g}.member("hooks")
	if err != nil || list == nil {
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
// without where it had none.
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

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
