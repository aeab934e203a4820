package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxWidth caps the layout width on wide terminals, for readability.
const maxWidth = 100

// labelWidth is the width of the label column ("pattern ").
const labelWidth = 8

// View draws the prompt. Every field of the request goes through [Escape]
// first; wrapping is done here, by display width, because Bubble Tea cuts
// lines wider than the terminal.
func (m Model) View() string {
	if m.answer != "" {
		return ""
	}
	return strings.Join(m.lines(), "\n")
}

// lines lays out the current stage, dropping the blank separator lines when
// the terminal is too short for them.
func (m Model) lines() []string {
	var out []string
	switch {
	case m.stage == stageConfirm:
		out = m.confirmLines()
	case len(m.req.Batch) > 0:
		out = m.batchLines()
	case m.req.Kind == KindNetwork:
		out = m.networkLines()
	default:
		out = m.askLines()
	}
	if m.height > 0 && len(out) > m.height {
		out = nonEmpty(out...)
	}
	return out
}

func (m Model) askLines() []string {
	r := m.req
	out := m.pathLines(r.Resolved, r.Path, "", m.cols())
	out = append(out, "")
	out = append(out, m.field("tool", r.Tool)...)
	out = append(out, m.field("access", r.Access)...)
	out = append(out, m.field("layer", r.Layer)...)
	out = append(out, m.field("rule", r.Rule)...)
	out = append(out, m.field("pattern", r.Pattern)...)
	out = append(out, m.field("source", r.Source)...)
	out = append(out, m.who()...)
	out = append(out, "", fmt.Sprintf("Allow %s of this path?", Escape(orDash(r.Access))))
	items := []string{"[a] once", "[s] this session"}
	if r.CanPersist {
		items = append(items, "[p] persist")
	}
	items = append(items, "[d] deny")
	out = append(out, m.options(items)...)
	if !r.CanPersist && r.PersistNote != "" {
		out = append(out, wordwrap(Escape(r.PersistNote), m.cols())...)
	}
	return append(out, m.status("Enter/Esc deny")...)
}

// networkLines ask about one connection: the destination first, then
// what it resolved to, the command that asked, and the rule.
func (m Model) networkLines() []string {
	r := m.req
	out := m.pathLines(r.Resolved, "", "", m.cols())
	out = append(out, "")
	out = append(out, m.field("address", strings.Join(r.Addrs, ", "))...)
	out = append(out, m.field("command", r.Command)...)
	out = append(out, m.field("via", r.Via)...)
	out = append(out, m.field("rule", r.Rule)...)
	out = append(out, m.field("source", r.Source)...)
	out = append(out, m.who()...)
	out = append(out, "", fmt.Sprintf("Allow connections to %s, on any port?", Escape(orDash(r.Host))))
	items := []string{"[a] this command", "[s] this session"}
	if r.CanPersist {
		items = append(items, "[p] persist")
	}
	items = append(items, "[d] deny")
	out = append(out, m.options(items)...)
	if !r.CanPersist && r.PersistNote != "" {
		out = append(out, wordwrap(Escape(r.PersistNote), m.cols())...)
	}
	return append(out, m.status("Enter/Esc deny")...)
}

func (m Model) batchLines() []string {
	b := m.req.Batch
	head, question, allOnce := "%d requests blocked this turn:", "Allow all of them?", "[a] allow all once"
	if m.req.Kind == KindNetwork {
		head, question, allOnce = "%d hosts this command reached for:", "Allow all of them, for this command?", "[a] allow all"
	}
	out := []string{fmt.Sprintf(head, len(b))}
	for i, it := range b {
		num := fmt.Sprintf("%d. ", i+1)
		out = append(out, m.pathLines(it.Resolved, it.Path, num, m.cols())...)
		detail := strings.Join(nonEmpty(Escape(it.Tool), Escape(it.Access), Escape(it.Rule)), " · ")
		out = append(out, indent(wrap(detail, m.cols()-len(num)), strings.Repeat(" ", len(num)))...)
	}
	out = append(out, "")
	out = append(out, m.who()...)
	if m.req.Kind == KindNetwork {
		out = append(out, m.field("command", m.req.Command)...)
	}
	out = append(out, "", question)
	out = append(out, m.options([]string{"[i] one by one", allOnce, "[d] deny all"})...)
	return append(out, m.status("Enter/Esc deny all")...)
}

