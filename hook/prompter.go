package hook

import (
	"context"
	"os"
	"os/signal"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/tui"
)

// TerminalPrompter is the [Prompter] of picket's own processes: the
// surfaces of package tui (the hook's terminal, a tmux popup, picket
// console), as picket.prompt chooses them.
type TerminalPrompter struct {
	Getenv   func(string) string // the agent's environment
	StateDir string              // picket's state dir: the prompt lock and request files
	// Extend, when set, moves the hook's deadline: a person answering a
	// prompt needs longer than a decision does.
	Extend func(time.Duration)
	// Signals end a prompt on screen when Interrupted is set (the hook,
	// which ignores them outside a prompt): the prompt gives the terminal
	// back as it found it and denies, and the signal is passed on.
	Signals     []os.Signal
	Interrupted chan<- os.Signal
}

// Context bounds one prompt: its own timeout and a margin. It moves the
// hook's deadline past it.
func (t TerminalPrompter) Context(req tui.Request) (context.Context, context.CancelFunc) {
	timeout := time.Duration(req.TimeoutSeconds) * time.Second
	if t.Extend != nil {
		t.Extend(timeout + 2*PromptMargin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+PromptMargin)
	if t.Interrupted == nil {
		return ctx, cancel
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, t.Signals...)
	go func() {
		select {
		case s := <-sigs:
			cancel()
			select {
			case t.Interrupted <- s:
			default:
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Ignore(t.Signals...) // first: it takes sigs off the handlers, so none is reset to the default
		cancel()
	}
}

// Surface is where prompts are shown under loaded's picket.prompt.
func (t TerminalPrompter) Surface(loaded *decide.Loaded) Surface {
	return tui.Asker{
		Surface: loaded.Settings.Prompt.Surface,
		Exe:     loaded.Env.Executable,
		Dir:     t.StateDir,
		Socket:  tui.ConsoleSocket(t.Getenv("XDG_RUNTIME_DIR"), t.StateDir),
		Getenv:  t.Getenv,
		Options: tui.Options{NoColor: t.Getenv("NO_COLOR") != ""},
	}
}
