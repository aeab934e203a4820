package codex

import (
	"encoding/json"
	"fmt"

	"github.com/picketdev/picket/hook"
)

// wired is the Agent's Wired: picket's groups in $CODEX_HOME/hooks.json
// and in the project's .codex/hooks.json, each run as Codex runs a hook,
// through $SHELL -lc.
func wired(o hook.InstallOptions) ([]hook.Wiring, error) {
	var out []hook.Wiring
	seen := map[string]bool{}
	for _, project := range []bool{false, true} {
		oo := o
		oo.User, oo.Project = !project, project
		t, err := where(oo)
		if err != nil {
			return out, err
		}
		if seen[t.hooks] {
			continue
		}
		seen[t.hooks] = true
		b, err := readOrEmpty(t.hooks)
		if err != nil {
			return out, err
		}
		if _, err := parseHooks(b); err != nil {
			return out, fmt.Errorf("%s: %w (Codex runs none of its hooks)", t.hooks, err)
		}
		scope := map[bool]string{false: "user", true: "project"}[project]
		cmds, _ := HookCommands(b)
		for _, c := range cmds {
			exe, _, _ := ParseHookCommand(c)
			out = append(out, hook.Wiring{Scope: scope, File: t.hooks, Exe: exe, Run: []string{loginShell(o.Getenv), "-lc", c}})
		}
	}
	return out, nil
}

// loginShell is the shell Codex runs hooks with: $SHELL, else /bin/sh.
func loginShell(getenv func(string) string) string {
	if s := getenv("SHELL"); s != "" {
		return s
	}
	return "/bin/sh"
}

// canary is the Agent's Canary: apply_patch adding path, as Codex 0.171.0
// hands it to a PreToolUse hook.
func canary(dir, path string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "picket-doctor", "turn_id": "picket-doctor", "transcript_path": nil, "cwd": dir,
		"hook_event_name": EventPreToolUse, "model": "", "permission_mode": "default",
		"tool_name": "apply_patch", "tool_use_id": "picket-doctor",
		"tool_input": map[string]string{"command": "*** Begin Patch\n*** Add File: " + path + "\n+picket doctor's canary\n*** End Patch\n"},
	})
	return b
}
