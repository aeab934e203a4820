package tui

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the prompt independent of picket's policy code: it
// shows what it is given and decides nothing, so the hook can run it in a
// separate process and operators embedding decide never pull it in. Of
// picket's packages it imports only escape, the one escaping rule.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/picketdev/picket") && path != "github.com/picketdev/picket/escape" {
				t.Errorf("%s imports %s; tui must not import picket packages but escape", name, path)
			}
		}
	}
}
