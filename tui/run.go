package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
)

// Run shows the prompt for r on the terminal given by in and out (normally
// one *os.File opened on /dev/tty for both) and returns the answer. It never
// reads or writes anything else. Any failure, including a cancelled ctx, a
// terminal that is too small or whose input ends, answers [AnswerDeny] with
// the error. A request for the mandatory or mode layer is denied at once,
// without drawing.
func Run(ctx context.Context, r Request, in io.Reader, out io.Writer, opts Options) (Answer, error) {
	if neverPrompted(r.Layer) {
		return AnswerDeny, fmt.Errorf("layer %q is never prompted", r.Layer)
	}
	var p *tea.Program
	lost := func(err error) { p.Send(lostMsg{err: err}) }
	p = tea.NewProgram(NewModel(r, opts),
		tea.WithContext(ctx),
		tea.WithInput(watchInput(in, lost)),
		tea.WithOutput(out),
		tea.WithAltScreen(),
		// Signals are the caller's: it ends the prompt through ctx. Bubble
		// Tea's own handler, racing that cancel, could block sending its
		// quit to a loop already gone and hold Run (and the terminal, raw)
		// for good.
		tea.WithoutSignalHandler(),
	)
	final, err := p.Run()
	if err != nil {
		return AnswerDeny, fmt.Errorf("prompt failed: %w", err)
	}
	m, ok := final.(Model)
	if !ok {
		return AnswerDeny, errors.New("prompt failed: unexpected final model")
	}
	if m.Err() != nil {
		return AnswerDeny, m.Err()
	}
	if m.Answer() == "" {
		return AnswerDeny, errors.New("prompt ended without an answer")
	}
	return m.Answer(), nil
}

// watchInput wraps in so that the end of input, which Bubble Tea ignores
// silently, reaches the model and denies at once instead of at the timeout.
// A terminal stays an *os.File underneath, so Bubble Tea still puts it in
// raw mode and can cancel reads from it.
func watchInput(in io.Reader, lost func(error)) io.Reader {
	if f, ok := in.(*os.File); ok {
		return watchedFile{File: f, lost: lost}
	}
	return watchedReader{r: in, lost: lost}
}

type watchedFile struct {
	*os.File
	lost func(error)
}

func (w watchedFile) Read(p []byte) (int, error) {
	n, err := w.File.Read(p)
	if err != nil {
		w.lost(err)
	}
	return n, err
}

type watchedReader struct {
	r    io.Reader
	lost func(error)
}

func (w watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil {
		w.lost(err)
	}
	return n, err
}
