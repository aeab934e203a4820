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
	p, err := PolicyFromRaw(map[string]any{"command": map[string]any{"deny": []any{"git push"}, "allow": []any{"git push origin docs"}, "useDefaults": false}})
	if err != nil || len(p.Deny) != 1 || len(p.Allow) != 1 || p.UseDefaults == nil || *p.UseDefaults {
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
	} {
		if _, err := PolicyFromRaw(bad); err == nil {
			t.Errorf("PolicyFromRaw(%v): no error", bad)
		}
	}
}