func (m Model) confirmLines() []string {
	r := m.req
	out := []string{"Persist"}
	shown := r.Resolved
	if r.Kind == KindNetwork {
		shown = r.Host // the entry is the host, for every port
	}
	out = append(out, m.pathLines(shown, "", "", m.cols())...)
	file := r.PersistTarget
	if r.PersistResolved != "" {
		file = r.PersistResolved
	}
	out = append(out, indentFirst(wrap(Escape(file)+"? [y/N]", m.cols()-3), "to ", "   ")...)
	if file != r.PersistTarget {
		out = append(out, indentFirst(wrap(Escape(r.PersistTarget), m.cols()-7), "   via ", "       ")...)
	}
	out = append(out, "")
	note := fmt.Sprintf("This allows %s of this path in every later session.", Escape(orDash(r.Access)))
	if r.Kind == KindNetwork {
		note = fmt.Sprintf("This adds \"%s\" to network.allowedDomains: commands of every later session may connect to it, on any port.", Escape(r.Host))
	}
	out = append(out, wordwrap(note, m.cols())...)
	if r.PersistCreates {
		note = fmt.Sprintf("%s does not exist yet: it will be created, extending %q.",
			Escape(filepath.Base(r.PersistTarget)), Escape(r.PersistExtends))
		out = append(out, wordwrap(note, m.cols())...)
	}
	out = append(out, "")
	out = append(out, m.options([]string{"[y] yes, persist", "[N] no, deny"})...)
	return append(out, m.status("any other key denies")...)
}

// pathLines shows resolved (or requested, if resolved is empty) in bold,
// whole and wrapped, then "via requested" when the spellings differ.
func (m Model) pathLines(resolved, requested, prefix string, cols int) []string {
	shown := resolved
	if shown == "" {
		shown = requested
	}
	pad := strings.Repeat(" ", len(prefix))
	var out []string
	for _, l := range wrap(Escape(orDash(shown)), cols-len(prefix)) {
		out = append(out, m.bold(l))
	}
	out = indentFirst(out, prefix, pad)
	if requested != "" && requested != shown {
		via := indentFirst(wrap(Escape(requested), cols-len(prefix)-4), "via ", "    ")
		out = append(out, indent(via, pad)...)
	}
	return out
}

// field is one "label  value" row; an empty value shows no row.
func (m Model) field(label, value string) []string {
	if value == "" {
		return nil
	}
	head := label + strings.Repeat(" ", labelWidth-len(label))
	return indentFirst(wrap(Escape(value), m.cols()-labelWidth), head, strings.Repeat(" ", labelWidth))
}

// who names the agent, session and working directory.
func (m Model) who() []string {
	r := m.req
	agent := Escape(r.Agent)
	if r.Session != "" {
		agent = strings.Join(nonEmpty(agent, "session "+Escape(r.Session)), " · ")
	}
	var out []string
	if agent != "" {
		head := "agent" + strings.Repeat(" ", labelWidth-len("agent"))
		out = indentFirst(wrap(agent, m.cols()-labelWidth), head, strings.Repeat(" ", labelWidth))
	}
	return append(out, m.field("cwd", r.Cwd)...)
}

// options flows the key hints into lines, dimmed until the guard is over.
func (m Model) options(items []string) []string {
	out := flow(items, m.cols())
	if !m.armed {
		for i := range out {
			out[i] = m.dim(out[i])
		}
	}
	return out
}

// status says whether keys count yet and when the prompt gives up. The
// "(wait…)" marker shows the guard without colour.
func (m Model) status(armedHint string) []string {
	first := armedHint
	if !m.armed {
		first = "(wait…) keys ignored"
	}
	return flow([]string{first, fmt.Sprintf("deny in %ds", m.remaining())}, m.cols())
}

func (m Model) cols() int {
	return min(m.width, maxWidth)
}

func (m Model) bold(s string) string {
	if m.opts.NoColor {
		return s
	}
	return ansi.NewStyle().Bold().Styled(s)
}

func (m Model) dim(s string) string {
	if m.opts.NoColor {
		return s
	}
	return ansi.NewStyle().Faint().Styled(s)
}

// wrap hard-wraps text by display width, keeping every character.
func wrap(s string, width int) []string {
	return strings.Split(ansi.Hardwrap(s, max(width, 1), true), "\n")
}

// wordwrap wraps prose at spaces, breaking words only when they are longer
// than a line.
func wordwrap(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, max(width, 1), ""), "\n")
}

// flow joins items with two spaces, starting a new line when the next item
// would not fit.
func flow(items []string, width int) []string {
	var out []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case ansi.StringWidth(line)+2+ansi.StringWidth(it) <= width:
			line += "  " + it
		default:
			out = append(out, line)
			line = it
		}
	}
	return append(out, line)
}

func indentFirst(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if i == 0 {
			out[i] = first + l
		} else {
			out[i] = rest + l
		}
	}
	return out
}

func indent(lines []string, pad string) []string {
	return indentFirst(lines, pad, pad)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
