// Package schema holds the JSON Schema (draft 2020-12) of picket's policy
// file and checks files against it.
//
// A policy file is a fence sandbox configuration (the format of
// Use-Tusk/fence, docs/schema/fence.schema.json) plus one top-level "picket"
// object with picket's own settings, so one file serves both tools. Files are
// JSONC: comments and trailing commas are allowed.
//
// # What it guarantees
//
// [Validate] reports every problem it finds as a [Problem] naming
// file:line:col: a syntax error (one problem, where parsing stopped), nesting
// deeper than [MaxNesting], a string that is not UTF-8, a value of the wrong
// type or outside its allowed set, a missing required key, an unknown key at
// any level (fence's own schema forbids them too), and a key written twice in
// one object (the later value silently wins when the file is loaded, so the
// earlier one would be a rule that is never applied). A syntax error never
// quotes the file: a policy may be, or extend, a secret (~/.vault-token), and
// the message reaches the terminal and the model's deny reason.
//
// # What it does not check
//
// Validation is purely about the file's shape. It does not compile glob
// patterns, does not resolve or follow "extends" (missing files and cycles are
// the loader's to report), and does not apply fence's load-time checks on
// domain and host patterns. A file that passes can still fail to load.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed picket.schema.json
var schemaJSON []byte

// schemaURL is the schema's $id; the compiler needs a name to resolve the
// document's internal $refs against, and nothing is ever fetched from it.
const schemaURL = "https://raw.githubusercontent.com/picketdev/picket/main/schema/picket.schema.json"

// JSON returns the embedded schema document.
func JSON() []byte {
	return bytes.Clone(schemaJSON)
}

// compiled is the embedded schema, compiled for validation, and its decoded
// document, which message rewriting reads to name known and required keys.
type compiled struct {
	schema *jsonschema.Schema
	doc    any
}

// load compiles the embedded schema once; it is immutable afterwards.
var load = sync.OnceValue(func() compiled {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schemaURL, bytes.NewReader(schemaJSON)); err != nil {
		bug("embedded schema does not load: %v", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		bug("embedded schema does not compile: %v", err)
	}
	doc, err := decodeJSON(schemaJSON)
	if err != nil {
		bug("embedded schema does not decode: %v", err)
	}
	return compiled{schema: s, doc: doc}
})

// decodeJSON decodes standard JSON the way the validator wants it: numbers
// as json.Number, so integers of any size are judged exactly.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// bug reports a broken invariant of this package, never of the input.
func bug(format string, args ...any) {
	panic(fmt.Sprintf("schema: bug: "+format, args...))
}
