package hooklist

import (
	"bytes"
	"encoding/json"

	"github.com/tailscale/hujson"
)

// Holds reports whether each group is the last of its event's list,
// exactly (as JSON, comments and layout aside), and the settings hold no
// other entry isPicket names: then an install has nothing to change.
func (d *Doc) Holds(groups []Group, isPicket func(name, command string) bool) (bool, error) {
	hobj, _, err := d.hooks()
	if err != nil || hobj == nil {
		return false, err
	}
	n := 0
	d.Each(func(_, name, cmd string) {
		if isPicket(name, cmd) {
			n++
		}
	})
	if n != len(groups) {
		return false, nil
	}
	for _, g := range groups {
		list, j, err := member(hobj, g.Event)
		if err != nil || j < 0 {
			return false, err
		}
		arr, ok := list.Value.(*hujson.Array)
		if !ok || len(arr.Elements) == 0 {
			return false, nil
		}
		var got, want bytes.Buffer
		w, _ := json.Marshal(g.Value)
		if json.Compact(&got, standard(arr.Elements[len(arr.Elements)-1])) != nil || json.Compact(&want, w) != nil || got.String() != want.String() {
			return false, nil
		}
	}
	return true, nil
}

// Each calls f with every hook entry's event, name and command, in their
// order.
func (d *Doc) Each(f func(event, name, command string)) {
	hobj, _, err := d.hooks()
	if err != nil || hobj == nil {
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

// standard is a value as standard JSON.
func standard(v hujson.Value) []byte {
	v = v.Clone()
	v.Standardize()
	return v.Pack()
}
