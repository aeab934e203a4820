package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Options tune a prompt. The zero value is ready to use.
type Options struct {
	// Now is the clock; nil means time.Now. The model reads it once, in
	// NewModel; later readings arrive as messages from the tick command.
	Now func() time.Time
	// GuardDelay is how long keys are discarded after the prompt, or the
	// persist confirm, is drawn; zero means 500 ms.
	GuardDelay time.Duration
	// NoColor drops every style: View then contains no escape sequence.
	NoColor bool
	// Width is the terminal width to lay out for until the first
	// tea.WindowSizeMsg arrives; zero means 80.
	Width int
}

// The smallest terminal the prompt draws in; smaller ones get a deny.
const (
	minWidth  = 20
	minHeight = 8
)

type stage int

const (
	stageAsk     stage = iota // the request, with its options
	stageConfirm              // the second step of persist
)

// armMsg ends a guard. Only the message carrying the current id arms the
// options: a tick left over from an earlier guard is dropped.
type armMsg struct{ id int }

// clockMsg carries a reading of the clock, for the countdown and the timeout.
type clockMsg struct{ at time.Time }

// lostMsg reports that the terminal's input ended or failed.
type lostMsg struct{ err error }

// Model is the prompt's Bubble Tea model. Build it with [NewModel].
type Model struct {
	req      Request
	opts     Options
	stage    stage
	armed    bool
	armID    int
	now      time.Time
	deadline time.Time
	width    int
	height   int // 0 until the terminal reports its size
	answer   Answer
	err      error
}

// NewModel returns a prompt for r, unarmed, with its timeout counted from
// opts.Now().
func NewModel(r Request, opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.GuardDelay <= 0 {
		opts.GuardDelay = 500 * time.Millisecond
	}
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if r.TimeoutSeconds <= 0 {
		r.TimeoutSeconds = DefaultTimeoutSeconds
	}
	now := opts.Now()
	return Model{
		req:      r,
		opts:     opts,
		armID:    1,
		now:      now,
		deadline: now.Add(time.Duration(r.TimeoutSeconds) * time.Second),
		width:    opts.Width,
	}
}

// Init starts the guard and the countdown.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.arm(), m.tick())
}

// Answer returns the answer given, or "" while the prompt is still open.
func (m Model) Answer() Answer { return m.answer }

// Err says why the prompt ended without the person answering (a terminal too
// small or gone), or nil.
func (m Model) Err() error { return m.err }

// Update handles one message. It is pure: time arrives in messages.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.answer != "" {
		return m, nil
	}
	switch msg := msg.(type) {
	case armMsg:
		if msg.id == m.armID {
			m.armed = true
		}
		return m, nil
	case clockMsg:
		m.now = msg.at
		if !m.now.Before(m.deadline) {
			return m.finish(m.denyAnswer(), nil)
		}
		return m, m.tick()
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m.checkFits()
	case lostMsg:
		return m.finish(m.denyAnswer(), fmt.Errorf("terminal lost: %w", msg.err))
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m.finish(m.denyAnswer(), nil)
	}
	if !m.armed || k.Paste {
		return m, nil
	}
	switch {
	case m.stage == stageConfirm:
		return m.confirmKey(k.String())
	case len(m.req.Batch) > 0:
		return m.batchKey(k.String())
	}
	return m.askKey(k.String())
}

func (m Model) askKey(k string) (tea.Model, tea.Cmd) {
	switch k {
	case "a":
		return m.finish(AnswerOnce, nil)
	case "s":
		return m.finish(AnswerSession, nil)
	case "p":
		if m.req.CanPersist {
			return m.toConfirm()
		}
	case "d", "enter", "esc":
		return m.finish(AnswerDeny, nil)
	}
	return m, nil
}

func (m Model) batchKey(k string) (tea.Model, tea.Cmd) {
	switch k {
	case "i":
		return m.finish(AnswerIndividually, nil)
	case "a", "A":
		return m.finish(AnswerAllowAllOnce, nil)
	case "d", "enter", "esc":
		return m.finish(AnswerDenyAll, nil)
	}
	return m, nil
}

// confirmKey answers the persist confirm: only y persists, any other key
// denies.
func (m Model) confirmKey(k string) (tea.Model, tea.Cmd) {
	if k == "y" || k == "Y" {
		return m.finish(AnswerPersist, nil)
	}
	return m.finish(AnswerDeny, nil)
}

// toConfirm shows the persist confirm behind a fresh guard; the old guard's
// tick, if still on its way, carries a stale id.
func (m Model) toConfirm() (tea.Model, tea.Cmd) {
	m.stage = stageConfirm
	m.armed = false
	m.armID++
	if next, cmd := m.checkFits(); cmd != nil {
		return next, cmd
	}
	return m, m.arm()
}

// checkFits denies when the terminal cannot show the whole prompt: the
// renderer would cut lines, and nobody should grant what they cannot see.
func (m Model) checkFits() (tea.Model, tea.Cmd) {
	if m.height == 0 {
		return m, nil
	}
	if m.width < minWidth || m.height < minHeight {
		return m.finish(m.denyAnswer(), fmt.Errorf("terminal too small (%dx%d, need at least %dx%d)", m.width, m.height, minWidth, minHeight))
	}
	if n := len(m.lines()); n > m.height {
		return m.finish(m.denyAnswer(), fmt.Errorf("terminal too small to show the whole request (%d rows, need %d)", m.height, n))
	}
	return m, nil
}

func (m Model) finish(a Answer, err error) (tea.Model, tea.Cmd) {
	m.answer = a
	m.err = err
	return m, tea.Quit
}

// denyAnswer is the answer of Enter, Esc, Ctrl-C and the timeout.
func (m Model) denyAnswer() Answer {
	if len(m.req.Batch) > 0 {
		return AnswerDenyAll
	}
	return AnswerDeny
}

func (m Model) arm() tea.Cmd {
	id := m.armID
	return tea.Tick(m.opts.GuardDelay, func(time.Time) tea.Msg { return armMsg{id: id} })
}

// tick reads the clock when the countdown next changes by a whole second.
func (m Model) tick() tea.Cmd {
	d := m.deadline.Sub(m.now) % time.Second
	if d <= 0 {
		d = time.Second
	}
	now := m.opts.Now
	return tea.Tick(d, func(time.Time) tea.Msg { return clockMsg{at: now()} })
}

// remaining is the countdown shown, in whole seconds rounded up.
func (m Model) remaining() int {
	left := m.deadline.Sub(m.now)
	if left <= 0 {
		return 0
	}
	return int((left + time.Second - 1) / time.Second)
}
