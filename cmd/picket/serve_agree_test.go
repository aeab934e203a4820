package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolCall is one file tool call in one agent's spelling.
type toolCall struct {
	tool  string
	input map[string]any
}

// piToClaude and claudeToPi map a tool call to the other agent's
// equivalent: read→Read file_path, write→Write, edit→Edit, ls→LS path,
// grep→Grep, find→Glob.
var piToClaudeTools = map[string]string{"read": "Read", "write": "Write", "edit": "Edit", "ls": "LS", "grep": "Grep", "find": "Glob", "bash": "Bash"}

func piToClaude(c toolCall) toolCall {
	in := map[string]any{}
	for k, v := range c.input {
		in[k] = v
	}
	switch c.tool {
	case "read", "write", "edit":
		in["file_path"] = in["path"]
		delete(in, "path")
	}
	if edits, ok := in["edits"].([]any); ok && len(edits) > 0 {
		e := edits[0].(map[string]any)
		in["old_string"], in["new_string"] = e["oldText"], e["newText"]
		delete(in, "edits")
	}
	return toolCall{piToClaudeTools[c.tool], in}
}

func claudeToPi(c toolCall) toolCall {
	in := map[string]any{}
	for k, v := range c.input {
		in[k] = v
	}
	if p, ok := in["file_path"]; ok {
		in["path"] = p
		delete(in, "file_path")
	}
	if old, ok := in["old_string"]; ok {
		in["edits"] = []any{map[string]any{"oldText": old, "newText": in["new_string"]}}
		delete(in, "old_string")
		delete(in, "new_string")
	}
	for pi, claude := range piToClaudeTools {
		if claude == c.tool {
			return toolCall{pi, in}
		}
	}
	return toolCall{strings.ToLower(c.tool), in}
}

// fixtureCalls reads the tool calls of a recorded fixture, with its
// recorded project dir replaced by dir.
func fixtureCalls(t *testing.T, file, recordedDir, dir string) []toolCall {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), recordedDir, dir))
	var calls []toolCall
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		var ev struct {
			Ev string `json:"ev"`
			E  struct {
				ToolName string         `json:"toolName"`
				Input    map[string]any `json:"input"`
			} `json:"e"`
			HookEventName string         `json:"hook_event_name"`
			ToolName      string         `json:"tool_name"`
			ToolInput     map[string]any `json:"tool_input"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch {
		case ev.Ev == "tool_call":
			calls = append(calls, toolCall{ev.E.ToolName, ev.E.Input})
		case ev.HookEventName == "PreToolUse":
			calls = append(calls, claudeToPi(toolCall{ev.ToolName, ev.ToolInput}))
		}
	}
	return calls
}

// TestServeHookAgree runs every recorded tool call of Pi and of Claude Code,
// and calls that reach a blocklisted .env, write outside the workspace and
// read through a planted symlink, through both `picket hook` (as the Claude
// Code event) and `picket serve` (as the Pi call): the decisions must be the
// same, down to layer, rule and resolved path.
func TestServeHookAgree(t *testing.T) {
	h := newHookProject(t, hookFence)
	h.write("sub/notes.md", "notes\n")
	key := h.write(filepath.Join(h.home, ".ssh", "id_ed25519"), "KEY")
	if err := os.Symlink(filepath.Dir(key), filepath.Join(h.dir, "keys")); err != nil {
		t.Fatal(err)
	}
	calls := fixtureCalls(t, filepath.Join("..", "..", "hook", "pi", "testdata", "pi-0.73.1", "extension-events.ndjson"), "/home/dev/project", h.dir)
	nPi := len(calls)
	calls = append(calls, fixtureCalls(t, filepath.Join("..", "..", "hook", "claude", "testdata", "claude-code-2.1.328", "events.ndjson"), "/home/dev/project", h.dir)...)
	if nPi < 4 || len(calls) < nPi+6 {
		t.Fatalf("fixtures hold %d Pi and %d Claude Code tool calls, want the recorded ones", nPi, len(calls)-nPi)
	}
	calls = append(calls,
		toolCall{"read", map[string]any{"path": filepath.Join(h.dir, ".env")}},
		toolCall{"read", map[string]any{"path": "sub/../.env"}},
		toolCall{"write", map[string]any{"path": "/etc/picket-agree.txt", "content": "x"}},
		toolCall{"write", map[string]any{"path": "src/new.go", "content": "package main\n"}},
		toolCall{"read", map[string]any{"path": "keys/id_ed25519"}},
		toolCall{"ls", map[string]any{"path": "keys"}},
		toolCall{"ls", map[string]any{"path": "."}}, // Claude Code's LS requires a path; Pi's defaults to "."
		toolCall{"ls", map[string]any{"path": "src"}},
		toolCall{"grep", map[string]any{"pattern": "x"}},
		toolCall{"grep", map[string]any{"pattern": "x", "path": "src"}},
		toolCall{"grep", map[string]any{"pattern": "x", "glob": "*.md"}},
		toolCall{"find", map[string]any{"pattern": "**/*.md"}},
		toolCall{"find", map[string]any{"pattern": "*", "path": "keys"}},
		// Pi's find runs fd on its path alone, which lists no ".." path
		// for "../home/.ssh/*" (Claude Code's Glob goes there): the two
		// agree on a search of that directory itself.
		toolCall{"find", map[string]any{"pattern": "*", "path": "../home/.ssh"}},
		toolCall{"edit", map[string]any{"path": "keys/id_ed25519", "edits": []any{map[string]any{"oldText": "K", "newText": "L"}}}},
		toolCall{"bash", map[string]any{"command": "cat .env"}},
	)

	sc := startServe(t, h.env)
	seen := map[string]int{}
	for _, pi := range calls {
		claude := piToClaude(pi)
		a := h.run(h.pre(claude.tool, claude.input))
		res := sc.ok("decide", h.decideParams(h.session, pi.tool, pi.input, false))
		in, _ := json.Marshal(pi.input)
		name := pi.tool + " " + string(in)
		hookAllow := a.kind() == wantPass
		if res["allow"] != hookAllow {
			t.Errorf("%s: serve allow = %v, hook %v (%s)", name, res["allow"], a.kind(), a.reason)
			continue
		}
		if hookAllow {
			seen["allow"]++
			continue
		}
		if a.kind() != wantBlock {
			t.Errorf("%s: hook answered %v: %s", name, a.kind(), a.reason)
			continue
		}
		b := checkBlock(t, a.reason, claude.tool)
		d := decisionOf(t, res)
		if d["layer"] != b.Layer || d["rule"] != b.Rule || d["resolved"] != b.Resolved || d["path"] != b.Path {
			t.Errorf("%s: serve %v %v %v, hook %v %v %v", name, d["layer"], d["rule"], d["resolved"], b.Layer, b.Rule, b.Resolved)
		}
		seen[b.Layer+" "+b.Rule]++
	}
	t.Logf("decisions: %v", seen)
	for _, want := range []string{"allow", "blocklist picket.blocklist", "boundary filesystem.allowWrite", "blocklist filesystem.denyRead"} {
		if seen[want] == 0 {
			t.Errorf("no call decided %q; decided: %v", want, seen)
		}
	}
}
