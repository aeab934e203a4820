package audit

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/picketdev/picket/escape"
)

// palette holds the colours of [Format]. It is built once and never
// changed; the renderer's profile is fixed so colour does not depend on
// where os.Stdout points.
// palette is built on first use: lipgloss renderers are not free, and
// most processes that link this package (every hook call) never format.
var palette = sync.OnceValue(newPalette)

type styles struct {
	faint, path, layer, reason lipgloss.Style
	decision                   map[string]lipgloss.Style
	other                      lipgloss.Style
}

func newPalette() styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	c := func(color string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(color)) }
	return styles{
		faint:  r.NewStyle().Faint(true),
		path:   r.NewStyle().Bold(true),
		layer:  c("6"),
		reason: c("3"),
		decision: map[string]lipgloss.Style{
			"block":         c("1").Bold(true),
			"error":         c("5").Bold(true),
			"grant-once":    c("2"),
			"grant-session": c("2"),
			"grant-persist": c("2").Bold(true),
			"allow":         c("2"),
		},
		other: c("3"),
	}
}

// Format renders e as one line for people: time, session, decision, tool,
// access, path, then where the decision came from. Every field goes through
// [escape.Field], so no value can end the line, move the cursor, recolour
// the terminal or pose as two columns. With color, it adds ANSI colours.
func Format(e Entry, color bool) string {
	paint := func(s lipgloss.Style, text string) string {
		if !color || text == "" {
			return text
		}
		return s.Render(text)
	}
	dec := palette().other
	if s, ok := palette().decision[e.Decision]; ok {
		dec = s
	}
	cols := []string{
		paint(palette().faint, e.TS.UTC().Format("2006-01-02 15:04:05")),
		paint(palette().faint, pad(escape.Field(short(e.Session)), 8)),
		paint(dec, pad(escape.Field(e.Decision), 13)),
		pad(escape.Field(e.Tool), 9),
		pad(escape.Field(e.Access), 5),
		paint(palette().path, escape.Field(e.Path)),
	}
	if e.Resolved != "" && e.Resolved != e.Path {
		cols = append(cols, "-> "+escape.Field(e.Resolved))
	}
	if src := origin(e); src != "" {
		cols = append(cols, paint(palette().layer, src))
	}
	for _, kv := range details(e) {
		cols = append(cols, paint(palette().reason, kv))
	}
	return strings.TrimRight(strings.Join(cols, "  "), " ")
}

// origin is "layer rule pattern (source)", each part escaped.
func origin(e Entry) string {
	var parts []string
	for _, s := range []string{e.Layer, e.Rule} {
		if s != "" {
			parts = append(parts, escape.Field(s))
		}
	}
	if e.Pattern != "" {
		parts = append(parts, "pattern="+escape.Field(e.Pattern))
	}
	if e.Source != "" {
		parts = append(parts, "("+escape.Field(e.Source)+")")
	}
	return strings.Join(parts, " ")
}

func details(e Entry) []string {
	var out []string
	if e.Prompted {
		out = append(out, "prompted")
	}
	if e.Command != "" {
		out = append(out, "command="+escape.Field(e.Command))
	}
	if e.Cwd != "" {
		out = append(out, "cwd="+escape.Field(e.Cwd))
	}
	if e.Exit != nil {
		out = append(out, "exit="+strconv.Itoa(*e.Exit))
	}
	if e.Run != "" {
		out = append(out, "run="+escape.Field(e.Run))
	}
	if e.Reason != "" {
		out = append(out, "reason="+escape.Field(e.Reason))
	}
	if e.Agent != "" && e.Agent != "claude" {
		out = append(out, "agent="+escape.Field(e.Agent))
	}
	return out
}

// short keeps the start of a session id: enough to tell sessions apart.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
