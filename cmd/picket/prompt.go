package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/picketdev/picket/tui"
)

func init() { commands["prompt"] = runPrompt }

// runPrompt asks the person at the terminal about one blocked request and
// writes {"answer":"..."} to --answer FILE or stdout. The person is asked on
// the terminal only (--tty, default /dev/tty): stdin and stdout carry the
// request and the answer, never keys or screens. Exit 0 for any answer, deny included (a request that
// cannot be read, a terminal that cannot be opened and every prompt failure
// answer deny); 2 for usage errors or when the answer cannot be written.
func runPrompt(c *cli, args []string) int {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	request := fs.String("request", "", "read the request JSON from `FILE` instead of stdin")
	answer := fs.String("answer", "", "write the answer JSON to `FILE` instead of stdout")
	tty := fs.String("tty", "/dev/tty", "the terminal to prompt on")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("prompt takes no arguments, got %q", fs.Arg(0))
		c.hintf("picket prompt [--request FILE] [--answer FILE] [--tty PATH]")
		return 2
	}
	a := askPerson(c, *request, *tty)
	if err := writePromptAnswer(c, *answer, a); err != nil {
		c.errorf("%v", err)
		return 2
	}
	return 0
}

// askPerson runs the prompt and returns its answer; every failure is a deny.
func askPerson(c *cli, requestFile, ttyPath string) tui.Answer {
	r, err := readPromptRequest(c, requestFile)
	if err != nil {
		c.errorf("%v; answering deny", err)
		return tui.AnswerDeny
	}
	tty, err := os.OpenFile(ttyPath, os.O_RDWR, 0)
	if err != nil {
		c.errorf("failed to open the terminal: %v; answering deny", err)
		return tui.AnswerDeny
	}
	defer tty.Close()
	// A terminal that goes away sends SIGHUP: deny and write the answer
	// rather than die without one.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := tui.Run(ctx, r, tty, tty, tui.Options{NoColor: promptNoColor(c)})
	if err != nil {
		c.warnf("%v; answering %s", err, a)
	}
	return a
}

func readPromptRequest(c *cli, file string) (tui.Request, error) {
	if file == "" {
		return tui.ReadRequest(c.stdin, "stdin")
	}
	f, err := os.Open(file)
	if err != nil {
		return tui.Request{}, fmt.Errorf("failed to read the prompt request: %w", err)
	}
	defer f.Close()
	return tui.ReadRequest(f, file)
}

// promptNoColor follows https://no-color.org and TERM=dumb.
func promptNoColor(c *cli) bool {
	return c.getenv("NO_COLOR") != "" || c.getenv("TERM") == "dumb"
}

// writePromptAnswer writes {"answer":"..."} to file, atomically so a reader
// never sees half an answer, or to stdout when file is empty.
func writePromptAnswer(c *cli, file string, a tui.Answer) error {
	line, err := json.Marshal(struct {
		Answer tui.Answer `json:"answer"`
	}{a})
	if err != nil {
		return fmt.Errorf("failed to encode the answer: %w", err)
	}
	line = append(line, '\n')
	if file == "" {
		_, err := c.stdout.Write(line)
		return err
	}
	return tui.WriteAnswerFile(file, line)
}
