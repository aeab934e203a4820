package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/tui"
)

// promptRequest is a read block of the kind the hook sends.
func promptRequest(dir string) tui.Request {
	return tui.Request{
		Agent: "claude", Session: "5f0c", Cwd: dir,
		Tool: "Read", Access: "read",
		Path: filepath.Join(dir, "innocent", "id_rsa"), Resolved: filepath.Join(dir, ".ssh", "id_rsa"),
		Layer: "boundary", Rule: "outside the workspace", Source: "built-in",
		CanPersist: true, PersistTarget: filepath.Join(dir, "fence.jsonc"),
	}
}

func writeRequest(t *testing.T, r tui.Request) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPromptCLI(t *testing.T) {
	dir := t.TempDir()
	good := writeRequest(t, promptRequest(dir))
	mandatory := promptRequest(dir)
	mandatory.Layer = "mandatory"
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"unknown flag", []string{"prompt", "--bogus"}, "", 2, "", "flag provided but not defined"},
		{"extra argument", []string{"prompt", "read"}, "", 2, "", "picket: error: prompt takes no arguments"},
		{"request that does not parse", []string{"prompt", "--tty", os.DevNull}, "not json", 0, `{"answer":"deny"}` + "\n", "picket: error: failed to parse the prompt request in stdin"},
		{"empty request", []string{"prompt", "--tty", os.DevNull}, "", 0, `{"answer":"deny"}` + "\n", "picket: error: failed to parse"},
		{"request without a path", []string{"prompt", "--tty", os.DevNull}, `{"tool":"Read"}`, 0, `{"answer":"deny"}` + "\n", "names no path"},
		{"missing request file", []string{"prompt", "--request", filepath.Join(dir, "nope.json")}, "", 0, `{"answer":"deny"}` + "\n", "failed to read the prompt request"},
		{"terminal that cannot be opened", []string{"prompt", "--request", good, "--tty", filepath.Join(dir, "no-tty")}, "", 0, `{"answer":"deny"}` + "\n", "failed to open the terminal"},
		{"mandatory layer is never prompted", []string{"prompt", "--tty", os.DevNull}, mustJSON(t, mandatory), 0, `{"answer":"deny"}` + "\n", `layer "mandatory" is never prompted`},
		{"answer file that cannot be written", []string{"prompt", "--request", good, "--tty", filepath.Join(dir, "no-tty"), "--answer", filepath.Join(dir, "missing", "answer.json")}, "", 2, "", "failed to write the answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, nil, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestPromptAnswerFile(t *testing.T) {
	dir := t.TempDir()
	answer := filepath.Join(dir, "answer.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"prompt", "--answer", answer, "--tty", os.DevNull}, nil, strings.NewReader("{"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit = %d, want 0 (stderr %q)", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing: the answer goes to --answer", stdout.String())
	}
	got, err := os.ReadFile(answer)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"answer":"deny"}` + "\n"; string(got) != want {
		t.Errorf("answer file = %q, want %q", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("answer dir has %d entries, want only the answer (no temporary file left)", len(entries))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPromptTmux runs picket prompt in a real terminal: a tmux pane, driven
// with send-keys and read with capture-pane.
func TestPromptTmux(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: builds picket and runs it in tmux")
	}
	bin := filepath.Join(t.TempDir(), "picket")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("enter at once is discarded, enter after the guard denies", func(t *testing.T) {
		t.Parallel()
		p := startPrompt(t, bin, promptRequest(t.TempDir()))
		p.key("Enter")
		time.Sleep(700 * time.Millisecond)
		if _, err := os.Stat(p.answer); err == nil {
			t.Fatalf("an Enter typed within the guard answered the prompt; screen:\n%s", p.screen())
		}
		if s := p.screen(); !strings.Contains(s, "Enter/Esc deny") {
			t.Fatalf("prompt not armed after 700 ms; screen:\n%s", s)
		}
		p.key("Enter")
		p.wantAnswer(tui.AnswerDeny)
	})
	t.Run("a after 600 ms answers once", func(t *testing.T) {
		t.Parallel()
		p := startPrompt(t, bin, promptRequest(t.TempDir()))
		s := p.screen()
		t.Logf("the prompt in an 80x24 tmux pane:\n%s", s)
		if !strings.Contains(s, "(wait…)") {
			t.Errorf("freshly drawn prompt shows no (wait…) marker; screen:\n%s", s)
		}
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("a")
		p.wantAnswer(tui.AnswerOnce)
	})
	t.Run("p then Enter denies", func(t *testing.T) {
		t.Parallel()
		p := startPrompt(t, bin, promptRequest(t.TempDir()))
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("p")
		p.waitScreen("[y/N]")
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("Enter")
		p.wantAnswer(tui.AnswerDeny)
	})
	t.Run("p then y persists", func(t *testing.T) {
		t.Parallel()
		r := promptRequest(t.TempDir())
		r.PersistCreates, r.PersistExtends = true, "code"
		p := startPrompt(t, bin, r)
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("p")
		s := p.waitScreen("[y/N]")
		t.Logf("the persist confirm:\n%s", s)
		if !strings.Contains(s, "it will be created") {
			t.Errorf("confirm does not say the file will be created; screen:\n%s", s)
		}
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("y")
		p.wantAnswer(tui.AnswerPersist)
	})
	t.Run("escape sequences in a path are shown escaped", func(t *testing.T) {
		t.Parallel()
		r := promptRequest(t.TempDir())
		r.Resolved = "/tmp/evil\x1b[2J\nsource  forged"
		p := startPrompt(t, bin, r)
		s := p.screen()
		t.Logf("a path with \\x1b[2J and \\n:\n%s", s)
		if first := strings.SplitN(s, "\n", 2)[0]; first != `/tmp/evil\x1b[2J\nsource  forged` {
			t.Errorf("first line = %q, want the escaped path", first)
		}
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "source  forged") {
				t.Errorf("the path forged a line: %q", l)
			}
		}
		if !strings.Contains(s, "tool    Read") {
			t.Errorf("the rest of the prompt is gone; screen:\n%s", s)
		}
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("d")
		p.wantAnswer(tui.AnswerDeny)
	})
	t.Run("a terminal that goes away denies", func(t *testing.T) {
		t.Parallel()
		p := startPrompt(t, bin, promptRequest(t.TempDir()))
		p.tmux("kill-session", "-t", "prompt")
		p.wantAnswer(tui.AnswerDeny)
	})
	t.Run("a 40-column terminal wraps the path and keeps its tail", func(t *testing.T) {
		t.Parallel()
		r := promptRequest(t.TempDir())
		r.Resolved += "/a/long/tail/that/must/stay/visible/the-end.txt"
		p := startPromptSized(t, bin, r, 40, 24)
		s := p.waitScreen("deny in")
		t.Logf("the prompt in a 40x24 tmux pane:\n%s", s)
		var path string
		for _, l := range strings.Split(s, "\n") {
			if l == "" || strings.HasPrefix(l, "via ") {
				break
			}
			path += l
		}
		if path != r.Resolved {
			t.Errorf("path on screen = %q, want %q", path, r.Resolved)
		}
		time.Sleep(600 * time.Millisecond)
		p.waitArmed()
		p.key("s")
		p.wantAnswer(tui.AnswerSession)
	})
	t.Run("a terminal too small denies", func(t *testing.T) {
		t.Parallel()
		p := startPromptSized(t, bin, promptRequest(t.TempDir()), 15, 6)
		p.wantAnswer(tui.AnswerDeny)
	})
	t.Run("timeout denies", func(t *testing.T) {
		t.Parallel()
		r := promptRequest(t.TempDir())
		r.TimeoutSeconds = 2
		start := time.Now()
		p := startPrompt(t, bin, r)
		p.wantAnswer(tui.AnswerDeny)
		if d := time.Since(start); d < 2*time.Second {
			t.Errorf("answered after %v, before the 2 s timeout", d)
		}
	})
}

// tmuxPrompt is picket prompt running alone in a detached tmux server.
type tmuxPrompt struct {
	t      *testing.T
	socket string
	answer string
}

// startPrompt starts picket prompt for r in an 80x24 tmux pane and waits
// until the prompt is on screen.
func startPrompt(t *testing.T, bin string, r tui.Request) *tmuxPrompt {
	t.Helper()
	p := startPromptSized(t, bin, r, 80, 24)
	p.waitScreen("deny in")
	return p
}

// startPromptSized starts picket prompt for r in a cols x rows tmux pane.
func startPromptSized(t *testing.T, bin string, r tui.Request, cols, rows int) *tmuxPrompt {
	t.Helper()
	dir := t.TempDir()
	p := &tmuxPrompt{
		t:      t,
		socket: fmt.Sprintf("picket-test-%d-%d", os.Getpid(), time.Now().UnixNano()),
		answer: filepath.Join(dir, "answer.json"),
	}
	req := writeRequest(t, r)
	cmd := strings.Join([]string{shellQuote(bin), "prompt", "--request", shellQuote(req), "--answer", shellQuote(p.answer)}, " ")
	p.tmux("new-session", "-d", "-s", "prompt", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), cmd)
	t.Cleanup(func() { _ = p.run("kill-server") })
	return p
}

func (p *tmuxPrompt) run(args ...string) error {
	cmd := exec.Command("tmux", append([]string{"-f", os.DevNull, "-L", p.socket}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (p *tmuxPrompt) tmux(args ...string) {
	p.t.Helper()
	if err := p.run(args...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *tmuxPrompt) key(k string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", "prompt", k)
}

// screen returns the pane's text, trailing blank lines dropped.
func (p *tmuxPrompt) screen() string {
	p.t.Helper()
	cmd := exec.Command("tmux", "-f", os.DevNull, "-L", p.socket, "capture-pane", "-p", "-t", "prompt")
	cmd.Env = tmuxEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

func (p *tmuxPrompt) waitScreen(want string) string {
	p.t.Helper()
	var s string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if s = p.screen(); strings.Contains(s, want) {
			return s
		}
	}
	p.t.Fatalf("screen never showed %q; last screen:\n%s", want, s)
	return ""
}

// waitArmed waits until the prompt's guard is over (the footer no longer
// says "(wait…)"), so a key typed next counts even on a starved machine.
func (p *tmuxPrompt) waitArmed() {
	p.t.Helper()
	var s string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if s = p.screen(); s != "" && !strings.Contains(s, "(wait") {
			return
		}
	}
	p.t.Fatalf("the prompt never armed; screen:\n%s", s)
}

func (p *tmuxPrompt) wantAnswer(want tui.Answer) {
	p.t.Helper()
	var data []byte
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err = os.ReadFile(p.answer); err == nil {
			break
		}
	}
	if err != nil {
		p.t.Fatalf("no answer: %v; screen:\n%s", err, p.screen())
	}
	var got struct{ Answer tui.Answer }
	if err := json.Unmarshal(data, &got); err != nil {
		p.t.Fatalf("answer %q: %v", data, err)
	}
	if got.Answer != want {
		p.t.Errorf("answer = %q, want %q", got.Answer, want)
	}
}

// tmuxEnv is the test's environment without CI (which would make picket
// headless) and without the tmux client variables of a surrounding session.
func tmuxEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CI", "TMUX", "TMUX_PANE", "NO_COLOR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TERM=xterm-256color")
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
