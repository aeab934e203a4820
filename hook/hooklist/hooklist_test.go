package hooklist

import (
	"strings"
	"testing"
)

type entry struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

type group struct {
	Matcher string  `json:"matcher"`
	Hooks   []entry `json:"hooks"`
}

func isPicket(name, command string) bool { return name == "picket" }

var groups = []Group{
	{"Pre", group{"^x$", []entry{{"picket", "picket hook"}}}},
	{"Post", group{"", []entry{{"picket", "picket hook"}}}},
}

// TestRoundTrip appends picket's groups to settings with comments, a tab
// indent, trailing commas and a person's own hook, and takes them out
// again: every byte comes back.
func TestRoundTrip(t *testing.T) {
	for _, in := range []string{
		"",
		"{}\n",
		"{\n\t// mine\n\t\"theme\": \"dark\",\n}\n",
		"{\n\t\"hooks\": {\n\t\t\"Pre\": [\n\t\t\t{\"hooks\": [{\"name\": \"mine\", \"command\": \"x\"}]}, // kept\n\t\t],\n\t},\n}\n",
		`{"hooks": {"Post": [], "Other": [{"hooks": []}]}}`,
	} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Append(groups); err != nil {
			t.Fatal(err)
		}
		wired := d.Pack()
		if strings.Count(string(wired), `"picket"`) != 2 {
			t.Errorf("%q: picket's entries missing:\n%s", in, wired)
		}
		d, err = Parse(wired)
		if err != nil {
			t.Fatalf("%q wired does not parse: %v\n%s", in, err, wired)
		}
		if ok, err := d.Holds(groups, isPicket); err != nil || !ok {
			t.Errorf("%q: Holds = %v, %v after Append", in, ok, err)
		}
		if took, err := d.Remove(isPicket); err != nil || !took {
			t.Fatalf("%q: Remove = %v, %v", in, took, err)
		}
		got := string(d.Pack())
		if strings.TrimSpace(in) == "" || in == "{}\n" {
			if !d.Empty() {
				t.Errorf("%q: not empty after Remove:\n%s", in, got)
			}
			continue
		}
		if in == `{"hooks": {"Post": [], "Other": [{"hooks": []}]}}` {
			continue // the emptied Post list goes with picket's group
		}
		if got != in {
			t.Errorf("round trip changed the file:\n%s\nwant:\n%s", got, in)
		}
	}
}

func TestErrors(t *testing.T) {
	for in, want := range map[string]string{
		"[]":                         "not a JSON object",
		`{"hooks": 1}`:               `"hooks" is not an object`,
		`{"hooks": {"Pre": {}}}`:     `"hooks.Pre" is not a list`,
		`{"hooks": {}, "hooks": {}}`: `"hooks" twice`,
		`{"hooks": {"Pre": [], }`:    "invalid settings JSON",
	} {
		d, err := Parse([]byte(in))
		if err == nil {
			err = d.Append(groups)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}
