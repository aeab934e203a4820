package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func fixedClock() time.Time { return t0 }

// key builds the message Bubble Tea sends for a key, named as
// tea.KeyMsg.String spells it.
func key(name string) tea.KeyMsg {
	switch name {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEscape}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

func readRequest() Request {
	return Request{
		Agent: "claude", Session: "5f0c", Cwd: "/home/me/proj",
		Tool: "Read", Access: "read",
		Path: "/home/me/.ssh/id_rsa", Resolved: "/home/me/.ssh/id_rsa",
		Layer: "boundary", Rule: "outside the workspace",
		Source:     "built-in",
		CanPersist: true, PersistTarget: "/home/me/proj/fence.jsonc",
	}
}

func batchRequest() Request {
	r := readRequest()
	r.Batch = []BatchItem{
		{Tool: "Read", Access: "read", Path: "/home/me/.ssh/id_rsa", Resolved: "/home/me/.ssh/id_rsa", Rule: "outside the workspace"},
		{Tool: "Read", Access: "read", Path: "/home/me/.aws/credentials", Resolved: "/home/me/.aws/credentials", Rule: "picket.blocklist"},
		{Tool: "Edit", Access: "write", Path: "/home/me/proj/link/x", Resolved: "/etc/x", Rule: "outside the workspace"},
	}
	return r
}

// drive sends msgs to a fresh model in order and returns the result.
func drive(r Request, msgs ...tea.Msg) Model {
	m := NewModel(r, Options{Now: fixedClock})
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

// armed is the message that ends the first guard.
var armed = armMsg{id: 1}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		msgs []tea.Msg
		want Answer
	}{
		{"key before the guard is discarded", readRequest(), []tea.Msg{key("a")}, ""},
		{"buffered enter before the guard is discarded", readRequest(), []tea.Msg{key("enter")}, ""},
		{"key discarded before the guard stays discarded", readRequest(), []tea.Msg{key("a"), armed}, ""},
		{"a after the guard answers once", readRequest(), []tea.Msg{armed, key("a")}, AnswerOnce},
		{"s answers session", readRequest(), []tea.Msg{armed, key("s")}, AnswerSession},
		{"d denies", readRequest(), []tea.Msg{armed, key("d")}, AnswerDeny},
		{"enter denies", readRequest(), []tea.Msg{armed, key("enter")}, AnswerDeny},
		{"esc denies", readRequest(), []tea.Msg{armed, key("esc")}, AnswerDeny},
		{"ctrl+c denies even during the guard", readRequest(), []tea.Msg{key("ctrl+c")}, AnswerDeny},
		{"other keys are ignored", readRequest(), []tea.Msg{armed, key("x"), key("S"), key("y")}, ""},
		{"a pasted a is ignored", readRequest(), []tea.Msg{armed, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Paste: true}}, ""},
		{"stale arm tick is dropped", readRequest(), []tea.Msg{armMsg{id: 0}, armMsg{id: 2}, key("a")}, ""},
		{"first answer sticks", readRequest(), []tea.Msg{armed, key("d"), key("a")}, AnswerDeny},

		{"p then y persists", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("y")}, AnswerPersist},
		{"p then Y persists", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("Y")}, AnswerPersist},
		{"p then n denies", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("n")}, AnswerDeny},
		{"p then enter denies", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("enter")}, AnswerDeny},
		{"p then esc denies", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("esc")}, AnswerDeny},
		{"p then another key denies", readRequest(), []tea.Msg{armed, key("p"), armMsg{id: 2}, key("a")}, AnswerDeny},
		{"confirm has its own guard", readRequest(), []tea.Msg{armed, key("p"), key("y")}, ""},
		{"confirm guard ignores the first guard's tick", readRequest(), []tea.Msg{armed, key("p"), armed, key("y")}, ""},
		{"p without CanPersist is ignored", func() Request { r := readRequest(); r.CanPersist = false; return r }(),
			[]tea.Msg{armed, key("p"), armMsg{id: 2}, key("y")}, ""},

		{"batch i answers individually", batchRequest(), []tea.Msg{armed, key("i")}, AnswerIndividually},
		{"batch A allows all once", batchRequest(), []tea.Msg{armed, key("A")}, AnswerAllowAllOnce},
		{"batch a allows all once", batchRequest(), []tea.Msg{armed, key("a")}, AnswerAllowAllOnce},
		{"batch d denies all", batchRequest(), []tea.Msg{armed, key("d")}, AnswerDenyAll},
		{"batch enter denies all", batchRequest(), []tea.Msg{armed, key("enter")}, AnswerDenyAll},
		{"batch esc denies all", batchRequest(), []tea.Msg{armed, key("esc")}, AnswerDenyAll},
		{"batch s is ignored", batchRequest(), []tea.Msg{armed, key("s"), key("p")}, ""},
		{"batch enter before the guard is discarded", batchRequest(), []tea.Msg{key("enter")}, ""},

		{"timeout tick denies", readRequest(), []tea.Msg{clockMsg{at: t0.Add(60 * time.Second)}}, AnswerDeny},
		{"tick before the timeout does not", readRequest(), []tea.Msg{clockMsg{at: t0.Add(59 * time.Second)}}, ""},
		{"timeout denies the confirm", readRequest(), []tea.Msg{armed, key("p"), clockMsg{at: t0.Add(time.Minute)}}, AnswerDeny},
		{"timeout denies a batch", batchRequest(), []tea.Msg{clockMsg{at: t0.Add(time.Minute)}}, AnswerDenyAll},
		{"custom timeout", func() Request { r := readRequest(); r.TimeoutSeconds = 2; return r }(),
			[]tea.Msg{clockMsg{at: t0.Add(2 * time.Second)}}, AnswerDeny},

		{"resize to a usable size keeps prompting", readRequest(), []tea.Msg{tea.WindowSizeMsg{Width: 40, Height: 24}, armed, key("a")}, AnswerOnce},
		{"resize to too narrow denies", readRequest(), []tea.Msg{tea.WindowSizeMsg{Width: 19, Height: 24}}, AnswerDeny},
		{"resize to too short denies", readRequest(), []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 7}}, AnswerDeny},
		{"resize shorter than the prompt denies", readRequest(), []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 9}}, AnswerDeny},
		{"a short terminal drops blank lines", readRequest(), []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 11}, armed, key("a")}, AnswerOnce},
		{"lost terminal denies", readRequest(), []tea.Msg{lostMsg{err: errTest}}, AnswerDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := drive(tt.req, tt.msgs...).Answer(); got != tt.want {
				t.Errorf("Answer() = %q, want %q", got, tt.want)
			}
		})
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("read /dev/tty: input/output error")

