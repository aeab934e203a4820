package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRunNeverPrompted(t *testing.T) {
	for _, layer := range []string{"mandatory", "mode"} {
		r := readRequest()
		r.Layer = layer
		var out bytes.Buffer
		a, err := Run(context.Background(), r, strings.NewReader("a"), &out, Options{})
		if a != AnswerDeny || err == nil {
			t.Errorf("Run(layer %s) = %q, %v, want deny and an error", layer, a, err)
		}
		if out.Len() != 0 {
			t.Errorf("Run(layer %s) drew %q, want nothing", layer, out.String())
		}
	}
}

// TestRunInputEnds checks that input that ends (a terminal hung up) denies
// at once, not at the timeout.
func TestRunInputEnds(t *testing.T) {
	in, w := io.Pipe()
	w.Close()
	start := time.Now()
	a, err := Run(context.Background(), readRequest(), in, io.Discard, Options{})
	if a != AnswerDeny || err == nil || !strings.Contains(err.Error(), "terminal lost") {
		t.Errorf("Run with closed input = %q, %v, want deny and terminal lost", a, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run with closed input took %v", d)
	}
}

func TestRunCancelled(t *testing.T) {
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	a, err := Run(ctx, readRequest(), in, io.Discard, Options{})
	if a != AnswerDeny || err == nil {
		t.Errorf("Run with a cancelled context = %q, %v, want deny and an error", a, err)
	}
}

// TestRunAnswers checks the wiring from input bytes to the answer: keys
// written after the guard count.
func TestRunAnswers(t *testing.T) {
	in, w := io.Pipe()
	defer w.Close()
	go func() {
		time.Sleep(200 * time.Millisecond)
		w.Write([]byte("s"))
	}()
	a, err := Run(context.Background(), readRequest(), in, io.Discard, Options{GuardDelay: 50 * time.Millisecond})
	if a != AnswerSession || err != nil {
		t.Errorf("Run = %q, %v, want session", a, err)
	}
}
