package tui

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The prompt surfaces, in the order "auto" tries them.
const (
	SurfaceAuto    = "auto"
	SurfaceTTY     = "tty"
	SurfaceTmux    = "tmux"
	SurfaceConsole = "console"
	SurfaceOff     = "off"
)

// ErrNoSurface means no surface could reach a person: the caller is
// headless and every block is final.
var ErrNoSurface = errors.New("no prompt surface reaches a person")

// Asker finds a way to a person from a hook process that has no terminal of
// its own (Claude Code gives hooks pipes and no /dev/tty) and asks there.
type Asker struct {
	Surface string              // auto, tty, tmux, console or off
	Exe     string              // picket's executable, run in a tmux popup
	Dir     string              // picket's state dir: the prompt lock and request files
	Socket  string              // picket console's socket
	Getenv  func(string) string // the hook's environment
	Options Options
}

// Ask shows r on the first surface that works and returns the answer and
// the surface used. Prompts from concurrent hook processes are serialized
// by one lock per user, so at most one is on screen; waiting for it counts
// against ctx. Every failure after a surface was chosen is a deny.
func (a Asker) Ask(ctx context.Context, r Request) (Answer, string, error) {
	if neverPrompted(r.Layer) {
		return AnswerDeny, "", fmt.Errorf("layer %q is never prompted", r.Layer)
	}
	unlock, err := a.Lock(ctx)
	if err != nil {
		return AnswerDeny, "", err
	}
	defer unlock()
	return a.AskLocked(ctx, r)
}

// Lock takes the per-user prompt lock [Asker.Ask] takes, waiting until ctx
// is done, and returns its release. A caller that must look at what the
// previous prompt decided (an identical request's answer) before prompting
// takes it, looks, and then calls [Asker.AskLocked].
func (a Asker) Lock(ctx context.Context) (unlock func(), err error) {
	return a.lock(ctx)
}

// AskLocked is [Asker.Ask] for a caller that holds the prompt lock.
func (a Asker) AskLocked(ctx context.Context, r Request) (Answer, string, error) {
	if neverPrompted(r.Layer) {
		return AnswerDeny, "", fmt.Errorf("layer %q is never prompted", r.Layer)
	}
	surfaces := []string{a.Surface}
	if a.Surface == "" || a.Surface == SurfaceAuto {
		surfaces = []string{SurfaceTTY, SurfaceTmux, SurfaceConsole}
	}
	for _, s := range surfaces {
		ans, err := a.try(ctx, s, r)
		if errors.Is(err, errUnavailable) {
			continue
		}
		return ans, s, err
	}
	return AnswerDeny, "", ErrNoSurface
}

// errUnavailable means a surface cannot be used here; the next is tried.
var errUnavailable = errors.New("surface unavailable")

func (a Asker) try(ctx context.Context, surface string, r Request) (Answer, error) {
	switch surface {
	case SurfaceTTY:
		return a.tty(ctx, r)
	case SurfaceTmux:
		return a.tmux(ctx, r)
	case SurfaceConsole:
		return a.console(ctx, r)
	}
	return AnswerDeny, errUnavailable
}

// lock takes the per-user prompt lock, waiting until ctx is done.
func (a Asker) lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(a.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(a.Dir, "prompt.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waited for another prompt: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tty prompts on /dev/tty, unless there is none or the agent itself reads
// it (then keys would go to whichever reads first).
func (a Asker) tty(ctx context.Context, r Request) (Answer, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return AnswerDeny, errUnavailable
	}
	defer f.Close()
	if ancestorReads(f) {
		return AnswerDeny, errUnavailable
	}
	return Run(ctx, r, f, f, a.Options)
}

// tmux runs `picket prompt` in a popup on the client attached to the
// agent's pane and reads the answer back from a file. With no attached
// client display-popup fails and the next surface is tried. While another
// popup is open, display-popup returns at once and shows nothing: a missing
// answer is a deny.
func (a Asker) tmux(ctx context.Context, r Request) (Answer, error) {
	if a.getenv("TMUX") == "" || a.Exe == "" {
		return AnswerDeny, errUnavailable
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return AnswerDeny, errUnavailable
	}
	dir := filepath.Join(a.Dir, "prompts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return AnswerDeny, err
	}
	id := randomID()
	reqFile, ansFile := filepath.Join(dir, id+".request.json"), filepath.Join(dir, id+".answer.json")
	defer os.Remove(reqFile)
	defer os.Remove(ansFile)
	if err := writeJSON(reqFile, r); err != nil {
		return AnswerDeny, err
	}
	// The popup's command runs under the tmux server's shell and
	// environment, not the hook's: pass what the prompt needs explicitly.
	cmd := "exec env -u CI " + noColorEnv(a.Options) + shellQuote(a.Exe) + " prompt --request " + shellQuote(reqFile) + " --answer " + shellQuote(ansFile)
	args := []string{"display-popup", "-E", "-w", "90%", "-h", "80%"}
	if pane := a.getenv("TMUX_PANE"); pane != "" {
		args = append(args, "-t", pane)
	}
	args = append(args, cmd)
	popup := exec.CommandContext(ctx, "tmux", args...)
	popup.Env = os.Environ()
	if out, err := popup.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return AnswerDeny, ctx.Err()
		}
		_ = out
		return AnswerDeny, errUnavailable
	}
	return readAnswer(ansFile)
}

func noColorEnv(o Options) string {
	if o.NoColor {
		return "NO_COLOR=1 "
	}
	return ""
}

// console hands the request to a running `picket console` over its unix
// socket and waits for the answer.
func (a Asker) console(ctx context.Context, r Request) (Answer, error) {
	if a.Socket == "" {
		return AnswerDeny, errUnavailable
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", a.Socket)
	if err != nil {
		return AnswerDeny, errUnavailable
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := json.NewEncoder(conn).Encode(r); err != nil {
		return AnswerDeny, err
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return AnswerDeny, fmt.Errorf("picket console did not answer: %w", err)
	}
	return parseAnswer(line)
}

func (a Asker) getenv(k string) string {
	if a.Getenv == nil {
		return os.Getenv(k)
	}
	return a.Getenv(k)
}

func readAnswer(file string) (Answer, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return AnswerDeny, errors.New("the prompt gave no answer (another popup may be open)")
	}
	return parseAnswer(b)
}

func parseAnswer(b []byte) (Answer, error) {
	var v struct {
		Answer Answer `json:"answer"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return AnswerDeny, fmt.Errorf("unreadable answer: %w", err)
	}
	switch v.Answer {
	case AnswerDeny, AnswerOnce, AnswerSession, AnswerPersist, AnswerDenyAll, AnswerAllowAllOnce, AnswerIndividually:
		return v.Answer, nil
	}
	return AnswerDeny, fmt.Errorf("unknown answer %q", v.Answer)
}

func writeJSON(file string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o600)
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ConsoleSocket is where `picket console` listens:
// $XDG_RUNTIME_DIR/picket/console.sock, else console.sock in picket's state
// dir.
func ConsoleSocket(runtimeDir, stateDir string) string {
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		return filepath.Join(runtimeDir, "picket", "console.sock")
	}
	return filepath.Join(stateDir, "console.sock")
}

// PeerUID returns the uid of the process at the other end of a unix socket.
func PeerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var serr error
	err = raw.Control(func(fd uintptr) { uid, serr = peerUID(int(fd)) })
	if err == nil {
		err = serr
	}
	return uid, err
}
