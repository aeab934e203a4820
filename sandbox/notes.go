package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
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
// picket.writeGuards, and fence's command and ssh sections (not enforced
// at all). It reads no filesystem.
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
	budget, system := Budget(l.Settings.Sandbox)
	lines := []string{
		st.String(),
		fmt.Sprintf("shell sandbox: glob patterns and blocklist names are matched when a command starts over the whole workspace, home and the directories allowWrite and allowRead name; a tree not read within %v is hidden until a later command reads it", budget),
		fmt.Sprintf("shell sandbox: other directories that patterns name are read up to %d entries each (picket.sandbox.expandMaxEntries); matches past that are fenced for the file tools only", system),
	}
	n := network(l.Raw)
	lines = append(lines, networkLines(l)...)
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
	return append(lines, WalkLines(l, filepath.Join(l.Env.StateDir(), "sandbox"))...)
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

// networkLines say how a sandboxed command reaches the network: not at all
// without a network section, else through picket's filtering proxy only.
func networkLines(l *decide.Loaded) []string {
	if !egress.InForce(l.Raw) {
		return []string{"shell sandbox: no network at all (the policy has no network section; add one, \"network\": {\"allowedDomains\": [...]}, to reach hosts through picket's filtering proxy)"}
	}
	p, err := egress.FromRaw(l.Raw, l.Policy.Spec().Sources["network"])
	if err != nil {
		return []string{"shell sandbox: network section not usable, so commands do not run: " + err.Error()}
	}
	h, s := p.Ports()
	lines := []string{fmt.Sprintf("shell sandbox: network through picket's filtering proxy only (its own network namespace; HTTP and CONNECT on 127.0.0.1:%d, SOCKS5 on 127.0.0.1:%d, in HTTP_PROXY, HTTPS_PROXY and ALL_PROXY); a program that ignores those variables has no network", h, s)}
	lines = append(lines, "shell sandbox: allowed: "+entryList(p.Allow)+"; denied: "+entryList(p.Deny))
	switch {
	case p.DefaultAction == "proxy" && p.Upstream != nil:
		lines = append(lines, "shell sandbox: hosts no entry names go to network.upstreamProxy "+p.Upstream.Host)
	default:
		lines = append(lines, "shell sandbox: a host no entry names is put to the person when one can be asked (this command, this session, or persist into network.allowedDomains), else refused")
	}
	local := "refused (allowLocalOutbound is off): an allowed name that resolves to a loopback, private, unique-local or link-local address, unless the address itself is listed"
	if p.LocalOutbound {
		local = "allowed for loopback, private and unique-local addresses (allowLocalOutbound); link-local ones (cloud metadata) only when the address is listed"
	}
	lines = append(lines, "shell sandbox: local addresses: "+local)
	for _, b := range p.BridgedPorts() {
		lines = append(lines, fmt.Sprintf("shell sandbox: port %d on the sandbox's loopback reaches the host's (allowLocalOutboundPorts)", b))
	}
	return lines
}

func entryList(es []egress.Entry) string {
	if len(es) == 0 {
		return "none"
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Text)
	}
	return strings.Join(out, ", ")
}

// WalkLines are picket show's lines about the last walk kept in cacheDir
// for l's policy: the trees it hides because it could not read them in
// time, and the system directories whose walk stopped at its bound.
func WalkLines(l *decide.Loaded, cacheDir string) []string {
	x, ok := KeptWalk(l, cacheDir)
	if !ok {
		return nil
	}
	var lines []string
	if len(x.Unwalked) > 0 {
		lines = append(lines, fmt.Sprintf("shell sandbox: %d tree(s) not read in time are hidden until a command reads them: %s", len(x.Unwalked), strings.Join(x.Unwalked, ", ")))
	}
	if len(x.Truncated) > 0 {
		lines = append(lines, "shell sandbox: glob matches past the walk's bound are fenced for the file tools only under "+strings.Join(x.Truncated, ", "))
	}
	return lines
}
