package shellcmd

import (
	"testing"
)

func TestCommandPolicy(t *testing.T) {
	no := false
	tests := []struct {
		p     CommandPolicy
		cmd   string
		block string // the rule, "" for allowed
	}{
		{CommandPolicy{Deny: []string{"git push"}}, "git push origin main", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "git status && git push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "echo x | git push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "bash -c 'git push'", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "sh -lc \"ls && git push\"", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "/usr/bin/git push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "g\"it\" p'ush'", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "sudo env FOO=1 nice git push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "git --no-pager push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "git -C dir push", "git push"},
		{CommandPolicy{Deny: []string{"git push"}}, "git pushx", ""},
		{CommandPolicy{Deny: []string{"git push"}}, "git log push", ""},
		{CommandPolicy{Deny: []string{"git push"}, Allow: []string{"git push origin docs"}}, "git push origin docs", ""},
		{CommandPolicy{Deny: []string{"git push"}, Allow: []string{"git push origin docs"}}, "git push origin main", "git push"},
		{CommandPolicy{Deny: []string{"git push"}, Allow: []string{"git push origin docs"}}, "f=$(cat b); git push origin $f", "git push"},
		{CommandPolicy{Deny: []string{"rm -rf"}}, "rm -rf /", "rm -rf"},
		{CommandPolicy{Deny: []string{"rm -rf"}}, "rm -r -f /", ""},
		{CommandPolicy{}, "shutdown now", "shutdown"},
		{CommandPolicy{}, "dd of=/dev/sda if=/dev/zero", "dd if="},
		{CommandPolicy{}, "docker --debug run --privileged x", "docker run --privileged"},
		{CommandPolicy{}, "timeout 5 reboot", "reboot"},
		{CommandPolicy{}, "mkfs.ext4 /dev/sdb", "mkfs.ext4"},
		{CommandPolicy{UseDefaults: &no}, "shutdown now", ""},
		{CommandPolicy{}, "ls -la", ""},
	}
	for _, tt := range tests {
		res, err := Analyze(tt.cmd, testEnv())
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.cmd, err)
			continue
		}
		b := tt.p.Check(res.Commands)
		got := ""
		if b != nil {
			got = b.Rule
		}
		if got != tt.block {
			t.Errorf("%+v.Check(%q) = %v, want %q", tt.p, tt.cmd, b, tt.block)
		}
	}
}

func TestPolicyFromRaw(t *testing.T) {
	p, err := PolicyFromRaw(map[string]any{
		"command": map[string]any{"deny": []any{"git push"}, "allow": []any{"git push origin docs"}, "useDefaults": false},
		"ssh":     map[string]any{"allowedHosts": []any{"*.x.com"}, "deniedCommands": []any{"rm"}, "allowAllCommands": true, "inheritDeny": true},
	})
	if err != nil || len(p.Deny) != 1 || len(p.Allow) != 1 || p.UseDefaults == nil || *p.UseDefaults ||
		len(p.SSH.AllowedHosts) != 1 || len(p.SSH.DeniedCommands) != 1 || !p.SSH.AllowAllCommands || !p.SSH.InheritDeny {
		t.Errorf("PolicyFromRaw = %+v, %v", p, err)
	}
	if p, err := PolicyFromRaw(map[string]any{}); err != nil || p.UseDefaults != nil || p.Deny != nil {
		t.Errorf("PolicyFromRaw(no section) = %+v, %v", p, err)
	}
	for _, bad := range []map[string]any{
		{"command": "x"},
		{"command": map[string]any{"deny": "git push"}},
		{"command": map[string]any{"deny": []any{1}}},
		{"command": map[string]any{"useDefaults": "no"}},
		{"ssh": []any{}},
		{"ssh": map[string]any{"allowedHosts": "x"}},
		{"ssh": map[string]any{"inheritDeny": "yes"}},
	} {
		if _, err := PolicyFromRaw(bad); err == nil {
			t.Errorf("PolicyFromRaw(%v): no error", bad)
		}
	}
}

func TestSSHPolicy(t *testing.T) {
	allow := SSHPolicy{AllowedHosts: []string{"*.example.com", "prod-*"}, DeniedHosts: []string{"bad.example.com"}, AllowedCommands: []string{"ls", "cat", "git status"}}
	deny := SSHPolicy{AllowedHosts: []string{"*"}, AllowAllCommands: true, DeniedCommands: []string{"rm -rf", "shutdown"}, InheritDeny: true}
	tests := []struct {
		p     CommandPolicy
		cmd   string
		field string // "" for allowed
	}{
		{CommandPolicy{}, "ssh anyhost rm -rf /", ""}, // no ssh section: not filtered
		{CommandPolicy{SSH: allow}, "ssh a.example.com", ""},
		{CommandPolicy{SSH: allow}, "ssh -p 2222 -i key me@a.example.com ls -la", ""},
		{CommandPolicy{SSH: allow}, "ssh a.example.com 'ls && git status'", ""},
		{CommandPolicy{SSH: allow}, "ssh a.example.com 'ls; rm -rf /'", "ssh.allowedCommands"},
		{CommandPolicy{SSH: allow}, "ssh bad.example.com ls", "ssh.deniedHosts"},
		{CommandPolicy{SSH: allow}, "ssh evil.org ls", "ssh.allowedHosts"},
		{CommandPolicy{SSH: allow}, "ssh PROD-db ls", ""},
		{CommandPolicy{SSH: allow}, "sudo ssh evil.org", "ssh.allowedHosts"},
		{CommandPolicy{SSH: allow}, "h=$(cat hosts); ssh $h ls", "ssh.allowedHosts"},
		{CommandPolicy{SSH: allow}, "ssh a.example.com 'eval x'", "ssh.allowedCommands"},
		{CommandPolicy{SSH: deny}, "ssh host make test", ""},
		{CommandPolicy{SSH: deny}, "ssh host sudo rm -rf /tmp/x", "ssh.deniedCommands"},
		{CommandPolicy{SSH: deny}, "ssh host 'cd /; shutdown now'", SourceDefault}, // inherited denies first, as fence
		{CommandPolicy{SSH: deny}, "ssh host 'cd /; rm -rf /'", "ssh.deniedCommands"},
		{CommandPolicy{SSH: deny, Deny: []string{"git push"}}, "ssh host git push", "command.deny"},
		{CommandPolicy{SSH: deny}, "ssh host reboot", SourceDefault},
	}
	for _, tt := range tests {
		res, err := Analyze(tt.cmd, testEnv())
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.cmd, err)
			continue
		}
		b := tt.p.Check(res.Commands)
		got := ""
		if b != nil {
			got = b.Field
		}
		if got != tt.field {
			t.Errorf("Check(%q) = %v, want a block from %q", tt.cmd, b, tt.field)
		}
	}
}
