package proxy

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/picketdev/picket/escape"
)

// notices writes the line a refused client's command sees on its stderr,
// once per host, port and reason: a client that retries is told once.
type notices struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

func (n *notices) say(d Decision, fix string) {
	if n.w == nil {
		return
	}
	line := blockLine(d, fix)
	n.mu.Lock()
	defer n.mu.Unlock()
	key := d.Host.HostPort(d.Port) + "\x00" + d.Reason
	if n.seen[key] {
		return
	}
	n.seen[key] = true
	fmt.Fprintln(n.w, escape.Text(line))
}

// blockLine is the one-line account of a refused connection:
// "picket: blocked a connection to evil.example:443: no
// network.allowedDomains entry names evil.example; add ...".
func blockLine(d Decision, fix string) string {
	what := "blocked a connection to"
	if d.Outcome == "error" {
		what = "could not connect to"
	}
	parts := []string{fmt.Sprintf("picket: %s %s", what, d.Host.HostPort(d.Port)), d.Reason}
	if fix != "" {
		parts = append(parts, "to allow it, "+fix)
	}
	return strings.Join(parts, ": ")
}

// body is the text of the HTTP response that refuses d: the host, the
// rule, why, and what to change, each line escaped.
func body(d Decision, fix string) string {
	lines := []string{fmt.Sprintf("picket blocked this request to %s.", d.Host.HostPort(d.Port))}
	if d.Rule != "" {
		rule := "rule: " + d.Rule
		if d.Entry != "" {
			rule += fmt.Sprintf(" (entry %q)", d.Entry)
		}
		lines = append(lines, rule)
	}
	lines = append(lines, "why: "+d.Reason)
	if fix != "" {
		lines = append(lines, "to allow it: "+fix)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(escape.Text(l) + "\n")
	}
	return b.String()
}
