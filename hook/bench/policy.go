// Package bench measures what picket's hook costs an agent on every tool
// call: starting the process, loading the policy and deciding.
//
// Run it with a fixed count, since each iteration is three process starts:
//
//	go test ./hook/bench -run '^$' -bench HookStartup -benchtime 300x
//
// It reports the medians and 90th percentiles of `picket hook` on a
// typical PreToolUse Read against a 100-rule policy and of a minimal Go
// program that reads stdin and prints {}, run interleaved so all see the
// same machine load, and their ratio. The hook is built as the README
// installs it (CGO_ENABLED=0, static) and decides in its own process, as
// it does in use; there is no daemon. For comparison it also runs the
// hook as `go build` makes it by default (cgo: the dynamic loader runs on
// every start). The target is a ratio of at most 2.5.
package bench

import (
	"fmt"
	"strings"
)

// Policy100 is the code template plus 100 rules of the kinds people write:
// 50 "**/" read denies, 30 write-denied globs under a literal directory
// and 20 blocklist names. The startup benchmark here and the in-process
// one in cmd/picket judge against it.
func Policy100() string {
	var deny, write, block []string
	for i := range 50 {
		deny = append(deny, fmt.Sprintf("%q", fmt.Sprintf("**/private-%d/**", i)))
	}
	for i := range 30 {
		write = append(write, fmt.Sprintf("%q", fmt.Sprintf("generated/gen-%d/*.go", i)))
	}
	for i := range 20 {
		block = append(block, fmt.Sprintf("%q", fmt.Sprintf("*.secret%d", i)))
	}
	return fmt.Sprintf(`// 100 rules on top of the code template.
{
  "extends": "code",
  "filesystem": {
    "denyRead": [%s],
    "denyWrite": [%s]
  },
  "picket": {"blocklist": [%s]}
}
`, strings.Join(deny, ", "), strings.Join(write, ", "), strings.Join(block, ", "))
}
