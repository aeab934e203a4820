package claude

import "testing"

// TestCommandExe reads back the executable of every hook command
// HookCommand writes, quotes and all, and nothing from another command.
func TestCommandExe(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", "/opt/my picket/picket", "/home/o'neil/bin/picket", "/a/$HOME/`x`"} {
		if got := commandExe(HookCommand(exe)); got != exe {
			t.Errorf("commandExe(HookCommand(%q)) = %q", exe, got)
		}
	}
	for _, cmd := range []string{"picket hook --agent claude", "'/a/b' x hook --agent claude", "/a/b; rm -rf / hook --agent claude", "'/a/b hook --agent claude"} {
		if got := commandExe(cmd); got != "" {
			t.Errorf("commandExe(%q) = %q, want none", cmd, got)
		}
	}
}
