package hooklist

import (
	"encoding/json"

	"github.com/tailscale/hujson"
)

// Remove takes the hook entries isPicket names out of every event, a
// group that holds nothing else with them, and the events and hooks
// object this leaves empty. It reports whether it took anything. A hooks
// that is not an object holds nothing of picket's.
func (d *Doc) Remove(isPicket func(name, command string) bool) (bool, error) {
	hobj, i, err := d.hooks()
	if err != nil || hobj == nil {
		return false, err
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
			left, hit := removeEntries(g, isPicket)
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
		removeMemberAt(&d.root.Members, i)
	}
	return took, nil
}

// removeEntries takes the entries isPicket names out of a group's hooks,
// and reports how many are left and whether any was taken.
func removeEntries(g *hujson.Object, isPicket func(name, command string) bool) (left int, hit bool) {
	list, i, err := member(g, "hooks")
	if err != nil || i < 0 {
		return -1, false
	}
	arr, ok := list.Value.(*hujson.Array)
	if !ok {
		return -1, false
	}
	for j := len(arr.Elements) - 1; j >= 0; j-- {
		var e struct{ Name, Command string }
		if json.Unmarshal(standard(arr.Elements[j]), &e) == nil && isPicket(e.Name, e.Command) {
			removeAt(&arr.Elements, j)
			hit = true
		}
	}
	return len(arr.Elements), hit
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
