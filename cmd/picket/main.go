// Command picket is a permission fence for AI coding agents.
//
// Output rules, for every subcommand:
//   - protocol output (hook answers, --json lines, serve responses) goes to
//     stdout and nowhere else;
//   - human messages go to stderr as "picket: error: …", "picket: warning: …"
//     or "picket: hint: …" (a hint says what to do next).
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
