package shellcmd

import (
	"errors"
	"strings"
	"testing"
)

// FuzzAnalyze holds Analyze to its contract on any text: it never
// panics; what it cannot analyse is an UnanalysableError with no result,
// never an empty "touches nothing"; what bash cannot parse is never
// analysed; and every target is absolute.
func FuzzAnalyze(f *testing.F) {
	for _, tt := range analyzeTests {
		f.Add(tt.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		res, err := Analyze(cmd, testEnv())
		if err != nil {
			if !errors.Is(err, ErrUnanalysable) {
				t.Fatalf("Analyze(%q) error %v is not ErrUnanalysable", cmd, err)
			}
			if res.Targets != nil || res.Commands != nil {
				t.Fatalf("Analyze(%q) = %v with error %v", cmd, res, err)
			}
			return
		}
		if _, perr := parse(cmd); perr != nil {
			t.Fatalf("Analyze(%q) analysed what does not parse: %v", cmd, perr)
		}
		for _, tg := range res.Targets {
			if !strings.HasPrefix(tg.Path, "/") {
				t.Fatalf("Analyze(%q) target %q is not absolute", cmd, tg.Path)
			}
		}
	})
}