// TestUpdateQuits checks that every answer ends the program, and that
// Update returns no command once answered.
func TestUpdateQuits(t *testing.T) {
	m := drive(readRequest(), armed)
	next, cmd := m.Update(key("s"))
	if cmd == nil {
		t.Fatal("Update(s) returned no command, want tea.Quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("Update(s) command = %T, want tea.QuitMsg", cmd())
	}
	if _, cmd := next.Update(key("a")); cmd != nil {
		t.Errorf("Update after the answer returned a command")
	}
}

func TestUpdateErr(t *testing.T) {
	tests := []struct {
		name string
		msgs []tea.Msg
		want string // substring of Err(), "" for nil
	}{
		{"answered", []tea.Msg{armed, key("d")}, ""},
		{"timeout", []tea.Msg{clockMsg{at: t0.Add(time.Hour)}}, ""},
		{"tiny", []tea.Msg{tea.WindowSizeMsg{Width: 10, Height: 5}}, "terminal too small (10x5"},
		{"too short for the request", []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 9}}, "whole request"},
		{"lost", []tea.Msg{lostMsg{err: errTest}}, "terminal lost"},
	}
	for _, tt := range tests {
		err := drive(readRequest(), tt.msgs...).Err()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Err() = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Err() = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestCountdown(t *testing.T) {
	tests := []struct {
		at   time.Duration
		want string
	}{
		{0, "deny in 60s"},
		{500 * time.Millisecond, "deny in 60s"},
		{time.Second, "deny in 59s"},
		{59*time.Second + 1, "deny in 1s"},
	}
	for _, tt := range tests {
		v := drive(readRequest(), clockMsg{at: t0.Add(tt.at)}).View()
		if !strings.Contains(v, tt.want) {
			t.Errorf("View() at %v does not contain %q:\n%s", tt.at, tt.want, v)
		}
	}
}

func TestGuardMarker(t *testing.T) {
	opts := Options{Now: fixedClock, NoColor: true}
	m := NewModel(readRequest(), opts)
	if v := m.View(); !strings.Contains(v, "(wait…)") {
		t.Errorf("unarmed View() has no (wait…) marker:\n%s", v)
	}
	next, _ := m.Update(armed)
	if v := next.View(); strings.Contains(v, "(wait…)") {
		t.Errorf("armed View() still shows (wait…):\n%s", v)
	}
}
