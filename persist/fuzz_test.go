package persist

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// FuzzAddEntry checks that an edit round-trips: whatever the document, a
// successful edit parses, means the old document plus the one path, keeps
// every input byte in order and leaves the bytes outside the patched member
// unchanged; a second edit finds the path present and changes nothing.
func FuzzAddEntry(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, keyFor(in) == "allowWrite", goldenPath)
	}
	f.Add([]byte(`{"filesystem": {"allowRead": ["/a" // c
]}}`), false, "/a/\"b\"\n")
	f.Add([]byte("{\t}"), true, "/") // the blank of an empty one-line object is re-laid
	f.Add([]byte("{\r}"), true, "/")
	f.Fuzz(func(t *testing.T, src []byte, write bool, path string) {
		if checkPath("read", path) != nil {
			return
		}
		key := "allowRead"
		if write {
			key = "allowWrite"
		}
		out, present, err := addEntry(src, "filesystem", key, path)
		switch {
		case err != nil:
			return
		case present:
			if string(out) != string(src) {
				t.Fatalf("present but changed:\n%s\n%s", src, out)
			}
			return
		case len(bytes.TrimSpace(src)) == 0: // a blank file is {}: the entry goes into a new object
			if got, err := decode(out); err != nil || fmt.Sprint(got) != fmt.Sprint(map[string]any{"filesystem": map[string]any{key: []any{path}}}) {
				t.Fatalf("blank file edited into %s (%v)", out, err)
			}
			return
		}
		checkEdit(t, src, out, key, path)
		again, present, err := addEntry(out, "filesystem", key, path)
		if err != nil || !present || string(again) != string(out) {
			t.Fatalf("second edit: present %v, err %v, changed %v", present, err, string(again) != string(out))
		}
	})
}
