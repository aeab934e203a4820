package decide

import (
	"embed"
	"sort"
	"strings"
)

//go:embed templates/*.jsonc
var templateFS embed.FS

// DefaultTemplate is the policy used when no fence config exists anywhere.
const DefaultTemplate = "code"

// Templates lists the built-in template names.
func Templates() []string {
	entries, _ := templateFS.ReadDir("templates")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".jsonc"))
	}
	sort.Strings(names)
	return names
}

// Template returns the source of a built-in template.
func Template(name string) ([]byte, bool) {
	b, err := templateFS.ReadFile("templates/" + name + ".jsonc")
	return b, err == nil
}
