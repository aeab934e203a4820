package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscale/hujson"
)

// Matcher is the PreToolUse matcher picket installs: the tools whose
// calls it judges. Codex names every shell tool Bash in its hooks.
const Matcher = "^(Bash|apply_patch|view_image)$"

// HookTimeout is the hook timeout, in seconds, install writes into
// hooks.json (Codex counts seconds; its default is 600). Codex runs the
// call when a hook outlives it, so everything below stays well inside:
// picket's own answer (its 10 s deadline, moved past a prompt's 60 s and
// margins: about 90 s at most) and the wrapper's timeout(1) of a picket
// that hangs ([WrapperTimeout], then 10 s to kill it).
const HookTimeout = 150

// WrapperTimeout is how long, in seconds, the hook command lets the
// picket executable run before timeout(1) ends it, which blocks the call:
// past picket's own longest answer, short of [HookTimeout].
const WrapperTimeout = 120

// EventPreToolUse is the Codex hook event picket registers for.
const EventPreToolUse = "PreToolUse"

// hookBody is the script /bin/sh runs: picket, and on any failure of it
// (a missing or crashed executable, a signal, timeout(1)'s 124 or 137)
// a reason on stderr and exit 2, the only failure Codex reads as a
// block. picket's own block is exit 2 with its reason on stderr already.
// RUN is where the executable ("$0") is started, with or without
// timeout(1).
const hookBody = `RUN hook --agent codex || { s=$?; [ "$s" -eq 2 ] || echo "picket: error: the picket hook failed (exit $s), so the call is blocked; run picket doctor" >&2; exit 2; }`

// HookCommand is the hook command install writes for the picket at exe,
// with timeout(1) at timeoutBin ("" for none). Codex runs it as
// `$SHELL -lc COMMAND`, with $SHELL possibly fish or csh, so it starts
// /bin/sh with the script in single quotes, the one quoting every shell
// reads alike, and the executable as $0: neither path is a shell word
// in the script. Paths holding ', \ or a line break cannot be quoted so
// for every shell; install refuses them ([checkPath]).
func HookCommand(exe, timeoutBin string) string { return hookCommand(exe, timeoutBin, WrapperTimeout) }

// hookCommand is HookCommand with timeout(1) ending picket after seconds.
func hookCommand(exe, timeoutBin string, seconds int) string {
	run := `"$0"`
	if timeoutBin != "" {
		run = `"$1" --foreground -k 10 ` + strconv.Itoa(seconds) + ` "$0"`
	}
	body := strings.Replace(hookBody, "RUN", run, 1)
	cmd := "/bin/sh -c '" + body + "' '" + exe + "'"
	if timeoutBin != "" {
		cmd += " '" + timeoutBin + "'"
	}
	return cmd
}

// hookCommandRE matches a command HookCommand wrote, for any executable,
// timeout(1) and timeouts (another release's): what uninstall and doctor
// recognise as picket's. Built on first use, so the hook's start does
// not pay for it.
var hookCommandRE = sync.OnceValue(func() *regexp.Regexp {
	plain := regexp.QuoteMeta(hookCommand("EXE", "", 0))
	timed := regexp.QuoteMeta(hookCommand("EXE", "TIMEOUT", 0))
	plain = strings.Replace(plain, "EXE", `([^'\\\n]+)`, 1)
	timed = strings.Replace(strings.Replace(timed, "EXE", `([^'\\\n]+)`, 1), "TIMEOUT", `([^'\\\n]+)`, 1)
	timed = strings.Replace(strings.Replace(timed, " -k 10 ", ` -k [0-9]+ `, 1), " 0 ", ` [0-9]+ `, 1)
	return regexp.MustCompile(`^(?:` + plain + `|` + timed + `)$`)
})

// ParseHookCommand returns the executable and timeout(1) of a hook
// command HookCommand wrote, and false for any other command.
func ParseHookCommand(cmd string) (exe, timeoutBin string, ok bool) {
	m := hookCommandRE().FindStringSubmatch(cmd)
	if m == nil {
		return "", "", false
	}
	if m[1] != "" {
		return m[1], "", true
	}
	return m[2], m[3], true
}

