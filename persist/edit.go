package persist

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// addEntry appends path to <section>.<key> of the JWCC document src
// (filesystem.allowRead, network.allowedDomains) and returns the new
// document. It is pure. When the array already holds path,
// or one of same (entries that allow at least what path does), it returns
// src itself and present true. New containers copy the indentation of
// their neighbours; no trailing comma is added that the document did not use
// already, so a strict fence.json stays strict JSON.
func addEntry(src []byte, section, key, path string, same ...string) (out []byte, present bool, err error) {
	if len(bytes.TrimSpace(src)) == 0 {
		// A blank policy file is no configuration, {} (as the loader reads
		// it): the entry goes into a new object.
		src = []byte("{}\n")
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, false, errors.New("top-level value is not an object")
	}
	unit := indentUnit(root)
	fsv, err := findMember(root, section)
	if err != nil {
		return nil, false, err
	}
	if fsv == nil {
		appendMember(root, section, unit, func(indent string, multi bool) string {
			return newObject(key, path, indent, unit, multi)
		})
		return v.Pack(), false, nil
	}
	fsObj, ok := fsv.Value.(*hujson.Object)
	if !ok {
		return nil, false, fmt.Errorf("%s is not an object", section)
	}
	arrv, err := findMember(fsObj, key)
	if err != nil {
		return nil, false, err
	}
	if arrv == nil {
		appendMember(fsObj, key, unit, func(indent string, multi bool) string {
			return newArray(path, indent, unit, multi)
		})
		return v.Pack(), false, nil
	}
	arr, ok := arrv.Value.(*hujson.Array)
	if !ok {
		return nil, false, fmt.Errorf("%s.%s is not an array", section, key)
	}
	if holds(arr, path) || slices.ContainsFunc(same, func(s string) bool { return holds(arr, s) }) {
		return src, true, nil
	}
	appendElement(arr, unit, path)
	return v.Pack(), false, nil
}

// findMember returns the value of the member called name, nil when there is
// none. A duplicate name is an error: which one a reader honours differs
// between parsers, so an append to either could be the ignored one.
func findMember(obj *hujson.Object, name string) (*hujson.Value, error) {
	var found *hujson.Value
	for i := range obj.Members {
		lit, ok := obj.Members[i].Name.Value.(hujson.Literal)
		if !ok || lit.String() != name {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("duplicate key %q", name)
		}
		found = &obj.Members[i].Value
	}
	return found, nil
}

func holds(arr *hujson.Array, path string) bool {
	for _, e := range arr.Elements {
		if lit, ok := e.Value.(hujson.Literal); ok && lit.Kind() == '"' && lit.String() == path {
			return true
		}
	}
	return false
}

// appendMember adds "name": value as the last member of obj, where build
// renders the value given the member's indentation and whether obj is laid
// out over several lines.
func appendMember(obj *hujson.Object, name, unit string, build func(indent string, multi bool) string) {
	var prev *hujson.ObjectMember
	if n := len(obj.Members); n > 0 {
		prev = &obj.Members[n-1]
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" ")},
	}
	if prev != nil {
		m.Name.BeforeExtra = spacing(prev.Name.BeforeExtra, true, &obj.AfterExtra, unit)
		m.Name.AfterExtra = blankOr(prev.Name.AfterExtra, "")
		m.Value.BeforeExtra = blankOr(prev.Value.BeforeExtra, " ")
		m.Value.AfterExtra = trailingComma(prev.Value.AfterExtra)
	} else {
		m.Name.BeforeExtra = spacing(nil, false, &obj.AfterExtra, unit)
	}
	indent, multi := lastLine(m.Name.BeforeExtra)
	val, err := hujson.Parse([]byte(build(indent, multi)))
	if err != nil {
		bug("rendered value does not parse: %v", err)
	}
	m.Value.Value = val.Value
	obj.Members = append(obj.Members, m)
}

// appendElement adds the string path as the last element of arr.
func appendElement(arr *hujson.Array, unit, path string) {
	e := hujson.Value{Value: hujson.String(path)}
	if n := len(arr.Elements); n > 0 {
		prev := &arr.Elements[n-1]
		e.BeforeExtra = spacing(prev.BeforeExtra, true, &arr.AfterExtra, unit)
		e.AfterExtra = trailingComma(prev.AfterExtra)
	} else {
		e.BeforeExtra = spacing(nil, false, &arr.AfterExtra, unit)
	}
	arr.Elements = append(arr.Elements, e)
}

