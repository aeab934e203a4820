package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiRecord records what the pinned Gemini CLI hands a hook for
// each of its file tools and events, for hook/gemini/testdata: set
// PICKET_GEMINI_RECORD to the file to write (one event a line, the
// scratch directory spelled /home/user/scratch).
func TestGeminiRecord(t *testing.T) {
	out := os.Getenv("PICKET_GEMINI_RECORD")
	if out == "" {
		t.Skip("PICKET_GEMINI_RECORD names no file to write")
	}
	gemini, version := AgentBinary(t, "gemini")
	w := newGeminiWorld(t)
	log := filepath.Join(w.base, "events.ndjson")
	script := filepath.Join(w.base, "record.sh")
	writeFile(t, script, "#!/bin/sh\ncat >>"+shellQuote(log)+"\necho >>"+shellQuote(log)+"\n")
	os.Chmod(script, 0o755)
	hook := func(event string) string {
		// A session event's matcher is compared with its trigger as a
		// string: ".*" would match none.
		matcher := `"matcher": ".*", `
		if strings.HasPrefix(event, "Session") {
			matcher = ""
		}
		return `"` + event + `": [{` + matcher + `"hooks": [{"type": "command", "name": "record", "command": ` + jsonString(script) + `, "timeout": 10000}]}]`
	}
	hooks := "{" + strings.Join([]string{hook("BeforeTool"), hook("AfterTool"), hook("SessionStart"), hook("SessionEnd")}, ", ") + "}"
	writeFile(t, filepath.Join(w.geminiDir, "settings.json"), geminiSettings(hooks))
	w.trust(t, w.project)
	writeFile(t, filepath.Join(w.sub, "GEMINI.md"), "sub rules\n")
	model, err := StartGemini([]Turn{
		ToolUse("read_file", map[string]any{"file_path": "deep.txt"}),
		ToolUse("read_file", map[string]any{"file_path": filepath.Join(w.sub, "deep.txt"), "start_line": 1, "end_line": 1}),
		ToolUse("write_file", map[string]any{"file_path": "new.txt", "content": "new\n"}),
		ToolUse("replace", map[string]any{"file_path": "new.txt", "instruction": "change it", "old_string": "new", "new_string": "newer", "allow_multiple": false}),
		ToolUse("list_directory", map[string]any{"dir_path": ".", "ignore": []string{"*.log"}}),
		ToolUse("glob", map[string]any{"pattern": "**/*.txt"}),
		ToolUse("glob", map[string]any{"pattern": "*.txt", "dir_path": ".", "case_sensitive": true}),
		ToolUse("grep_search", map[string]any{"pattern": "deep", "dir_path": ".", "include_pattern": "*.txt"}),
		ToolUse("grep_search", map[string]any{"pattern": "deep"}),
		ToolUse("search_file_content", map[string]any{"pattern": "deep", "dir_path": "."}),
		ToolUse("run_shell_command", map[string]any{"command": "cat deep.txt", "description": "show it", "dir_path": "."}),
		ToolUse("run_shell_command", map[string]any{"command": "sleep 1", "is_background": true}),
		Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.run(t, w.sub, []string{"GOOGLE_GEMINI_BASE_URL=" + model.URL}, gemini, geminiArgs()...)
	data := strings.ReplaceAll(readFileString(t, log), w.base, "/home/user/scratch")
	var lines []string
	for _, l := range strings.Split(data, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("gemini %s: %d events to %s", version, len(lines), out)
	for k, r := range model.Results() {
		t.Logf("%s: %q", k, clip(r.Text, 160))
	}
}