// checkPath refuses a path the hook command cannot quote for every shell.
func checkPath(what, p string) error {
	if strings.ContainsAny(p, "'\\\u2028\u2029") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%s %q holds a quote, a backslash or a control character, which the hook command cannot quote for every shell Codex may run it with; put it at a plainer path", what, p)
	}
	return nil
}

// group is picket's matcher group in hooks.json.
type group struct {
	Matcher string    `json:"matcher"`
	Hooks   []handler `json:"hooks"`
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// groupFor is picket's group running command.
func groupFor(command string) group {
	return group{Matcher: Matcher, Hooks: []handler{{Type: "command", Command: command, Timeout: HookTimeout}}}
}

// AddHook returns hooks.json (its bytes; empty for none) with picket's
// group running command in hooks.PreToolUse: a picket group already there
// (for any executable) is replaced where it stands, so Codex's trust key
// for it (its position) stays; else the group goes last, so the keys of
// the person's own groups stay. Every other byte is kept.
func AddHook(settings []byte, command string) ([]byte, error) {
	root, err := parseHooks(settings)
	if err != nil {
		return nil, err
	}
	obj := root.Value.(*hujson.Object)
	unit := indentUnit(obj)
	hooks, err := member(obj, "hooks", "{}", unit, 1)
	if err != nil {
		return nil, err
	}
	pre, err := member(hooks.Value.(*hujson.Object), EventPreToolUse, "[]", unit, 2)
	if err != nil {
		return nil, err
	}
	arr, ok := pre.Value.(*hujson.Array)
	if !ok {
		return nil, fmt.Errorf("hooks.%s is not an array", EventPreToolUse)
	}
	text, err := json.MarshalIndent(groupFor(command), strings.Repeat(unit, 3), unit)
	if err != nil {
		return nil, err
	}
	g, err := hujson.Parse(text)
	if err != nil {
		return nil, err
	}
	if i := ownGroup(arr); i >= 0 {
		if groupCommand(arr.Elements[i]) == command {
			return settings, nil
		}
		g.BeforeExtra, g.AfterExtra = arr.Elements[i].BeforeExtra, arr.Elements[i].AfterExtra
		arr.Elements[i] = g
		return root.Pack(), nil
	}
	g.BeforeExtra = sibling(arr.Elements, unit, 3)
	if len(arr.Elements) == 0 && isBlank(arr.AfterExtra) {
		arr.AfterExtra = hujson.Extra("\n" + strings.Repeat(unit, 2))
	}
	arr.Elements = append(arr.Elements, g)
	return root.Pack(), nil
}

// RemoveHook returns hooks.json without picket's group running command
// (exe's, any timeout(1); every picket group when exe is ""), and
// without a PreToolUse list, hooks object or document that this leaves
// empty: nil when nothing else was in the file. Unchanged when there is
// nothing of picket's.
func RemoveHook(settings []byte, exe string) ([]byte, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, nil
	}
	root, err := parseHooks(settings)
	if err != nil {
		return nil, err
	}
	obj := root.Value.(*hujson.Object)
	hooks := find(obj, "hooks")
	if hooks == nil {
		return settings, nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return settings, nil
	}
	pre := find(hobj, EventPreToolUse)
	if pre == nil {
		return settings, nil
	}
	arr, ok := pre.Value.(*hujson.Array)
	if !ok {
		return settings, nil
	}
	changed := false
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		got, _, ok := ParseHookCommand(groupCommand(arr.Elements[i]))
		if ok && (exe == "" || got == exe) && isOwnGroup(arr.Elements[i]) {
			arr.Elements = append(arr.Elements[:i], arr.Elements[i+1:]...)
			changed = true
		}
	}
	if !changed {
		return settings, nil
	}
	if len(arr.Elements) == 0 {
		drop(hobj, EventPreToolUse)
	}
	if len(hobj.Members) == 0 {
		drop(obj, "hooks")
	}
	if len(obj.Members) == 0 {
		return nil, nil
	}
	return root.Pack(), nil
}

