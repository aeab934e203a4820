package patch

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParse holds Parse to its contract on any text: it never panics, a
// patch it cannot read is an error with no target (the caller denies it),
// an accepted patch has a target, and every path on a line that names one
// ("*** Add File: ", "*** Delete File: ", "*** Update File: " after white
// space, "*** Move to: " as it stands or trimmed) is among the targets.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := Parse(text)
		if err != nil {
			if got != nil {
				t.Fatalf("Parse(%q) = %v with error %v", text, got, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("Parse(%q) accepted a patch with no target", text)
		}
		have := map[string]bool{}
		for _, g := range got {
			have[g.Path] = true
		}
		for _, want := range namedPaths(text) {
			if !have[want] {
				t.Fatalf("Parse(%q) = %v, missing %q", text, got, want)
			}
		}
	})
}

// namedPaths is the fuzz oracle: the paths any line of text names, read
// without Parse's code.
func namedPaths(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		trimmed := strings.TrimSpace(l)
		for _, m := range []string{addMarker, deleteMarker, updateMarker, moveMarker} {
			if rest, ok := strings.CutPrefix(trimmed, m); ok && rest != "" {
				out = append(out, rest)
			}
		}
		if rest, ok := strings.CutPrefix(l, moveMarker); ok && rest != "" {
			out = append(out, rest)
		}
	}
	return slices.Compact(out)
}
