package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/grants"
)

// TestGrantsSessionPrefix: `grants` names a session as `log` does, by its
// whole id or the first 8 or more characters that `log` shows; a shorter
// prefix matches nothing, and saying so beats printing nothing.
func TestGrantsSessionPrefix(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	store := grants.Store{Dir: grants.DefaultDir(home, filepath.Join(home, "state"))}
	for _, g := range []struct{ session, path string }{
		{"5f0c9a11-aaaa-4000-8000-000000000001", "/a"},
		{"5f0c9a11-bbbb-4000-8000-000000000002", "/b"},
		{"77777777-cccc-4000-8000-000000000003", "/a"},
	} {
		if err := store.Add(g.session, grants.Grant{Access: "read", Path: g.path}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args   []string
		code   int
		lines  int    // of stdout
		stdout string // a substring
		stderr string // a substring, "" for none
	}{
		{[]string{"grants", "--session", "5f0c9a11-aaaa-4000-8000-000000000001"}, 0, 1, "/a", ""},
		{[]string{"grants", "--session", "5f0c9a11"}, 0, 2, "/b", ""},
		{[]string{"grants", "--session", "5f0c9a1"}, 0, 0, "", "first 8 or more characters"},
		{[]string{"grants", "--session", "nosuchsession"}, 0, 0, "", "no grants in a session nosuchsession"},
		{[]string{"grants"}, 0, 3, "77777777-cccc", ""},
		{[]string{"grants", "revoke", "read", "/a", "--session", "7777777"}, 1, 0, "", "no grant of read /a"},
		{[]string{"grants", "revoke", "read", "/a", "--session", "77777777"}, 0, 1, "revoked read /a in 1 session(s)", ""},
		{[]string{"grants"}, 0, 2, "5f0c9a11-aaaa", ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, env, strings.NewReader(""), &stdout, &stderr)
		lines := strings.Count(stdout.String(), "\n")
		if code != tt.code || lines != tt.lines || !strings.Contains(stdout.String(), tt.stdout) ||
			tt.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("picket %q = %d, %d lines %q, stderr %q; want %d, %d lines with %q, stderr with %q",
				tt.args, code, lines, stdout.String(), stderr.String(), tt.code, tt.lines, tt.stdout, tt.stderr)
		}
	}
}
