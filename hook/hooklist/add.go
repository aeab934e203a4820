package hooklist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// Append adds each group at the end of its event's list in the hooks
// object, making the list and the object where they are missing. A hooks
// that is not an object, or an event that is not a list, is an error.
func (d *Doc) Append(groups []Group) error {
	hooks, i, err := member(d.root, "hooks")
	if err != nil {
		return err
	}
	if i < 0 {
		obj := &hujson.Object{}
		for _, g := range groups {
			d.addMember(obj, g.Event, d.render([]any{g.Value}, 2), 2)
		}
		d.addMember(d.root, "hooks", obj, 1)
		return nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return errors.New(`"hooks" is not an object`)
	}
	for _, g := range groups {
		list, j, err := member(hobj, g.Event)
		if err != nil {
			return err
		}
		if j < 0 {
			d.addMember(hobj, g.Event, d.render([]any{g.Value}, 2), 2)
			continue
		}
		arr, ok := list.Value.(*hujson.Array)
		if !ok {
			return fmt.Errorf(`"hooks.%s" is not a list`, g.Event)
		}
		d.addElement(arr, d.render(g.Value, 3), 3)
	}
	return nil
}

// render is v, marshaled and indented for depth, as a JSON value.
func (d *Doc) render(v any, depth int) hujson.ValueTrimmed {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat(d.unit, depth), d.unit)
	if err := enc.Encode(v); err != nil {
		panic("picket: bug: cannot marshal hooks: " + err.Error())
	}
	val, err := hujson.Parse(bytes.TrimSpace(b.Bytes()))
	if err != nil {
		panic("picket: bug: hooks do not parse: " + err.Error())
	}
	return val.Value
}

// addMember appends a member at depth (its name indented so), keeping a
// trailing comma where the last member had one.
func (d *Doc) addMember(obj *hujson.Object, name string, val hujson.ValueTrimmed, depth int) {
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
func (d *Doc) addElement(arr *hujson.Array, val hujson.ValueTrimmed, depth int) {
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
