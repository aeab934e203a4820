package sandbox

import (
	"errors"
	"fmt"
)

// setupAttempts is how many times a command is planned and started when
// bubblewrap cannot finish the sandbox's setup because a path it mounts
// changed since the walk (temp files and build trees change all the
// time); past it picket gives up, and the command has not run.
const setupAttempts = 3

// RunReplanned runs cmd under plan, and under a fresh plan from replan
// each time bubblewrap could not set the sandbox up: nothing ran then, so
// starting again runs the command once, under a plan of the tree as it is.
func RunReplanned(plan Plan, replan func() (Plan, error), r Runner, cmd []string) (int, error) {
	for attempt := 1; ; attempt++ {
		code, err := Run(plan, r, cmd)
		var se *SetupError
		if !errors.As(err, &se) {
			return code, err
		}
		if attempt == setupAttempts {
			if r.Stderr != nil {
				r.Stderr.Write(se.Message) // the last attempt's, naming the path
			}
			return 0, fmt.Errorf("%w, %d times in a row", err, attempt)
		}
		if plan, err = replan(); err != nil {
			return 0, err
		}
	}
}
