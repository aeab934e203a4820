package sandbox

import (
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

func TestFileToolsOnly(t *testing.T) {
	p := decide.MustCompile(decide.Spec{Root: "/w", Home: "/h",
		DenyRead:  decide.Rules("test", "~/.aws", "**/*.pem"),
		DenyWrite: decide.Rules("test", "**/.env"),
		Blocklist: decide.Rules("test", "id_rsa*"),
		Permissions: []decide.Permission{
			{Pattern: "**/.env", Permission: decide.LevelView, Source: "test"},
			{Pattern: "out/**", Permission: decide.LevelWrite, Source: "test"},
		},
	})
	l := &decide.Loaded{Policy: p, Raw: map[string]any{
		"network": map[string]any{"allowedDomains": []any{"github.com"}},
		"command": map[string]any{"deny": []any{"git push"}},
		"ssh":     map[string]any{},
	}}
	var got []string
	for _, n := range FileToolsOnly(l) {
		got = append(got, n.Field+" "+n.Pattern)
	}
	want := []string{"filesystem.denyRead **/*.pem", "filesystem.denyWrite **/.env", "picket.blocklist id_rsa*",
		"picket.permissions **/.env", "picket.permissions ", "command "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("FileToolsOnly = %q, want %q", got, want)
	}
	lines := strings.Join(ShowLines(l, Status{Bwrap: "/usr/bin/bwrap", UserNS: true, Landlock: 7}), "\n")
	for _, s := range []string{"Landlock ABI 7", "over the whole workspace, home", "up to 20000 entries each", "network through picket's filtering proxy only", "allowed: github.com; denied: none", "commands are not filtered"} {
		if !strings.Contains(lines, s) {
			t.Errorf("ShowLines does not say %q:\n%s", s, lines)
		}
	}
}

// TestShowNetwork: without a network section a command has no network at
// all; with one, show says how it is filtered.
func TestShowNetwork(t *testing.T) {
	p := decide.MustCompile(decide.Spec{Root: "/w", Home: "/h"})
	none := strings.Join(ShowLines(&decide.Loaded{Policy: p, Raw: map[string]any{}}, Status{}), "\n")
	if !strings.Contains(none, "no network at all") {
		t.Errorf("ShowLines without a network section:\n%s", none)
	}
	l := &decide.Loaded{Policy: p, Raw: map[string]any{"network": map[string]any{
		"allowedDomains": []any{"*.example.com"}, "deniedDomains": []any{"bad.example.com"},
		"allowLocalOutbound": true, "allowLocalOutboundPorts": []any{5432.0},
	}}}
	lines := strings.Join(ShowLines(l, Status{}), "\n")
	for _, s := range []string{"allowed: *.example.com; denied: bad.example.com", "put to the person", "allowed for loopback, private and unique-local", "port 5432 on the sandbox's loopback"} {
		if !strings.Contains(lines, s) {
			t.Errorf("ShowLines does not say %q:\n%s", s, lines)
		}
	}
	if strings.Contains(lines, "NOT enforced") {
		t.Errorf("ShowLines still says filtering is not enforced:\n%s", lines)
	}
}
