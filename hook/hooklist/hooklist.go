// Package hooklist edits the hook lists of an agent's settings file kept
// as JSON with comments, the shape Gemini CLI and Qwen Code share:
//
//	"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"name": "...", "command": "..."}]}]}
//
// picket's groups are appended after the person's own, and picket's
// entries (as the agent's own test tells them) taken out again, with
// every other byte kept: comments, layout, indentation and trailing
// commas.
//
// # What it does not do
//
// It knows nothing of an agent's events, fields, matchers or commands:
// the agent renders its groups and says which entries are picket's. It
// does not decide which settings file an agent reads, nor write it.
package hooklist

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tailscale/hujson"
)

// Doc is a settings file being edited.
type Doc struct {
	v    hujson.Value
	root *hujson.Object
	unit string // one level of indentation
}

// Group is one event's hook group, as the agent writes it (marshaled
// with encoding/json).
type Group struct {
	Event string
	Value any
}

// Parse parses a settings file as the agents do: JSON with comments, an
// object. An empty file is an empty object. The indentation of the first
// member is the unit new members are indented by (two spaces without
// one).
func Parse(b []byte) (*Doc, error) {
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
	d := &Doc{v: v, root: obj, unit: "  "}
	if len(obj.Members) > 0 {
		ws := obj.Members[0].Name.BeforeExtra
		if i := bytes.LastIndexByte(ws, '\n'); i >= 0 && len(ws) > i+1 && len(bytes.Trim(ws[i+1:], " \t")) == 0 {
			d.unit = string(ws[i+1:])
		}
	}
	return d, nil
}

// Pack is the settings file as edited.
func (d *Doc) Pack() []byte {
	d.v.UpdateOffsets()
	return d.v.Pack()
}

// Empty reports whether the settings hold nothing at all.
func (d *Doc) Empty() bool { return len(d.root.Members) == 0 }

// member finds the member of obj named name; i is -1 when there is none.
// Two members of one name are an error: the agents read the last, and
// picket cannot tell which one to edit.
func member(obj *hujson.Object, name string) (v *hujson.Value, i int, err error) {
	i = -1
	for k := range obj.Members {
		if lit, ok := obj.Members[k].Name.Value.(hujson.Literal); ok && lit.String() == name {
			if i >= 0 {
				return nil, -1, fmt.Errorf("the settings name %q twice", name)
			}
			i = k
		}
	}
	if i < 0 {
		return nil, -1, nil
	}
	return &obj.Members[i].Value, i, nil
}

// hooks is the hooks object, nil where there is none or it is not an
// object, and its index among the settings' members.
func (d *Doc) hooks() (obj *hujson.Object, i int, err error) {
	v, i, err := member(d.root, "hooks")
	if err != nil || i < 0 {
		return nil, i, err
	}
	obj, _ = v.Value.(*hujson.Object)
	return obj, i, nil
}
