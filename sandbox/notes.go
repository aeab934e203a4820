package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
)

// Note is one thing the shell sandbox cannot enforce for a policy, for
// picket lint and picket show. Pattern and Source are empty when the note
// is about a whole section.
type Note struct {
	Field   string `json:"field"` // "filesystem.denyWrite", "network.allowedDomains", ...
	Pattern string `json:"pattern,omitempty"`
	Source  string `json:"source,omitempty"`
	Msg     string `json:"msg"`
}

// FileToolsOnly lists the rules of l that the shell sandbox enforces only
// partly or not at all, so they protect the file tools only: glob rules
// for files created after a command starts, picket.permissions and
// picket.writeGuards, network domains (not filtered yet), and fence's
// command and ssh sections (not enforced at all). It reads no filesystem.
func FileToolsOnly(l *decide.Loaded) []Note {
	s := l.Policy.Spec()
	var out []Note
	globs := []struct {
		field string
		rules []decide.Rule
		what  string
	}{
		{"filesystem.denyRead", s.DenyRead, "hidden"},
		{"filesystem.denyWrite", s.DenyWrite, "read-only"},
		{"picket.blocklist", s.Blocklist, "hidden"},
	}
	for _, g := range globs {
		for _, r := range g.rules {
			if g.field == "picket.blocklist" || hasMeta(r.Pattern) {
				out = append(out, Note{Field: g.field, Pattern: r.Pattern, Source: r.Source,
					Msg: fmt.Sprintf("the shell sandbox makes existing matches %s when a command starts; a file created later that only this pattern names is fenced for the file tools only", g.what)})
			}
		}
	}
	for _, r := range restricting(s.Permissions) {
		if hasMeta(r.Pattern) {
			out = append(out, Note{Field: "picket.permissions", Pattern: r.Pattern, Source: r.Source,
				Msg: "the shell sandbox makes existing matches this rule keeps from being read hidden when a command starts; a file created later that only this pattern names is fenced for the file tools only"})
		}
	}
	if slices.ContainsFunc(s.Permissions, func(pm decide.Permission) bool { return pm.Permission != decide.LevelWrite }) {
		out = append(out, Note{Field: "picket.permissions", Msg: "what picket.permissions keep from being read is hidden in the shell too; the writes they deny, only the file tools deny"})
	}
	if g := s.WriteGuards; g.MaxBytes > 0 || len(g.DenyExtensions) > 0 || g.ReadBeforeEdit {
		out = append(out, Note{Field: "picket.writeGuards", Msg: "picket.writeGuards applies to the file tools only"})
	}
	if n := network(l.Raw); len(n.allowedDomains) > 0 {
		out = append(out, Note{Field: "network.allowedDomains", Msg: "with allowedDomains set the shell sandbox keeps the host's network: domain filtering is not enforced yet (" + strings.Join(n.allowedDomains, ", ") + ")"})
	}
	for _, sec := range []struct{ field, msg string }{
		{"command", "commands are not filtered: picket run enforces none of this section (command.deny, command.allow); it is accepted for fence"},
		{"ssh", "ssh hosts and remote commands are not filtered: picket run enforces none of this section; it is accepted for fence"},
	} {
		if m, _ := l.Raw[sec.field].(map[string]any); len(m) > 0 {
			out = append(out, Note{Field: sec.field, Msg: sec.msg})
		}
	}
	return out
}

// ShowLines are the shell sandbox's lines for picket show: whether it
// works here, the expansion bound, the network, and what it leaves to the
// file tools.
func ShowLines(l *decide.Loaded, st Status) []string {
	depth, entries := Bounds(l.Settings.Sandbox)
	lines := []string{
		st.String(),
		fmt.Sprintf("shell sandbox: glob patterns are expanded when a command starts, over the workspace and home, at most %d levels deep and %d entries in each (the directories patterns name first; picket.sandbox.expandMaxDepth, expandMaxEntries)", depth, entries),
	}
	n := network(l.Raw)
	switch {
	case len(n.allowedDomains) == 0:
		lines = append(lines, "shell sandbox: no network (network.allowedDomains is empty)")
	default:
		lines = append(lines, "shell sandbox: network on, domain filtering NOT enforced yet (network.allowedDomains: "+strings.Join(n.allowedDomains, ", ")+")")
	}
	if n.allowAll {
		lines = append(lines, "shell sandbox: every unix socket is reachable (network.allowAllUnixSockets)")
	} else if len(n.allowSockets) > 0 {
		lines = append(lines, "shell sandbox: unix sockets bound through: "+strings.Join(n.allowSockets, ", "))
	}
	for _, note := range FileToolsOnly(l) {
		if note.Pattern == "" {
			lines = append(lines, "shell sandbox: "+note.Msg)
		}
	}
	return lines
}

// EnvLines say, for picket show, which variables of env (as os.Environ
// gives it) a sandboxed command does not get under s, and which s lets
// through on purpose; stripped are those names, sorted.
func EnvLines(s decide.SandboxSettings, env []string) (stripped, lines []string) {
	_, stripped = s.Environ(env)
	slices.Sort(stripped)
	stripped = slices.Compact(stripped)
	switch {
	case len(s.StripEnv) == 0:
		lines = append(lines, "shell sandbox: commands get every variable of the environment (picket.sandbox.stripEnv is empty)")
	case len(stripped) == 0:
		lines = append(lines, fmt.Sprintf("shell sandbox: of this environment's variables, none is stripped from commands (picket.sandbox.stripEnv: %d patterns)", len(s.StripEnv)))
	default:
		lines = append(lines, fmt.Sprintf("shell sandbox: stripped from commands here: %s (picket.sandbox.stripEnv: %d patterns)", strings.Join(stripped, ", "), len(s.StripEnv)))
	}
	if len(s.KeepEnv) > 0 {
		lines = append(lines, "shell sandbox: let through on purpose: "+strings.Join(s.KeepEnv, ", ")+" (picket.sandbox.keepEnv)")
	}
	return stripped, lines
}
