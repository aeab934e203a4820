package decide

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tailscale/hujson"
)

var jsoncSeeds = []string{
	`{"a": 1}`,
	"// c\n{\"a\": [1, 2,], /* x, */ \"b\": {\"c\": \"//not a comment,\",},}\n",
	"{\"a\": \"q\\\"/*\", \"b\": [ , ]}",
	"{\"a\": [1 /* , */ ,\n// ]\n]}",
	`{"a": "\\", "b": "\\\"", "c": "/* */"}`,
	"{\"a\": 1, // trailing\n}",
	"{/**/}",
	"[1,/*]*/2,]",
	`{"a": 1 /* unclosed`,
	`{"a": "unclosed}`,
	"{\"a\": 1}/",
}

func TestStandardize(t *testing.T) {
	for _, s := range jsoncSeeds {
		checkStandardize(t, s)
	}
	for _, name := range Templates() {
		src, _ := Template(name)
		checkStandardize(t, string(src))
	}
}

// checkStandardize holds standardize to hujson: where hujson reads in, both
// give the same JSON value.
func checkStandardize(t *testing.T, in string) {
	t.Helper()
	want, werr := hujson.Standardize([]byte(in))
	if werr != nil {
		return // never asked of a document hujson refuses: validation runs first
	}
	got, err := standardize([]byte(in))
	if err != nil {
		t.Fatalf("standardize(%q) = %v; hujson read it", in, err)
	}
	var gv, wv any
	gerr, werr := json.Unmarshal(got, &gv), json.Unmarshal(want, &wv)
	if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(gv, wv) {
		t.Fatalf("standardize(%q) = %q (%v), hujson %q (%v)", in, got, gerr, want, werr)
	}
}

func FuzzStandardize(f *testing.F) {
	for _, s := range jsoncSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkStandardize(t, in) })
}
