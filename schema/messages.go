package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// leaves flattens a validation error tree into the errors that say what is
// actually wrong. Under anyOf and oneOf every branch failed, each for its own
// reason, so only the most specific leaf is kept instead of a wall of causes.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var all []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		all = append(all, leaves(c)...)
	}
	switch keyword(ve.KeywordLocation) {
	case "anyOf", "oneOf":
		return []*jsonschema.ValidationError{slices.MinFunc(all, moreSpecific)}
	}
	return all
}

// moreSpecific orders the deeper instance location first, then by location
// and message, so the choice does not depend on map iteration order.
func moreSpecific(a, b *jsonschema.ValidationError) int {
	da, db := strings.Count(a.InstanceLocation, "/"), strings.Count(b.InstanceLocation, "/")
	if da != db {
		return db - da
	}
	if c := strings.Compare(a.InstanceLocation, b.InstanceLocation); c != 0 {
		return c
	}
	return strings.Compare(a.Message, b.Message)
}

// explain turns one leaf error into findings with readable messages, each
// prefixed by the dotted key path of the value it is about. An unknown-keys
// error becomes one finding per key, pointing at the key.
func explain(doc, inst any, leaf *jsonschema.ValidationError) []finding {
	ptr := instancePointer(leaf.InstanceLocation)
	if keyword(leaf.KeywordLocation) == "additionalProperties" {
		if found := unknownKeys(doc, inst, leaf, ptr); len(found) > 0 {
			return found
		}
	}
	return []finding{{at: spot{ptr: ptr}, msg: prefix(ptr) + message(doc, inst, leaf, ptr)}}
}

// message says what is wrong with the value at ptr, naming the value where
// the validator's own words would not.
func message(doc, inst any, leaf *jsonschema.ValidationError, ptr string) string {
	value := func() string { return show(lookup(inst, ptr)) }
	switch keyword(leaf.KeywordLocation) {
	case "required":
		if missing := missingKeys(doc, inst, leaf, ptr); len(missing) > 0 {
			return "missing required " + plural(len(missing), "key") + " " + strings.Join(missing, ", ")
		}
	case "enum":
		if rest, ok := strings.CutPrefix(leaf.Message, "value must be one of "); ok {
			return value() + " is not one of " + rest
		}
		if rest, ok := strings.CutPrefix(leaf.Message, "value must be "); ok {
			return value() + " is not " + rest
		}
	case "pattern":
		// A pattern whose schema says in words what it wants says that.
		if m, ok := lookup(doc, parentPointer(schemaPointer(leaf))).(map[string]any); ok {
			if want, ok := m["patternMeaning"].(string); ok {
				return value() + " is not " + want
			}
		}
		return value() + " does not match the pattern " + str(schemaAt(doc, leaf))
	}
	return leaf.Message
}

// unknownKeys names each key the schema does not know, one finding per key
// pointing at the key itself, with the keys that are allowed there.
func unknownKeys(doc, inst any, leaf *jsonschema.ValidationError, ptr string) []finding {
	obj, ok := lookup(inst, ptr).(map[string]any)
	if !ok {
		return nil
	}
	props, ok := lookup(doc, parentPointer(schemaPointer(leaf))+"/properties").(map[string]any)
	if !ok {
		return nil
	}
	known := sortedKeys(props)
	var found []finding
	for _, name := range sortedKeys(obj) {
		if _, ok := props[name]; ok {
			continue
		}
		child := ptr + "/" + escapeToken(name)
		msg := dotted(child) + ": unknown key; known keys here: " + strings.Join(known, ", ")
		if home := homeOf(props, name); home != "" {
			msg = dotted(child) + ": unknown key here; did you mean " + dotted(ptr+"/"+escapeToken(home)+"/"+escapeToken(name)) + "?"
		}
		found = append(found, finding{at: spot{ptr: child, key: true}, msg: msg})
	}
	return found
}

// homeOf returns the known key whose object does have a property called
// name, so a key written one level too high (allowExecute at the top instead
// of in filesystem) gets a pointer to where it belongs.
func homeOf(props map[string]any, name string) string {
	for _, k := range sortedKeys(props) {
		if _, ok := lookup(props, "/"+escapeToken(k)+"/properties/"+escapeToken(name)).(map[string]any); ok {
			return k
		}
	}
	return ""
}

// missingKeys lists, quoted, the required keys absent from the object.
func missingKeys(doc, inst any, leaf *jsonschema.ValidationError, ptr string) []string {
	obj, ok := lookup(inst, ptr).(map[string]any)
	if !ok {
		return nil
	}
	required, ok := schemaAt(doc, leaf).([]any)
	if !ok {
		return nil
	}
	var missing []string
	for _, r := range required {
		name, _ := r.(string)
		if _, ok := obj[name]; !ok {
			missing = append(missing, strconv.Quote(name))
		}
	}
	return missing
}

// instancePointer turns the validator's instance location into an RFC 6901
// pointer: the validator also URL-escapes each token.
func instancePointer(loc string) string {
	if loc == "" {
		return ""
	}
	toks := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return "/" + strings.Join(toks, "/")
}

// schemaPointer is the failing keyword's location inside the embedded schema
// document, $refs already followed.
func schemaPointer(leaf *jsonschema.ValidationError) string {
	_, frag, _ := strings.Cut(leaf.AbsoluteKeywordLocation, "#")
	return instancePointer(frag)
}

func schemaAt(doc any, leaf *jsonschema.ValidationError) any {
	return lookup(doc, schemaPointer(leaf))
}

func parentPointer(ptr string) string {
	parent, _ := splitPointer(ptr)
	return parent
}

// keyword is the last token of a keyword location: the keyword that failed.
func keyword(loc string) string {
	return loc[strings.LastIndexByte(loc, '/')+1:]
}

// lookup returns the decoded JSON value an RFC 6901 pointer names, or nil.
func lookup(v any, ptr string) any {
	for _, tok := range pointerTokens(ptr) {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// dotted writes a pointer as the key path a person would type:
// "/filesystem/allowRead/3" is "filesystem.allowRead[3]".
func dotted(ptr string) string {
	var b strings.Builder
	for _, tok := range pointerTokens(ptr) {
		switch {
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		case plainKey().MatchString(tok):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		default:
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

// plainKey is compiled on first use, not in every process that links schema.
var plainKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`) })

func isIndex(tok string) bool {
	_, err := strconv.ParseUint(tok, 10, 0)
	return err == nil && (tok == "0" || tok[0] != '0')
}

// prefix is the "key.path: " that starts a message; the whole file has none.
func prefix(ptr string) string {
	if ptr == "" {
		return "top level: "
	}
	return dotted(ptr) + ": "
}

// show renders a value for a message, cut short when it is long.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	const limit = 60
	if r := []rune(string(b)); len(r) > limit {
		return string(r[:limit]) + "..."
	}
	return string(b)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