// HookCommands are the commands of picket's groups in hooks.json, in
// their order, with each group's position (its trust key's group index).
func HookCommands(settings []byte) (commands []string, index []int) {
	root, err := parseHooks(settings)
	if err != nil {
		return nil, nil
	}
	hooks := find(root.Value.(*hujson.Object), "hooks")
	if hooks == nil {
		return nil, nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil, nil
	}
	pre := find(hobj, EventPreToolUse)
	if pre == nil {
		return nil, nil
	}
	arr, ok := pre.Value.(*hujson.Array)
	if !ok {
		return nil, nil
	}
	for i, g := range arr.Elements {
		if _, _, ok := ParseHookCommand(groupCommand(g)); ok && isOwnGroup(g) {
			commands, index = append(commands, groupCommand(g)), append(index, i)
		}
	}
	return commands, index
}

// parseHooks parses hooks.json, which Codex reads as strict JSON: a file
// with comments or trailing commas is refused (Codex would load none of
// its hooks). An empty file is an empty object.
func parseHooks(settings []byte) (hujson.Value, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		settings = []byte("{}\n")
	}
	if !json.Valid(settings) {
		return hujson.Value{}, errors.New("hooks.json is not valid JSON (Codex loads none of its hooks)")
	}
	v, err := hujson.Parse(settings)
	if err != nil {
		return hujson.Value{}, err
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return hujson.Value{}, errors.New("hooks.json is not a JSON object")
	}
	return v, nil
}

// find returns the value of obj's member name, or nil.
func find(obj *hujson.Object, name string) *hujson.Value {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// member returns obj's member name, appending it (as empty, "{}" or "[]")
// at the given depth when it is missing or null.
func member(obj *hujson.Object, name, empty, unit string, depth int) (*hujson.Value, error) {
	if v := find(obj, name); v != nil {
		if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == 'n' {
			return nil, fmt.Errorf("%q is null", name)
		}
		if byte(v.Value.Kind()) != empty[0] {
			return nil, fmt.Errorf("%q is not a JSON %s", name, map[byte]string{'{': "object", '[': "array"}[empty[0]])
		}
		return v, nil
	}
	val, _ := hujson.Parse([]byte(empty))
	val.BeforeExtra = hujson.Extra(" ")
	names := make([]hujson.Value, len(obj.Members))
	for i, m := range obj.Members {
		names[i] = m.Name
	}
	key := hujson.Value{BeforeExtra: sibling(names, unit, depth), Value: hujson.String(name)}
	if len(obj.Members) == 0 && isBlank(obj.AfterExtra) {
		obj.AfterExtra = hujson.Extra("\n" + strings.Repeat(unit, depth-1))
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: key, Value: val})
	return &obj.Members[len(obj.Members)-1].Value, nil
}

// drop removes obj's member name.
func drop(obj *hujson.Object, name string) {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
			return
		}
	}
}

// sibling is the white space before a new last element: the last one's,
// or a line break and the indent of depth.
func sibling(elems []hujson.Value, unit string, depth int) hujson.Extra {
	if n := len(elems); n > 0 {
		return append(hujson.Extra(nil), elems[n-1].BeforeExtra...)
	}
	return hujson.Extra("\n" + strings.Repeat(unit, depth))
}

// indentUnit is the indentation of the document's first member, or two
// spaces.
func indentUnit(obj *hujson.Object) string {
	if len(obj.Members) > 0 {
		b := obj.Members[0].Name.BeforeExtra
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 && isBlank(b[i+1:]) && len(b) > i+1 {
			return string(b[i+1:])
		}
	}
	return "  "
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// groupCommand is the command of a group's only handler, or "".
func groupCommand(g hujson.Value) string {
	var v group
	if json.Unmarshal(g.Pack(), &v) != nil || len(v.Hooks) != 1 {
		return ""
	}
	return v.Hooks[0].Command
}

// isOwnGroup reports whether g is a group install wrote: one handler,
// nothing else in it.
func isOwnGroup(g hujson.Value) bool {
	var v map[string]json.RawMessage
	if json.Unmarshal(g.Pack(), &v) != nil || len(v) != 2 || v["matcher"] == nil || v["hooks"] == nil {
		return false
	}
	var hs []map[string]json.RawMessage
	return json.Unmarshal(v["hooks"], &hs) == nil && len(hs) == 1 && len(hs[0]) == 3
}

// ownGroup is the index of picket's group in a PreToolUse list, or -1.
func ownGroup(arr *hujson.Array) int {
	for i, g := range arr.Elements {
		if _, _, ok := ParseHookCommand(groupCommand(g)); ok && isOwnGroup(g) {
			return i
		}
	}
	return -1
}
