package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/tui"
)

func init() { commands["console"] = runConsole }

// runConsole listens on the console socket and shows each grant request
// from any of the user's agent sessions, one at a time, with the same
// prompt as every other surface. Run it in a spare terminal.
func runConsole(c *cli, args []string) int {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	sock := fs.String("socket", "", "socket path (default $XDG_RUNTIME_DIR/picket/console.sock)")
	tty := fs.String("tty", "/dev/tty", "the terminal to prompt on")
	pos, code, ok := c.parseFlags(fs, args, false)
	if !ok {
		return code
	}
	if !c.noArgs("console", pos) {
		return 2
	}
	if *sock == "" {
		*sock = tui.ConsoleSocket(c.getenv("XDG_RUNTIME_DIR"), c.stateDir())
	}
	term, err := os.OpenFile(*tty, os.O_RDWR, 0)
	if err != nil {
		c.errorf("picket console needs a terminal: %v", err)
		return 1
	}
	defer term.Close()
	ln, err := listenConsole(*sock)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	defer os.Remove(*sock)
	defer ln.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	go func() { <-ctx.Done(); ln.Close() }()
	fmt.Fprintf(term, "picket console: waiting for grant requests on %s (Ctrl-C to stop)\n", escape.Field(*sock))
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return 0
			}
			c.errorf("accept: %v", err)
			return 1
		}
		serveConsole(c, ctx, conn, term)
	}
}

// listenConsole creates the socket, 0600 in a 0700 directory; a stale
// socket from a dead console is replaced, a live one is an error.
func listenConsole(sock string) (*net.UnixListener, error) {
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, err
	}
	if conn, err := net.Dial("unix", sock); err == nil {
		conn.Close()
		return nil, fmt.Errorf("another picket console is listening on %s", sock)
	}
	os.Remove(sock)
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("failed to listen on %s: %w", sock, err)
	}
	return ln, os.Chmod(sock, 0o600)
}

// serveConsole answers one request. Only the console's own user may ask.
func serveConsole(c *cli, ctx context.Context, conn *net.UnixConn, term *os.File) {
	defer conn.Close()
	reply := func(a tui.Answer) {
		json.NewEncoder(conn).Encode(map[string]tui.Answer{"answer": a})
	}
	if uid, err := tui.PeerUID(conn); err != nil || uid != os.Getuid() {
		reply(tui.AnswerDeny)
		return
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil && !errors.Is(err, context.Canceled) && len(line) == 0 {
		return
	}
	var r tui.Request
	if err := json.Unmarshal(line, &r); err != nil {
		reply(tui.AnswerDeny)
		return
	}
	a, err := tui.Run(ctx, r, term, term, tui.Options{NoColor: c.getenv("NO_COLOR") != ""})
	if err != nil {
		c.warnf("prompt: %v", err)
	}
	reply(a)
	fmt.Fprintf(term, "%s %s %s: %s\n", escape.Field(r.Tool), escape.Field(r.Access), escape.Field(r.Resolved), a)
}
