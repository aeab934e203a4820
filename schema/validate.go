package schema

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tailscale/hujson"
)

// Problem is one finding at a position in a policy file.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

// String formats p as "file:line:col: msg", the form editors and compilers
// use, so a terminal or quickfix list can jump to it.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// Error returns the same text as [Problem.String].
func (p Problem) Error() string { return p.String() }

// finding is a problem before it has a position.
type finding struct {
	at  spot
	msg string
}

const bomMessage = "the file starts with a byte order mark (BOM); save it as UTF-8 without one"

// Validate parses src as JSONC (comments and trailing commas allowed) and
// checks it against the embedded schema. A syntax error is one Problem where
// parsing stopped. Problems are sorted by position; nil means valid.
//
// A file holding only whitespace is valid, as fence treats it as no
// configuration at all.
func Validate(file string, src []byte) []Problem {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return []Problem{{File: file, Line: 1, Col: 1, Msg: "syntax error: " + bomMessage}}
	}
	if off, deep := tooDeep(src); deep {
		line, col := lineCol(src, off)
		return []Problem{{File: file, Line: line, Col: col, Msg: fmt.Sprintf("syntax error: nesting deeper than %d levels", MaxNesting)}}
	}
	// Standardize rewrites comments in place, so parse a copy; it keeps every
	// byte offset, so positions found after it still point into src.
	v, err := hujson.Parse(bytes.Clone(src))
	if err != nil {
		line, col, msg := syntaxError(src, err)
		return []Problem{{File: file, Line: line, Col: col, Msg: msg}}
	}
	v.Standardize()
	inst, err := decodeJSON(v.Pack())
	if err != nil {
		// hujson accepted what encoding/json rejects; its error may quote
		// the file, so say only that.
		return []Problem{{File: file, Line: 1, Col: 1, Msg: "syntax error: not valid JSON once comments are removed"}}
	}
	found := duplicateKeys(&v, "")
	found = append(found, invalidUTF8(&v, "")...)
	found = append(found, schemaFindings(inst)...)
	return place(file, src, &v, found)
}

// place turns findings into problems with positions, sorted and without
// repeats.
func place(file string, src []byte, v *hujson.Value, found []finding) []Problem {
	var problems []Problem
	for _, f := range found {
		line, col := lineCol(src, offset(v, f.at))
		problems = append(problems, Problem{File: file, Line: line, Col: col, Msg: f.msg})
	}
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Msg, b.Msg))
	})
	return slices.Compact(problems)
}

// schemaFindings validates the decoded instance and returns one finding per
// thing wrong with it.
func schemaFindings(inst any) []finding {
	c := load()
	err := c.schema.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []finding{{msg: err.Error()}}
	}
	var found []finding
	for _, leaf := range leaves(ve) {
		found = append(found, explain(c.doc, inst, leaf)...)
	}
	return found
}

// duplicateKeys reports every member whose name already appeared in the same
// object: encoding/json (and so fence) keeps only the last value, so the
// earlier one would be a rule that is silently dropped.
func duplicateKeys(v *hujson.Value, ptr string) []finding {
	var found []finding
	switch comp := v.Value.(type) {
	case *hujson.Object:
		seen := make(map[string]int)
		for i := range comp.Members {
			m := &comp.Members[i]
			name := m.Name.Value.(hujson.Literal).String()
			child := ptr + "/" + escapeToken(name)
			if n := seen[name]; n > 0 {
				found = append(found, finding{
					at:  spot{ptr: child, key: true, nth: n},
					msg: dotted(child) + ": duplicate key; only the last one takes effect",
				})
			}
			seen[name]++
			found = append(found, duplicateKeys(&m.Value, child)...)
		}
	case *hujson.Array:
		for i := range comp.Elements {
			found = append(found, duplicateKeys(&comp.Elements[i], fmt.Sprintf("%s/%d", ptr, i))...)
		}
	}
	return found
}
