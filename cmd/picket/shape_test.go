package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// TestCommandIsThin keeps cmd/picket what it should be: the flags and the
// wiring of library packages, run(args, env, stdin, stdout, stderr). The
// product lives in the packages; a command that grows past 2,000 lines,
// or a type that keeps gaining methods (the cli struct once had 72), is
// the sign that a package is missing.
func TestCommandIsThin(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	lines := 0
	methods := map[string]int{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(src, []byte("\n"))
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					methods[id.Name]++
				}
			}
		}
	}
	if lines > 2000 {
		t.Errorf("cmd/picket has %d lines of non-test code, want at most 2,000: move the product into a package", lines)
	}
	for typ, n := range methods {
		if n > 15 {
			t.Errorf("type %s has %d methods, want at most 15", typ, n)
		}
	}
}

// TestHookStaysLean keeps packages out of the binary whose initialisation
// every `picket hook` call would pay for without using them: net/http
// brought crypto/tls, crypto/x509 and their init work (3.02 against 2.71
// ms a hook call). The network proxy reads HTTP itself (egress/proxy).
func TestHookStaysLean(t *testing.T) {
	deps := testenv.Deps(t, "github.com/picketdev/picket/cmd/picket")
	for _, dep := range deps {
		switch dep {
		case "net/http", "net/http/httputil", "crypto/tls", "crypto/x509":
			t.Errorf("cmd/picket links %s", dep)
		}
	}
}
