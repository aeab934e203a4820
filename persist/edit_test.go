package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// goldenPath is the path every golden edit appends.
const goldenPath = "/srv/data/report.csv"

// goldenKey says which array each input under testdata/in is edited in;
// inputs not listed get allowRead.
var goldenKey = map[string]string{
	"no-array.jsonc": "allowWrite",
	"strict.json":    "allowWrite",
}

func goldenInputs(t testing.TB) []string {
	names, err := filepath.Glob("testdata/in/*")
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	return names
}

func keyFor(name string) string {
	if k, ok := goldenKey[filepath.Base(name)]; ok {
		return k
	}
	return "allowRead"
}

func TestAddEntryGolden(t *testing.T) {
	for _, in := range goldenInputs(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			key := keyFor(in)
			out, present, err := addEntry(src, "filesystem", key, goldenPath)
			if err != nil {
				t.Fatalf("addEntry(%s) error: %v", in, err)
			}
			if present {
				if string(out) != string(src) {
					t.Errorf("addEntry(%s) reported present but changed the document", in)
				}
			} else {
				checkEdit(t, src, out, key, goldenPath)
			}
			golden := filepath.Join("testdata", "golden", filepath.Base(in))
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), string(out)); diff != "" {
				t.Errorf("addEntry(%s) mismatch (-want +got):\n%s", in, diff)
			}
			again, present, err := addEntry(out, "filesystem", key, goldenPath)
			if err != nil || !present || string(again) != string(out) {
				t.Errorf("second addEntry(%s) = present %v, err %v, changed %v; want present, unchanged", in, present, err, string(again) != string(out))
			}
		})
	}
}

func TestAddEntryRefuses(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"malformed", `{"filesystem": {"allowRead": [1,}`, "malformed JSONC: hujson: line 1"},
		{"top-level array", `["/a"]`, "top-level value is not an object"},
		{"filesystem not object", `{"filesystem": []}`, "filesystem is not an object"},
		{"array not array", `{"filesystem": {"allowRead": "/a"}}`, "filesystem.allowRead is not an array"},
		{"duplicate filesystem", `{"filesystem": {}, "filesystem": {}}`, `duplicate key "filesystem"`},
		{"duplicate allowRead", `{"filesystem": {"allowRead": [], "allowRead": []}}`, `duplicate key "allowRead"`},
	}
	for _, tt := range tests {
		_, _, err := addEntry([]byte(tt.src), "filesystem", "allowRead", "/p")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: addEntry(%q) error = %v, want it to contain %q", tt.name, tt.src, err, tt.want)
		}
	}
	if _, _, err := addEntry([]byte("{"), "filesystem", "allowRead", "/p"); !errors.Is(err, ErrMalformed) {
		t.Errorf("addEntry(%q) error = %v, want ErrMalformed", "{", err)
	}
}

// checkEdit checks the property every edit keeps: the output parses, means
// the input plus the path appended to filesystem.<key>, keeps every byte of
// the input in order, and leaves the bytes before and after the innermost
// container that already existed untouched.
func checkEdit(t testing.TB, src, out []byte, key, path string) {
	t.Helper()
	if _, err := hujson.Parse(out); err != nil {
		t.Fatalf("edited document does not parse: %v\n%s", err, out)
	}
	got, _ := decode(out)
	// The standard library cannot decode everything JWCC allows (1e999);
	// such inputs still get the byte checks.
	if want, err := decode(src); err == nil {
		appendWant(want.(map[string]any), key, path)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("edit changed the meaning (-want +got):\n%s\nout:\n%s", diff, out)
		}
	}
	// Every byte but blank space is kept in order: the edit may re-lay the
	// blank inside the container it fills (an empty one-line {\t} becomes
	// {"filesystem": …} without the tab), never a comment or a value.
	if !isSubsequence(unblank(src), unblank(out)) {
		t.Fatalf("edit dropped or reordered input bytes:\nsrc:\n%s\nout:\n%s", src, out)
	}
	start, end := container(t, src, key)
	if string(out[:start]) != string(src[:start]) || !strings.HasSuffix(string(out), string(src[end:])) {
		t.Fatalf("edit changed bytes outside [%d,%d):\nsrc:\n%s\nout:\n%s", start, end, src, out)
	}
}

func decode(b []byte) (any, error) {
	std, err := hujson.Standardize(append([]byte(nil), b...))
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(std, &v)
	return v, err
}

func appendWant(root map[string]any, key, path string) {
	fsys, ok := root["filesystem"].(map[string]any)
	if !ok {
		fsys = map[string]any{}
		root["filesystem"] = fsys
	}
	arr, _ := fsys[key].([]any)
	fsys[key] = append(arr, path)
}

// container returns the offsets of the innermost of root, filesystem and
// filesystem.<key> that exists in src.
func container(t testing.TB, src []byte, key string) (start, end int) {
	v, err := hujson.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	inner := &v
	for _, ptr := range []string{"/filesystem", "/filesystem/" + key} {
		if f := v.Find(ptr); f != nil {
			inner = f
		}
	}
	return inner.StartOffset, inner.EndOffset
}

// unblank is b without spaces, tabs and carriage returns: the blank an
// empty one-line container may hold (see isBlank; a newline would make it
// a multi-line one, which keeps its blank).
func unblank(b []byte) []byte {
	return bytes.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, b)
}

func isSubsequence(sub, s []byte) bool {
	i := 0
	for j := 0; j < len(s) && i < len(sub); j++ {
		if s[j] == sub[i] {
			i++
		}
	}
	return i == len(sub)
}

// TestAddEntryBlankFile: a blank policy file is {} to the loader, so persist
// writes the entry into a new object rather than refusing it as malformed.
func TestAddEntryBlankFile(t *testing.T) {
	for _, src := range []string{"", "  \n\n"} {
		out, present, err := addEntry([]byte(src), "filesystem", "allowRead", "/p")
		if err != nil || present {
			t.Fatalf("addEntry(%q) = present %v, err %v; want the entry added", src, present, err)
		}
		got, err := decode(out)
		if err != nil || fmt.Sprint(got) != "map[filesystem:map[allowRead:[/p]]]" {
			t.Errorf("addEntry(%q) = %s (%v), want {filesystem: {allowRead: [/p]}}", src, out, err)
		}
	}
}