// spacing returns the extra to put before a new last item of a composite.
// prev is the leading extra of the current last item (hasPrev false for an
// empty composite) and closing the extra before the closing bracket. Comments
// in closing stay where they are, before the new item, and the closing
// bracket keeps its own line and indentation.
func spacing(prev hujson.Extra, hasPrev bool, closing *hujson.Extra, unit string) hujson.Extra {
	cut := lastBreak(*closing)
	var indent string
	multi := false
	switch {
	case hasPrev:
		indent, multi = lastLine(prev)
	case cut >= 0:
		indent, multi = leadingBlank((*closing)[cut+1:])+unit, true
	}
	if !multi {
		if hasPrev && isBlank(prev) && len(prev) > 0 {
			return clone(prev)
		}
		if hasPrev {
			return hujson.Extra(" ")
		}
		if isBlank(*closing) {
			*closing = nil
		}
		return nil
	}
	head := clone(*closing)
	if cut >= 0 {
		head, *closing = clone((*closing)[:cut]), clone((*closing)[cut:])
	} else {
		*closing = nil
	}
	return append(head, "\n"+indent...)
}

// lastLine returns the indentation after the last line break of extra, and
// whether there is one.
func lastLine(extra []byte) (indent string, multi bool) {
	cut := lastBreak(extra)
	if cut < 0 {
		return "", false
	}
	return leadingBlank(extra[cut+1:]), true
}

// lastBreak returns the offset of the last '\n' in extra that is not inside
// a block comment (a line comment's own terminating newline counts), or -1.
func lastBreak(extra []byte) int {
	last := -1
	for i := 0; i < len(extra); {
		switch {
		case bytes.HasPrefix(extra[i:], []byte("//")):
			j := bytes.IndexByte(extra[i:], '\n')
			if j < 0 {
				return last
			}
			last, i = i+j, i+j+1
		case bytes.HasPrefix(extra[i:], []byte("/*")):
			j := bytes.Index(extra[i+2:], []byte("*/"))
			if j < 0 {
				return last
			}
			i += 2 + j + 2
		default:
			if extra[i] == '\n' {
				last = i
			}
			i++
		}
	}
	return last
}

func leadingBlank(b []byte) string {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return string(b[:n])
}

func isBlank(b []byte) bool {
	return len(bytes.Trim(b, " \t\r\n")) == 0
}

// blankOr returns a copy of extra when it is plain whitespace, else def: a
// comment between a name and its colon belongs to that member alone.
func blankOr(extra hujson.Extra, def string) hujson.Extra {
	if isBlank(extra) {
		return clone(extra)
	}
	return hujson.Extra(def)
}

// trailingComma returns the AfterExtra that gives a new last item a trailing
// comma exactly when the previous last item had one.
func trailingComma(prevAfter hujson.Extra) hujson.Extra {
	if prevAfter != nil {
		return hujson.Extra{}
	}
	return nil
}

func clone(b []byte) hujson.Extra {
	if b == nil {
		return nil
	}
	return append(hujson.Extra{}, b...)
}

// indentUnit guesses one level of indentation from the top-level members:
// their indentation, which sits one level below the unindented root.
func indentUnit(root *hujson.Object) string {
	if len(root.Members) > 0 {
		if indent, multi := lastLine(root.Members[0].Name.BeforeExtra); multi && indent != "" {
			return indent
		}
	}
	return "  "
}

// newObject renders {"key": ["path"]} for a member indented by indent.
func newObject(key, path, indent, unit string, multi bool) string {
	if !multi {
		return "{" + string(hujson.String(key)) + ": " + newArray(path, "", "", false) + "}"
	}
	inner := indent + unit
	return "{\n" + inner + string(hujson.String(key)) + ": " +
		newArray(path, inner, unit, true) + "\n" + indent + "}"
}

// newArray renders ["path"] for a member indented by indent.
func newArray(path, indent, unit string, multi bool) string {
	if !multi {
		return "[" + string(hujson.String(path)) + "]"
	}
	return "[\n" + indent + unit + string(hujson.String(path)) + "\n" + indent + "]"
}

// scaffold renders a new policy file that extends base, before the entry is
// added to it by [addEntry]. The comment names the access but not the path:
// a path may hold a newline, which would end the comment.
func scaffold(base, access, when string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "// Written by picket at %s to persist a %s grant a person confirmed.\n", when, access)
	b.WriteString("// Edit freely: picket appends the paths you persist and keeps everything else.\n")
	fmt.Fprintf(&b, "{\n  \"$schema\": %s,\n  \"extends\": %s\n}\n", string(hujson.String(SchemaURL)), string(hujson.String(base)))
	return []byte(b.String())
}

// bug reports a broken invariant of this package.
func bug(format string, args ...any) {
	panic(fmt.Sprintf("persist: bug: "+format, args...))
}
