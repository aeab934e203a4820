package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/claude"
)

// hookFence is the project policy of most hook tests: the code template
// plus .env in the blocklist, as the end-to-end test uses.
const hookFence = `{"extends": "code", "picket": {"blocklist": [".env"]}}`

// envSecret is the content of the project's .env; it must never appear in
// anything picket prints or logs.
const envSecret = "SECRET_VALUE=hunter2-7f3a"

// hookProject is a project dir with a fence.jsonc, and HOME and the XDG
// dirs of its own, all under t.TempDir().
type hookProject struct {
	t                         testing.TB
	dir, home, state, session string
	env                       []string
}

func newHookProject(t testing.TB, fence string) *hookProject {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &hookProject{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home"),
		state: filepath.Join(root, "state"), session: "3f1c2d4e-0000-4000-8000-000000000001"}
	for _, d := range []string{filepath.Join(h.dir, ".git"), filepath.Join(h.dir, "src"), h.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.write("fence.jsonc", fence)
	h.write("README.md", "# project\n")
	h.write("src/main.go", "package main\n")
	h.write(".env", envSecret+"\n")
	h.env = []string{
		"HOME=" + h.home,
		"XDG_STATE_HOME=" + h.state,
		"XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"CLAUDE_PROJECT_DIR=" + h.dir,
		"CI=1", // headless: a block is never a prompt
	}
	return h
}

// write creates a file under the project (rel) or at an absolute path.
func (h *hookProject) write(rel, content string) string {
	h.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.dir, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// event is one Claude Code event from this project's session, shaped as
// the recorded fixtures are.
func (h *hookProject) event(name, tool string, input any) string {
	ev := map[string]any{
		"session_id":      h.session,
		"transcript_path": filepath.Join(h.home, ".claude", "projects", "x", h.session+".jsonl"),
		"cwd":             h.dir,
		"prompt_id":       "33805699-4580-44d7-83ff-97039f46b33a",
		"permission_mode": "acceptEdits",
		"hook_event_name": name,
	}
	if tool != "" {
		ev["tool_name"], ev["tool_input"], ev["tool_use_id"] = tool, input, "toolu_01"
	}
	if name == claude.EventPostToolUse {
		ev["tool_response"] = map[string]any{"type": "text"}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *hookProject) pre(tool string, input any) string {
	return h.event(claude.EventPreToolUse, tool, input)
}

// hookAnswer is what one `picket hook` run printed.
type hookAnswer struct {
	code           int
	stdout, stderr string
	deny           bool
	reason         string
}

// run runs the real CLI in-process on payload.
func (h *hookProject) run(payload string, args ...string) hookAnswer {
	h.t.Helper()
	return runHookCLI(h.t, h.env, payload, args...)
}

func runHookCLI(t testing.TB, env []string, payload string, args ...string) hookAnswer {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"hook"}, args...), env, strings.NewReader(payload), &stdout, &stderr)
	return parseHookAnswer(t, code, stdout.Bytes(), stderr.String())
}

// parseHookAnswer reads what a hook printed, checking its shape.
func parseHookAnswer(t testing.TB, code int, stdout []byte, stderr string) hookAnswer {
	t.Helper()
	a := hookAnswer{code: code, stdout: string(stdout), stderr: stderr}
	if a.stdout == "" {
		return a
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName            string
			PermissionDecision       string
			PermissionDecisionReason string
		}
		SystemMessage string
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("hook stdout is not one JSON object: %v\n%s", err, a.stdout)
	}
	if strings.Count(strings.TrimSuffix(a.stdout, "\n"), "\n") != 0 {
		t.Errorf("hook stdout is more than one line:\n%s", a.stdout)
	}
	o := out.HookSpecificOutput
	a.deny = o.PermissionDecision == "deny" && o.HookEventName == "PreToolUse"
	a.reason = o.PermissionDecisionReason
	if o.PermissionDecision != "" && !a.deny {
		t.Errorf("hook answered %q, never anything but deny", o.PermissionDecision)
	}
	return a
}

// What a hook run must answer.
type want int

const (
	wantPass  want = iota // no output
	wantError             // deny, reason "picket: error: …"
	wantBlock             // deny, the structured block message
)

func (w want) String() string {
	return [...]string{"pass", "error deny", "block"}[w]
}

func (a hookAnswer) kind() want {
	switch {
	case a.stdout == "":
		return wantPass
	case a.deny && strings.HasPrefix(a.reason, "picket: error: "):
		return wantError
	case a.deny && strings.HasPrefix(a.reason, "picket: blocked "):
		return wantBlock
	}
	return -1
}

// blockBody is the JSON part of a block message.
type blockBody struct {
	Tool, Access, Path, Resolved, Layer, Rule, Pattern, Source, Suggestion string
}

// checkBlock parses a block message: a first line naming the tool and path,
// then a JSON object with every field the issue names.
func checkBlock(t *testing.T, reason, tool string) blockBody {
	t.Helper()
	first, rest, ok := strings.Cut(reason, "\n")
	if !ok || !strings.HasPrefix(first, "picket: blocked "+tool+" ") {
		t.Fatalf("block message first line = %q, want \"picket: blocked %s <path>\"", first, tool)
	}
	if strings.ContainsFunc(first, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		t.Errorf("block message first line holds a control character: %q", first)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(rest), &fields); err != nil {
		t.Fatalf("block message body is not JSON: %v\n%s", err, rest)
	}
	for _, k := range []string{"tool", "access", "path", "resolved", "layer", "rule", "pattern", "source", "suggestion"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("block message has no %q:\n%s", k, rest)
		}
	}
	var b blockBody
	json.Unmarshal([]byte(rest), &b)
	if b.Tool != tool {
		t.Errorf("block message tool = %q, want %q", b.Tool, tool)
	}
	return b
}

// auditLines returns the audit log's entries as maps.
func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line is not JSON: %v\n%s", err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

func (h *hookProject) auditPath() string {
	return filepath.Join(h.state, "picket", "audit.log")
}

// hostileCase is one malformed or hostile stdin payload with the answer it
// must get. $P in payload is the project dir, $H the home dir.
type hostileCase struct {
	name    string
	payload string
	want    want
	fence   string                      // the project policy; "" for hookFence
	setup   func(h *hookProject)        // extra files
	check   func(*testing.T, blockBody) // more about a block
}

const (
	preRead = `{"session_id":"s","cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":`
	preEnv  = preRead + `{"file_path":"$P/.env"}}`
)

func hostileCases() []hostileCase {
	bigPath := "/" + strings.Repeat("d/", 2500) // 5,001 bytes
	layer := func(l, rule string) func(*testing.T, blockBody) {
		return func(t *testing.T, b blockBody) {
			if b.Layer != l || b.Rule != rule {
				t.Errorf("block layer, rule = %s, %s, want %s, %s", b.Layer, b.Rule, l, rule)
			}
		}
	}
	return []hostileCase{
		// Not a JSON object at all.
		{name: "malformed", payload: `{"hook_event_name":"PreToolUse",`, want: wantError},
		{name: "empty stdin", payload: ``, want: wantError},
		{name: "whitespace only", payload: " \n\t", want: wantError},
		{name: "array", payload: `[` + preEnv + `]`, want: wantError},
		{name: "string", payload: `"PreToolUse"`, want: wantError},
		{name: "number", payload: `42`, want: wantError},
		{name: "null", payload: `null`, want: wantError},
		{name: "true", payload: `true`, want: wantError},
		{name: "two objects", payload: preEnv + `{"hook_event_name":"Stop"}`, want: wantError},
		{name: "trailing garbage", payload: preEnv + `x`, want: wantError},
		{name: "byte order mark", payload: "\xef\xbb\xbf" + preEnv, want: wantError},
		{name: "nested too deep", payload: strings.Repeat("[", 20000) + strings.Repeat("]", 20000), want: wantError},
		{name: "over 16 MiB", payload: preEnv + strings.Repeat(" ", hook.MaxEvent+1-len(preEnv)), want: wantError},
		// Wrong types and bad text.
		{name: "invalid utf-8 in path", payload: preRead + `{"file_path":"$P/README.md` + "\xff" + `"}}`, want: wantError},
		{name: "invalid utf-8 outside tool_input", payload: `{"junk":"` + "\xc3\x28" + `",` + preEnv[1:], want: wantError},
		{name: "tool_input string", payload: preRead + `"{\"file_path\":\"$P/.env\"}"}`, want: wantError},
		{name: "tool_input array", payload: preRead + `[{"file_path":"$P/.env"}]}`, want: wantError},
		{name: "tool_input null", payload: preRead + `null}`, want: wantError},
		{name: "tool_input missing", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Read"}`, want: wantError},
		{name: "file_path number", payload: preRead + `{"file_path":1}}`, want: wantError},
		{name: "file_path array", payload: preRead + `{"file_path":["$P/.env"]}}`, want: wantError},
		{name: "file_path null", payload: preRead + `{"file_path":null}}`, want: wantError},
		{name: "file_path object", payload: preRead + `{"file_path":{"$P/.env":1}}}`, want: wantError},
		{name: "file_path missing", payload: preRead + `{"path":"$P/.env"}}`, want: wantError},
		{name: "file_path empty", payload: preRead + `{"file_path":""}}`, want: wantError},
		{name: "file_path in other case only", payload: preRead + `{"File_Path":"$P/.env"}}`, want: wantError},
		{name: "notebook_path missing", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "glob pattern missing", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Glob","tool_input":{"path":"$P"}}`, want: wantError},
		{name: "grep path number", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"x","path":1}}`, want: wantError},
		{name: "hook_event_name missing", payload: `{"cwd":"$P","tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "hook_event_name number", payload: `{"cwd":"$P","hook_event_name":1,"tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "hook_event_name array", payload: `{"cwd":"$P","hook_event_name":["PreToolUse"],"tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "hook_event_name in other case only", payload: `{"cwd":"$P","Hook_Event_Name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "tool_name missing", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "tool_name number", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":7,"tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "cwd number", payload: `{"cwd":1,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantError},
		{name: "session_id object", payload: `{"session_id":{},"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/README.md"}}`, want: wantError},
		{name: "cwd relative", payload: `{"cwd":"project","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"README.md"}}`, want: wantError},
		{name: "cwd missing", payload: `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/README.md"}}`, want: wantError},
		{name: "cwd empty on Grep", payload: `{"cwd":"","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"x"}}`, want: wantError},
		// Keys in another case or twice: the exact, last key is the one
		// Claude Code (JSON.parse) reads, and the one picket judges.
		{name: "Tool_Name beside tool_name", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","Tool_Name":"Bash","tool_name":"Read","TOOL_NAME":"Bash","tool_input":{"file_path":"$P/.env"}}`, want: wantBlock, check: layer("blocklist", "picket.blocklist")},
		{name: "Tool_Name Read beside tool_name Bash", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","Tool_Name":"Read","tool_name":"Bash","tool_input":{"command":"true","file_path":"$P/.env"}}`, want: wantPass},
		{name: "File_Path beside file_path", payload: preRead + `{"File_Path":"$P/README.md","file_path":"$P/.env","FILE_PATH":"$P/README.md"}}`, want: wantBlock},
		{name: "Hook_Event_Name beside hook_event_name", payload: `{"cwd":"$P","Hook_Event_Name":"Stop","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantBlock},
		{name: "Cwd beside cwd", payload: `{"Cwd":"/","cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":".env"}}`, want: wantBlock},
		{name: "duplicate file_path, last wins", payload: preRead + `{"file_path":"$P/README.md","file_path":"$P/.env"}}`, want: wantBlock},
		{name: "duplicate tool_name, last wins", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Bash","tool_name":"Read","tool_input":{"file_path":"$P/.env"}}`, want: wantBlock},
		// Paths the resolver refuses: denied at the boundary.
		{name: "NUL byte in path", payload: preRead + `{"file_path":"$P/README.md\u0000/../.env"}}`, want: wantBlock, check: layer("boundary", "picket.canonicalize")},
		{name: "5,000-byte path", payload: preRead + `{"file_path":"` + bigPath + `"}}`, want: wantBlock, check: layer("boundary", "picket.canonicalize")},
		{name: "symlink loop", payload: preRead + `{"file_path":"$P/loop/x"}}`, want: wantBlock, check: layer("boundary", "picket.canonicalize"),
			setup: func(h *hookProject) { os.Symlink("loop", filepath.Join(h.dir, "loop")) }},
		{name: "path through a file", payload: preRead + `{"file_path":"$P/README.md/x"}}`, want: wantBlock, check: layer("boundary", "picket.canonicalize")},
		{name: "newline and ANSI escape in path", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/etc/x\nforged line\u001b[2J","content":"WRITE-CONTENT-MARKER"}}`, want: wantBlock, check: layer("boundary", "filesystem.allowWrite")},
		{name: "dotdot into a blocked name", payload: preRead + `{"file_path":"$P/src/../.env"}}`, want: wantBlock},
		{name: "symlink to .env", payload: preRead + `{"file_path":"$P/innocent.txt"}}`, want: wantBlock, check: layer("blocklist", "picket.blocklist"),
			setup: func(h *hookProject) { os.Symlink(".env", filepath.Join(h.dir, "innocent.txt")) }},
		{name: "tilde to ssh key", payload: preRead + `{"file_path":"~/.ssh/id_ed25519"}}`, want: wantBlock, check: layer("blocklist", "filesystem.denyRead")},
		// Policies picket cannot use.
		{name: "broken policy", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantError, fence: `{"extends": "code",`},
		{name: "policy of the wrong shape", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantError, fence: `{"filesystem": {"denyRead": ".env"}}`},
		{name: "pattern that does not compile", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantError, fence: `{"filesystem": {"denyRead": ["[z-a]"]}}`},
		{name: "extends a missing file", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantError, fence: `{"extends": "./nope.jsonc"}`},
		{name: "extends cycle", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantError, fence: `{"extends": "./fence.jsonc"}`},
		// Plain blocks.
		{name: ".env read", payload: preEnv, want: wantBlock, check: layer("blocklist", "picket.blocklist")},
		{name: ".env relative", payload: preRead + `{"file_path":".env"}}`, want: wantBlock},
		{name: "write outside", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/etc/picket-outside.txt","content":"WRITE-CONTENT-MARKER"}}`, want: wantBlock, check: layer("boundary", "filesystem.allowWrite")},
		{name: "edit .env", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":".env","old_string":"a","new_string":"WRITE-CONTENT-MARKER"}}`, want: wantBlock},
		{name: "grep negated glob reaches .env", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"SECRET","glob":"!*.md"}}`, want: wantBlock},
		{name: "grep glob list reaches .env", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"SECRET","glob":"*.md,.env"}}`, want: wantBlock},
		{name: "grep class glob reaches .env", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"SECRET","glob":".[!x]nv"}}`, want: wantBlock},
		// Events and tools picket does not judge, and allowed calls.
		{name: "Bash", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat .env"}}`, want: wantPass},
		{name: "Bash with bad input", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":1}}`, want: wantPass},
		{name: "unknown tool", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Frobnicate","tool_input":{"file_path":"$P/.env"}}`, want: wantPass},
		{name: "mcp tool", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"mcp__fs__read_file","tool_input":{"path":"$P/.env"}}`, want: wantPass},
		{name: "WebFetch", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"file://$P/.env"}}`, want: wantPass},
		{name: "PostToolUse", payload: `{"cwd":"$P","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"$P/.env"},"tool_response":{}}`, want: wantPass},
		{name: "Stop", payload: `{"session_id":"s","cwd":"$P","hook_event_name":"Stop","stop_hook_active":false}`, want: wantPass},
		{name: "UserPromptSubmit", payload: `{"session_id":"s","cwd":"$P","hook_event_name":"UserPromptSubmit","prompt":"read .env"}`, want: wantPass},
		{name: "SessionEnd", payload: `{"session_id":"s","cwd":"$P","hook_event_name":"SessionEnd","reason":"other"}`, want: wantPass},
		{name: "unknown event", payload: `{"cwd":"$P","hook_event_name":"Notification","message":"hi"}`, want: wantPass},
		{name: "allowed Read", payload: preRead + `{"file_path":"$P/README.md"}}`, want: wantPass},
		{name: "allowed Read, unknown fields", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"$P/README.md","x":[1,{"y":null}]},"effort":{"level":"high"},"__proto__":{"tool_name":"Bash"}}`, want: wantPass},
		{name: "allowed Grep with a glob that skips .env", payload: `{"cwd":"$P","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"x","glob":"*.{md,go}"}}`, want: wantPass},
	}
}

func TestHookHostile(t *testing.T) {
	cases := hostileCases()
	if len(cases) < 30 {
		t.Fatalf("only %d hostile payloads, want at least 30", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newCaseProject(t, tc.fence, tc.setup)
			payload := h.expand(tc.payload)
			a := h.run(payload)
			if a.code != 0 {
				t.Errorf("hook exit status = %d, want 0", a.code)
			}
			if got := a.kind(); got != tc.want {
				t.Fatalf("hook answer = %v, want %v\nstdout: %s\nstderr: %s", got, tc.want, a.stdout, a.stderr)
			}
			for _, leak := range []string{envSecret, "WRITE-CONTENT-MARKER"} {
				if strings.Contains(a.stdout+a.stderr, leak) {
					t.Errorf("hook output carries %q:\n%s%s", leak, a.stdout, a.stderr)
				}
			}
			if log, _ := os.ReadFile(h.auditPath()); bytes.Contains(log, []byte(envSecret)) || bytes.Contains(log, []byte("WRITE-CONTENT-MARKER")) {
				t.Errorf("audit log carries file or Write content:\n%s", log)
			}
			if tc.want != wantBlock {
				return
			}
			// Not encoding/json into a struct: it matches keys in any case
			// and would name "Bash" for the Tool_Name case.
			ev, err := claude.Parse([]byte(payload))
			if err != nil {
				t.Fatal(err)
			}
			b := checkBlock(t, a.reason, ev.Tool)
			if tc.check != nil {
				tc.check(t, b)
			}
		})
	}
}

func TestHookArguments(t *testing.T) {
	h := newHookProject(t, hookFence)
	env := h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, "README.md")})
	for _, args := range [][]string{{"--agent", "cursor"}, {"--no-such-flag"}, {"--deadline", "soon"}} {
		a := h.run(env, args...)
		if a.code != 0 || a.kind() != wantError {
			t.Errorf("hook %v: exit %d, answer %v, want 0 and an error deny", args, a.code, a.kind())
		}
	}
	if a := h.run(env, "--agent", "claude", "--headless"); a.code != 0 || a.kind() != wantPass {
		t.Errorf("hook --agent claude --headless: exit %d, answer %v, want 0 and pass", a.code, a.kind())
	}
}

// TestHookBlockMessage pins what the model reads for the two
// typical blocks, and that the audit line names the rule but no content.
func TestHookBlockMessage(t *testing.T) {
	h := newHookProject(t, hookFence)
	a := h.run(h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, ".env")}))
	b := checkBlock(t, a.reason, "Read")
	want := blockBody{Tool: "Read", Access: "read", Path: filepath.Join(h.dir, ".env"), Resolved: filepath.Join(h.dir, ".env"),
		Layer: "blocklist", Rule: "picket.blocklist", Pattern: ".env", Source: filepath.Join(h.dir, "fence.jsonc")}
	b.Suggestion = ""
	if b != want {
		t.Errorf("block message = %+v, want %+v", b, want)
	}
	if first, _, _ := strings.Cut(a.reason, "\n"); first != "picket: blocked Read "+filepath.Join(h.dir, ".env") {
		t.Errorf("block message first line = %q", first)
	}

	outside := "/etc/picket-notes.txt" // t.TempDir() is under /tmp, which code allows writing
	a = h.run(h.pre("Write", map[string]any{"file_path": outside, "content": "WRITE-CONTENT-MARKER"}))
	b = checkBlock(t, a.reason, "Write")
	if b.Layer != "boundary" || b.Rule != "filesystem.allowWrite" || b.Suggestion == "" || b.Path != outside {
		t.Errorf("write outside: block message = %+v", b)
	}
	if strings.Contains(a.stdout, "WRITE-CONTENT-MARKER") {
		t.Errorf("block message carries the Write's content")
	}
}

func TestHookRecursiveTools(t *testing.T) {
	const secretsFence = `{"extends": "code", "picket": {"blocklist": [".env"]}, "filesystem": {"denyRead": ["**/secrets/**"]}}`
	tests := []toolCase{
		{name: "grep over the project holding .env", tool: "Grep", input: map[string]any{"pattern": "SECRET"}, want: wantBlock, names: ".env"},
		{name: "grep with the project as path", tool: "Grep", input: map[string]any{"pattern": "SECRET", "path": "$P", "output_mode": "content"}, want: wantBlock, names: ".env"},
		{name: "grep with glob *.md", tool: "Grep", input: map[string]any{"pattern": "SECRET", "glob": "*.md"}, want: wantPass},
		{name: "grep with glob **/*.go", tool: "Grep", input: map[string]any{"pattern": "SECRET", "glob": "**/*.go"}, want: wantPass},
		{name: "grep with glob .env*", tool: "Grep", input: map[string]any{"pattern": "SECRET", "glob": ".env*"}, want: wantBlock, names: ".env"},
		{name: "grep below the secret", tool: "Grep", input: map[string]any{"pattern": "SECRET", "path": "src"}, want: wantPass},
		{name: "grep a nested .env", tool: "Grep", input: map[string]any{"pattern": "SECRET", "path": "src"}, want: wantBlock, names: "deep/.env",
			setup: func(h *hookProject) { h.write("src/deep/.env", envSecret) }},
		{name: "glob **/*.md", tool: "Glob", input: map[string]any{"pattern": "**/*.md"}, want: wantPass},
		{name: "glob **/*", tool: "Glob", input: map[string]any{"pattern": "**/*"}, want: wantBlock, names: ".env"},
		{name: "glob .env by name", tool: "Glob", input: map[string]any{"pattern": ".env"}, want: wantBlock},
		// ripgrep reads the globs of both tools as gitignore lines: no slash
		// matches a base name at any depth, a slash anchors at ripgrep's
		// working directory, not at the searched path (a differential
		// against Claude Code's ripgrep found each of these allowed).
		{name: "glob without a slash reaches any depth", fence: secretsFence, tool: "Glob", input: map[string]any{"pattern": "*"}, want: wantBlock, names: "secrets",
			setup: nestedSecret},
		{name: "glob base name below the path", fence: `{"extends": "code", "picket": {"blocklist": ["*.pem"]}}`, tool: "Glob", input: map[string]any{"pattern": "*.pem", "path": "sub"}, want: wantBlock, names: "cert.pem",
			setup: func(h *hookProject) { h.write("sub/dir/cert.pem", "PEM") }},
		{name: "glob anchored above the path", fence: secretsFence, tool: "Glob", input: map[string]any{"pattern": "sub/*/k*", "path": "sub"}, want: wantBlock, names: "secrets",
			setup: nestedSecret},
		{name: "grep glob anchored above the path", fence: secretsFence, tool: "Grep", input: map[string]any{"pattern": "x", "path": "sub", "glob": "sub/secrets/*"}, want: wantBlock, names: "secrets",
			setup: nestedSecret},
		{name: "grep glob anchored below the path", fence: secretsFence, tool: "Grep", input: map[string]any{"pattern": "x", "path": "..", "glob": "sub/secrets/*"}, want: wantBlock, names: "secrets",
			setup: nestedSecret},
		// The block's suggestion, a glob that excludes the denied path,
		// works: a negation names it.
		{name: "grep excluding the denied file", tool: "Grep", input: map[string]any{"pattern": "x", "glob": "!.env"}, want: wantPass},
		{name: "grep excluding another file", tool: "Grep", input: map[string]any{"pattern": "x", "glob": "!.envrc"}, want: wantBlock, names: ".env"},
		{name: "glob climbing out to a key", tool: "Glob", input: map[string]any{"pattern": "../home/.ssh/*"}, want: wantBlock, names: "id_rsa",
			setup: func(h *hookProject) { h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "KEY") }},
		{name: "glob climbing out, nothing denied", tool: "Glob", input: map[string]any{"pattern": "../home/**/*.txt"}, want: wantPass,
			setup: func(h *hookProject) { h.write(filepath.Join(h.home, "notes", "a.txt"), "x") }},
		{name: "secrets dir", fence: secretsFence, tool: "Grep", input: map[string]any{"pattern": "x", "path": "src"}, want: wantBlock, names: "secrets",
			setup: func(h *hookProject) { h.write("src/secrets/token.txt", "TOKEN") }},
		{name: "secrets dir, glob *.go", fence: secretsFence, tool: "Grep", input: map[string]any{"pattern": "x", "path": "src", "glob": "*.go"}, want: wantBlock, names: "secrets",
			setup: func(h *hookProject) { h.write("src/secrets/token.go", "TOKEN") }},
		// ripgrep (both tools' search) neither lists nor reads a symlink
		// below its root unless it follows links (checked against Claude
		// Code 2.1.197's ripgrep 14.1.1): a link to a denied path is
		// never reached through it.
		{name: "symlink in the tree to a denied file", tool: "Grep", input: map[string]any{"pattern": "KEY", "path": "src"}, want: wantPass,
			setup: func(h *hookProject) {
				key := h.write(filepath.Join(h.home, ".ssh", "id_ed25519"), "KEY")
				os.Symlink(key, filepath.Join(h.dir, "src", "notes.txt"))
			}},
		{name: "symlink in the tree to .env", tool: "Glob", input: map[string]any{"pattern": "*.txt", "path": "src"}, want: wantPass,
			setup: func(h *hookProject) { os.Symlink("../.env", filepath.Join(h.dir, "src", "env.txt")) }},
		{name: "symlink in the tree to a dir holding a key", tool: "Grep", input: map[string]any{"pattern": "KEY", "path": "src"}, want: wantPass,
			setup: linkedKeys},
		{name: "glob naming a symlinked dir holding a key", tool: "Glob", input: map[string]any{"pattern": "src/keys/*"}, want: wantPass,
			setup: func(h *hookProject) { os.Remove(filepath.Join(h.dir, ".env")); linkedKeys(h) }},
		{name: "symlink loops in the tree", tool: "Grep", input: map[string]any{"pattern": "x", "path": "src"}, want: wantPass,
			setup: func(h *hookProject) {
				os.Symlink(".", filepath.Join(h.dir, "src", "self"))
				os.Symlink("../src", filepath.Join(h.dir, "src", "again"))
			}},
		{name: "symlink in the tree up to the project", tool: "Grep", input: map[string]any{"pattern": "x", "path": "src"}, want: wantPass,
			setup: func(h *hookProject) { os.Symlink("..", filepath.Join(h.dir, "src", "up")) }},
		// A link named as the search root is followed by ripgrep.
		{name: "grep a symlinked dir holding a key", tool: "Grep", input: map[string]any{"pattern": "KEY", "path": "src/keys"}, want: wantBlock, names: "id_rsa",
			setup: linkedKeys},
		{name: "glob in a symlinked dir holding a key", tool: "Glob", input: map[string]any{"pattern": "*", "path": "$P/src/keys"}, want: wantBlock, names: "id_rsa",
			setup: linkedKeys},
		// A ripgrep config file can make ripgrep follow links: scanned
		// as if it did.
		{name: "symlink in the tree to a dir holding a key, ripgrep config", tool: "Grep", input: map[string]any{"pattern": "KEY", "path": "src"}, want: wantBlock, names: "keys/id_rsa",
			setup: func(h *hookProject) {
				linkedKeys(h)
				h.env = append(h.env, "RIPGREP_CONFIG_PATH="+h.write("rgrc", "--follow\n"))
			}},
		{name: "symlink in the tree up to the project, ripgrep config", tool: "Glob", input: map[string]any{"pattern": "**/*", "path": "src"}, want: wantBlock, names: "up/.env",
			setup: func(h *hookProject) {
				os.Symlink("..", filepath.Join(h.dir, "src", "up"))
				h.env = append(h.env, "RIPGREP_CONFIG_PATH="+h.write("rgrc", "-L\n"))
			}},
		// Claude Code trims a Grep or Glob path and applies ".." by text
		// only after the hook: the search runs on that spelling (a review
		// with the real Claude Code read .env through each of these).
		{name: "grep path with white space around it", tool: "Grep", input: map[string]any{"pattern": "x", "path": " src\u00a0"}, want: wantBlock, names: "deep/.env",
			setup: func(h *hookProject) { h.write("src/deep/.env", envSecret) }},
		{name: "glob path with white space around it", tool: "Glob", input: map[string]any{"pattern": "**/*", "path": "\tsrc\n"}, want: wantBlock, names: "deep/.env",
			setup: func(h *hookProject) { h.write("src/deep/.env", envSecret) }},
		{name: "grep .. after a symlink, read by text", tool: "Grep", input: map[string]any{"pattern": "x", "path": "ln/.."}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) {
				os.MkdirAll(filepath.Join(h.home, "empty", "d"), 0o755)
				os.Symlink(filepath.Join(h.home, "empty", "d"), filepath.Join(h.dir, "ln"))
			}},
		{name: "glob .. after a symlink, read by text", tool: "Glob", input: map[string]any{"pattern": "**/.env", "path": "ln/../src"}, want: wantBlock, names: "deep/.env",
			setup: func(h *hookProject) {
				h.write("src/deep/.env", envSecret)
				os.MkdirAll(filepath.Join(h.home, "empty", "d"), 0o755)
				os.Symlink(filepath.Join(h.home, "empty", "d"), filepath.Join(h.dir, "ln"))
			}},
		// A search root picket cannot find is one it cannot scan.
		{name: "grep a path that does not exist", tool: "Grep", input: map[string]any{"pattern": "x", "path": "nowhere"}, want: wantBlock},
		// A second review with the real Claude Code: a path of white space
		// alone is the cwd to it; globs are split on JavaScript's white
		// space and read as gitignore lines ("#" a comment, trailing white
		// space dropped); absolute Glob patterns are cut at the first glob
		// character, the directory trimmed, a glob-free one searched for
		// its base name.
		{name: "grep a path of white space naming a directory", tool: "Grep", input: map[string]any{"pattern": "x", "path": " "}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { os.Mkdir(filepath.Join(h.dir, " "), 0o755) }},
		{name: "grep glob split on U+FEFF", tool: "Grep", input: map[string]any{"pattern": "x", "glob": "x\ufeff*"}, want: wantBlock, names: ".env"},
		{name: "grep glob that is a gitignore comment", tool: "Grep", input: map[string]any{"pattern": "x", "glob": "#x"}, want: wantBlock, names: ".env"},
		{name: "glob pattern with a trailing newline", tool: "Glob", input: map[string]any{"pattern": ".env\n"}, want: wantBlock, names: ".env"},
		{name: "glob pattern that is a comment", tool: "Glob", input: map[string]any{"pattern": "#x"}, want: wantBlock, names: ".env"},
		{name: "glob absolute pattern, directory with a trailing space", tool: "Glob", input: map[string]any{"pattern": "$H/.ssh /id*"}, want: wantBlock, names: "id_rsa",
			setup: func(h *hookProject) { h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "KEY") }},
		{name: "glob absolute pattern without glob characters", tool: "Glob", input: map[string]any{"pattern": "$H/.ssh/!x"}, want: wantBlock, names: "id_rsa",
			setup: func(h *hookProject) { h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "KEY") }},
		{name: "glob absolute base name at any depth", tool: "Glob", input: map[string]any{"pattern": "$H/credentials"}, want: wantBlock, names: ".aws",
			setup: func(h *hookProject) { h.write(filepath.Join(h.home, ".aws", "credentials"), "KEY") }},
		{name: "no denied path", tool: "Grep", input: map[string]any{"pattern": "x"}, want: wantPass,
			setup: func(h *hookProject) {
				os.Remove(filepath.Join(h.dir, ".env"))
				h.write("docs/a/b/c.md", "x")
				os.Symlink("../README.md", filepath.Join(h.dir, "docs", "readme-link.md"))
			}},
		{name: "no denied path, glob", tool: "Glob", input: map[string]any{"pattern": "**/*"}, want: wantPass,
			setup: func(h *hookProject) { os.Remove(filepath.Join(h.dir, ".env")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := tt.run(t)
			if b != nil && (!strings.Contains(a.reason, tt.names) || !strings.Contains(b.Suggestion, tt.names)) {
				t.Errorf("block reason does not name %s:\n%s", tt.names, a.reason)
			}
		})
	}
}

// linkedKeys makes src/keys a symlink to a home's .ssh holding id_rsa.
func linkedKeys(h *hookProject) {
	h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "KEY")
	os.MkdirAll(filepath.Join(h.dir, "src"), 0o755)
	os.Symlink(filepath.Join(h.home, ".ssh"), filepath.Join(h.dir, "src", "keys"))
}

// toolCase is one PreToolUse call on a fresh hook project and the answer
// it must get.
type toolCase struct {
	name, fence string // fence "" is hookFence
	setup       func(h *hookProject)
	tool        string
	input       map[string]any // in strings, $P is the project, $H home
	want        want
	names       string // a block's reason or suggestion names this path
}

// newCaseProject is a hook project for one table case: fence "" is
// hookFence, setup (if any) runs on it.
func newCaseProject(t *testing.T, fence string, setup func(h *hookProject)) *hookProject {
	t.Helper()
	if fence == "" {
		fence = hookFence
	}
	h := newHookProject(t, fence)
	if setup != nil {
		setup(h)
	}
	return h
}

// expand spells a case's $P (the project) and $H (home).
func (h *hookProject) expand(s string) string {
	return strings.NewReplacer("$P", h.dir, "$H", h.home).Replace(s)
}

// run makes the call and checks the answer's kind; for a block it returns
// the parsed body too.
func (tc toolCase) run(t *testing.T) (hookAnswer, *blockBody) {
	t.Helper()
	h := newCaseProject(t, tc.fence, tc.setup)
	in := map[string]any{}
	for k, v := range tc.input {
		if s, ok := v.(string); ok {
			v = h.expand(s)
		}
		in[k] = v
	}
	a := h.run(h.pre(tc.tool, in))
	if got := a.kind(); a.code != 0 || got != tc.want {
		t.Fatalf("%s %v: exit %d, answer %v, want %v\n%s%s", tc.tool, tc.input, a.code, got, tc.want, a.stdout, a.stderr)
	}
	if tc.want != wantBlock {
		return a, nil
	}
	b := checkBlock(t, a.reason, tc.tool)
	return a, &b
}

// TestHookMemoryFiles: Claude Code loads CLAUDE.md files, and what they
// import, into the conversation without a tool call. A second review with
// the real Claude Code read .env that way three times: a CLAUDE.md written
// with "@../.env", one the shell wrote, and one that is a symlink to it.
func TestHookMemoryFiles(t *testing.T) {
	key := func(h *hookProject) { h.write(filepath.Join(h.home, ".ssh", "id_rsa"), "KEY") }
	tests := []toolCase{
		{name: "write a CLAUDE.md importing .env", tool: "Write", input: map[string]any{"file_path": "$P/sub3/CLAUDE.md", "content": "# notes\nsee @../.env\n"}, want: wantBlock, names: ".env"},
		{name: "edit in an import of a key", tool: "Edit", input: map[string]any{"file_path": "$P/CLAUDE.md", "old_string": "x", "new_string": "@~/.ssh/id_rsa"}, want: wantBlock, names: "id_rsa",
			setup: func(h *hookProject) { key(h); h.write("CLAUDE.md", "x\n") }},
		{name: "multiedit in an import", tool: "MultiEdit", input: map[string]any{"file_path": "$P/CLAUDE.local.md", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}, map[string]any{"old_string": "c", "new_string": "see @.env)"}}}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("CLAUDE.local.md", "a c\n") }},
		{name: "write a CLAUDE.md importing the README", tool: "Write", input: map[string]any{"file_path": "$P/CLAUDE.md", "content": "@README.md and mail me@example.com"}, want: wantPass},
		{name: "read beside a CLAUDE.md the shell wrote", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/CLAUDE.md", "@../.env") }},
		{name: "read below a CLAUDE.md that is a symlink to .env", tool: "Read", input: map[string]any{"file_path": "$P/sub2/deep/b.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) {
				h.write("sub2/deep/b.txt", "b")
				os.Symlink("../.env", filepath.Join(h.dir, "sub2", "CLAUDE.md"))
			}},
		{name: "read beside a CLAUDE.md importing a file that imports .env", tool: "Read", input: map[string]any{"file_path": "$P/sub4/x.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) {
				h.write("sub4/x.txt", "x")
				h.write("sub4/CLAUDE.md", "@notes.md")
				h.write("sub4/notes.md", "@../.env")
			}},
		{name: "grep below a bad CLAUDE.md", tool: "Grep", input: map[string]any{"pattern": "x", "path": "$P/sub"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/CLAUDE.md", "@../.env") }},
		// A third review: Claude Code's own import grammar, the file an
		// edit leaves, writes that load memory, and the other memory files.
		{name: "an import with a #fragment", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/CLAUDE.md", "@../.env#x") }},
		{name: "an import after U+FEFF", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/CLAUDE.md", "x\ufeff@../.env\ufeffjunk") }},
		{name: "an import with an escaped space", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/CLAUDE.md", "@x\\ /../../.env") }},
		{name: "an import past a megabyte", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) {
				h.write("sub/a.txt", "a")
				h.write("sub/CLAUDE.md", strings.Repeat("padding ", 150000)+"\n@../.env\n")
			}},
		{name: "a write beside a bad CLAUDE.md", tool: "Write", input: map[string]any{"file_path": "$P/sub/new.txt", "content": "x"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/CLAUDE.md", "@../.env") }},
		{name: "an edit that completes an import", tool: "Edit", input: map[string]any{"file_path": "$P/sub/CLAUDE.md", "old_string": "X", "new_string": "v"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/CLAUDE.md", "notes @../.enX\n") }},
		{name: "a subdirectory's .claude/CLAUDE.md", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/.claude/CLAUDE.md", "@../../.env") }},
		{name: "a rules file", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) {
				h.write("sub/a.txt", "a")
				h.write("sub/.claude/rules/deep/x.md", "@../../../../.env")
			}},
		{name: "an AGENTS.md", tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: ".env",
			setup: func(h *hookProject) { h.write("sub/a.txt", "a"); h.write("sub/AGENTS.md", "@../.env") }},
		{name: "a symlinked CLAUDE.md imports from its target's directory", fence: `{"extends": "code", "filesystem": {"denyRead": ["./secrets/**"]}}`,
			tool: "Read", input: map[string]any{"file_path": "$P/sub/a.txt"}, want: wantBlock, names: "secrets",
			setup: func(h *hookProject) {
				h.write("sub/a.txt", "a")
				h.write("secrets/k.txt", "K")
				h.write("deep/x/notes.md", "@../../secrets/k.txt")
				os.Symlink("../deep/x/notes.md", filepath.Join(h.dir, "sub", "CLAUDE.md"))
			}},
		{name: "fixing a bad CLAUDE.md", tool: "Write", input: map[string]any{"file_path": "$P/sub/CLAUDE.md", "content": "no imports"}, want: wantPass,
			setup: func(h *hookProject) { h.write("sub/CLAUDE.md", "@../.env") }},
		{name: "read beside a plain CLAUDE.md", tool: "Read", input: map[string]any{"file_path": "$P/src/main.go"}, want: wantPass,
			setup: func(h *hookProject) {
				h.write("CLAUDE.md", "Build with @README.md; ask @alice.\n")
				h.write("src/CLAUDE.md", "go code")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := tt.run(t)
			if b != nil && (!strings.Contains(a.reason, "memory file") || !strings.Contains(a.reason, tt.names) || b.Suggestion == "") {
				t.Errorf("block reason does not explain the memory file or name %s:\n%s", tt.names, a.reason)
			}
		})
	}
}

// nestedSecret puts a secret in sub/secrets and removes the project's
// .env, so a scan that finds something finds that.
func nestedSecret(h *hookProject) {
	os.Remove(filepath.Join(h.dir, ".env"))
	h.write("sub/secrets/k.txt", "SECRET")
}

func TestHookReadBeforeEdit(t *testing.T) {
	h := newHookProject(t, `{"extends": "./guards.jsonc", "picket": {"writeGuards": {"maxBytes": 1000000}}}`)
	// The deny names the file that turned the guard on, not the one
	// that set another writeGuards field after it.
	guards := h.write("guards.jsonc", `{"extends": "code", "picket": {"writeGuards": {"readBeforeEdit": true}}}`)
	readme := filepath.Join(h.dir, "README.md")
	edit := h.pre("Edit", map[string]any{"file_path": readme, "old_string": "project", "new_string": "WRITE-CONTENT-MARKER"})
	check := func(step string, a hookAnswer, w want) {
		t.Helper()
		if got := a.kind(); a.code != 0 || got != w {
			t.Fatalf("%s: exit %d, answer %v, want %v\n%s%s", step, a.code, got, w, a.stdout, a.stderr)
		}
		if w == wantBlock {
			if b := checkBlock(t, a.reason, "Edit"); b.Layer != "write-guard" || b.Rule != "picket.writeGuards.readBeforeEdit" || b.Source != guards {
				t.Errorf("%s: blocked at %s by %s from %q, want write-guard, picket.writeGuards.readBeforeEdit from %s", step, b.Layer, b.Rule, b.Source, guards)
			}
		}
	}
	check("edit before any read", h.run(edit), wantBlock)
	check("post read", h.run(h.event(claude.EventPostToolUse, "Read", map[string]any{"file_path": readme})), wantPass)
	check("edit after the read", h.run(edit), wantPass)

	other := *h
	other.session = "another-session"
	check("edit from another session", other.run(other.pre("Edit", map[string]any{"file_path": readme})), wantBlock)

	h.write("README.md", "# changed behind the agent's back\n")
	check("edit after the file changed", h.run(edit), wantBlock)
	check("post read again", h.run(h.event(claude.EventPostToolUse, "Read", map[string]any{"file_path": "README.md"})), wantPass)
	check("edit after reading again (relative path)", h.run(edit), wantPass)

	// The agent's own edit is what it has seen.
	h.write("README.md", "# edited by the agent\n")
	check("post edit", h.run(h.event(claude.EventPostToolUse, "Edit", map[string]any{"file_path": readme})), wantPass)
	check("edit after its own edit", h.run(edit), wantPass)

	newFile := h.pre("Write", map[string]any{"file_path": filepath.Join(h.dir, "src", "new.go"), "content": "package main\n"})
	check("write of a new file", h.run(newFile), wantPass)

	ledgers, _ := filepath.Glob(filepath.Join(h.state, "picket", "ledger", "*.json"))
	if len(ledgers) != 1 {
		t.Fatalf("ledger files = %v, want one for the session", ledgers)
	}
	check("session end", h.run(h.event(claude.EventSessionEnd, "", nil)), wantPass)
	if _, err := os.Stat(ledgers[0]); !os.IsNotExist(err) {
		t.Errorf("SessionEnd left the ledger %s (stat: %v)", ledgers[0], err)
	}
	check("edit after the session ended", h.run(edit), wantBlock)
}

func TestHookAudit(t *testing.T) {
	h := newHookProject(t, hookFence)
	envPath := filepath.Join(h.dir, ".env")
	h.run(h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, "README.md")}))
	if lines := auditLines(t, h.auditPath()); len(lines) != 0 {
		t.Errorf("an allowed call wrote %d audit lines, want none", len(lines))
	}
	h.run(h.pre("Read", map[string]any{"file_path": envPath}))
	h.run(h.pre("Write", map[string]any{"file_path": "/etc/picket-audit.txt", "content": "WRITE-CONTENT-MARKER"}))
	lines := auditLines(t, h.auditPath())
	if len(lines) != 2 {
		t.Fatalf("two blocks wrote %d audit lines, want 2", len(lines))
	}
	want := map[string]any{"session": h.session, "agent": "claude", "decision": "block", "tool": "Read", "access": "read",
		"path": envPath, "resolved": envPath, "layer": "blocklist", "rule": "picket.blocklist", "pattern": ".env",
		"source": filepath.Join(h.dir, "fence.jsonc")}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("audit line %q = %v, want %v", k, lines[0][k], v)
		}
	}
	ts, _ := lines[0]["ts"].(string)
	if parsed, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err != nil || time.Since(parsed) > time.Minute {
		t.Errorf("audit ts = %q, want RFC 3339 UTC with milliseconds, now", ts)
	}
	if lines[1]["tool"] != "Write" || lines[1]["layer"] != "boundary" || lines[1]["rule"] != "filesystem.allowWrite" {
		t.Errorf("second audit line = %v", lines[1])
	}
	if fi, err := os.Stat(h.auditPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode = %v (%v), want 0600", fi.Mode(), err)
	}
	raw, _ := os.ReadFile(h.auditPath())
	if bytes.Contains(raw, []byte(envSecret)) || bytes.Contains(raw, []byte("WRITE-CONTENT-MARKER")) {
		t.Errorf("audit log carries content:\n%s", raw)
	}

	// logAllows and a custom path, "~/" expanded.
	h2 := newHookProject(t, `{"extends": "code", "picket": {"audit": {"logAllows": true, "path": "~/logs/fence-audit.log"}}}`)
	h2.run(h2.pre("Read", map[string]any{"file_path": filepath.Join(h2.dir, "README.md")}))
	h2.run(h2.pre("Bash", map[string]any{"command": "ls"}))
	custom := filepath.Join(h2.home, "logs", "fence-audit.log")
	lines = auditLines(t, custom)
	if len(lines) != 1 || lines[0]["decision"] != "allow" || lines[0]["tool"] != "Read" {
		t.Errorf("logAllows: audit lines in %s = %v, want one allow for the Read", custom, lines)
	}
	if _, err := os.Stat(h2.auditPath()); !os.IsNotExist(err) {
		t.Errorf("picket.audit.path set, but the default log was written too")
	}

	// An absolute path; an unwritable log never changes the decision.
	abs := filepath.Join(t.TempDir(), "a", "audit.ndjson")
	h3 := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"], "audit": {"path": "`+abs+`"}}}`)
	h3.run(h3.pre("Read", map[string]any{"file_path": filepath.Join(h3.dir, ".env")}))
	if lines := auditLines(t, abs); len(lines) != 1 || lines[0]["decision"] != "block" {
		t.Errorf("audit lines in %s = %v, want one block", abs, lines)
	}
	h4 := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"], "audit": {"path": "`+filepath.Join(h.dir, "README.md", "audit.log")+`"}}}`)
	a := h4.run(h4.pre("Read", map[string]any{"file_path": filepath.Join(h4.dir, ".env")}))
	if a.code != 0 || a.kind() != wantBlock || !strings.Contains(a.stderr, "picket: warning: failed to write the audit log") {
		t.Errorf("unwritable audit log: exit %d, answer %v, stderr %q; want 0, block and a warning", a.code, a.kind(), a.stderr)
	}
}

// TestHookAuditPathRefused: a policy (say, a cloned repository's) cannot
// make picket rotate a file away and write agent-chosen text in its place.
func TestHookAuditPathRefused(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"a shell start-up file", "~/.bashrc"},
		{"not a log's name", "~/notes.md"},
		{"a relative path", "logs/audit.log"},
		{"a log that is not picket's", "~/other.log"},
		{"a named pipe", "~/fifo.log"},
		{"a symlink to a start-up file not there yet", "~/link.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"], "audit": {"path": "`+tc.path+`"}}}`)
			const mine = "# mine\nalias ll='ls -l'\n"
			for _, f := range []string{".bashrc", "notes.md", "other.log"} {
				h.write(filepath.Join(h.home, f), mine)
			}
			if err := syscall.Mkfifo(filepath.Join(h.home, "fifo.log"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Symlink(filepath.Join(h.home, ".zshenv"), filepath.Join(h.home, "link.log"))
			a := h.run(h.pre("Read", map[string]any{"file_path": filepath.Join(h.dir, "$(touch PWNED)", ".env")}))
			if a.code != 0 || a.kind() != wantBlock || !strings.Contains(a.stderr, "picket.audit.path") {
				t.Errorf("exit %d, answer %v, stderr %q; want 0, block and a warning naming picket.audit.path", a.code, a.kind(), a.stderr)
			}
			for _, f := range []string{".bashrc", "notes.md", "other.log"} {
				if b, err := os.ReadFile(filepath.Join(h.home, f)); err != nil || string(b) != mine {
					t.Errorf("%s changed: %q, %v", f, b, err)
				}
			}
			if _, err := os.Lstat(filepath.Join(h.home, ".zshenv")); err == nil {
				t.Errorf("~/.zshenv was created through the audit path's symlink")
			}
			if lines := auditLines(t, h.auditPath()); len(lines) != 1 || lines[0]["decision"] != "block" {
				t.Errorf("default audit log = %v, want the block there", lines)
			}
		})
	}
}

// buildPicket builds the picket binary into a temp dir.
func buildPicket(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "picket")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestHookDeadline runs the real binary while another process holds the
// session's read-before-edit ledger lock and never lets go, as a hung
// file system or a stuck picket would: the hook must answer deny on its
// own, well before Claude Code's timeout. (A policy file that is a FIFO,
// the old stand-in, is now refused without reading it.)
// hungLedger returns a hook project whose read ledger another process
// holds locked, and the Edit event that then waits on it: a hook stuck
// before its decision.
func hungLedger(t *testing.T) (*hookProject, string) {
	t.Helper()
	h := newHookProject(t, `{"extends": "code", "picket": {"writeGuards": {"readBeforeEdit": true}}}`)
	readme := filepath.Join(h.dir, "README.md")
	if a := h.run(h.event(claude.EventPostToolUse, "Read", map[string]any{"file_path": readme})); a.code != 0 {
		t.Fatalf("PostToolUse Read: exit %d\n%s", a.code, a.stderr)
	}
	locks, _ := filepath.Glob(filepath.Join(h.state, "picket", "ledger", "*.lock"))
	if len(locks) != 1 {
		t.Fatalf("ledger locks = %v, want one", locks)
	}
	f, err := os.OpenFile(locks[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return h, h.pre("Edit", map[string]any{"file_path": readme, "old_string": "#", "new_string": "##"})
}

// TestHookSignals: a hangup (the terminal closed), an interrupt or a
// termination does not end the hook unanswered (Claude Code reads 129, 130
// or 143 as "go ahead"): it goes on to its answer, here the deadline's
// deny, and exits 0.
func TestHookSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPicket(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			h, event := hungLedger(t)
			cmd := exec.Command(bin, "hook", "--deadline", "1500ms")
			cmd.Env = h.env
			cmd.Stdin = strings.NewReader(event)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Stuck on the ledger lock by now.
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(sig)
			if err := cmd.Wait(); err != nil {
				t.Errorf("hook after %v: %v (want exit 0)\n%s", sig, err, stderr.String())
			}
			var out struct{ HookSpecificOutput map[string]string }
			json.Unmarshal(stdout.Bytes(), &out)
			if o := out.HookSpecificOutput; o["permissionDecision"] != "deny" {
				t.Errorf("hook after %v printed %q, want a deny", sig, stdout.String())
			}
		})
	}
	// Still reading its event (the agent has not closed stdin): the same,
	// and the event it then gets is judged (here: cut short, so denied).
	t.Run("while reading", func(t *testing.T) {
		cmd := exec.Command(bin, "hook")
		// Not the person's own: the hook would write their audit log.
		cmd.Env = newHookProject(t, hookFence).env
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		in.Write([]byte(`{"hook_event_name":"PreToolUse",`))
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		time.Sleep(200 * time.Millisecond)
		in.Close()
		if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) {
			t.Errorf("hook TERMed while reading its event: %v, printed %q; want exit 0 and a deny", err, stdout.String())
		}
	})
}

func TestHookDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	h, event := hungLedger(t)
	bin := buildPicket(t)
	cmd := exec.Command(bin, "hook", "--deadline", "300ms")
	cmd.Env = h.env
	cmd.Stdin = strings.NewReader(event)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		t.Errorf("hook on a hung ledger: %v (want exit 0)\n%s", err, stderr.String())
	}
	if took > 3*time.Second {
		t.Errorf("hook on a hung ledger took %v, want about 300ms", took)
	}
	var out struct{ HookSpecificOutput map[string]string }
	json.Unmarshal(stdout.Bytes(), &out)
	o := out.HookSpecificOutput
	if o["permissionDecision"] != "deny" || !strings.HasPrefix(o["permissionDecisionReason"], "picket: error: ") {
		t.Errorf("hook on a hung ledger printed %q, want an error deny", stdout.String())
	}
	if !strings.Contains(stderr.String(), "deadline") {
		t.Errorf("hook stderr = %q, want it to name the deadline", stderr.String())
	}
}

// FuzzClaudeHook runs the real CLI on arbitrary stdin. It must never
// panic (a recovered panic answers "internal error", which fails too),
// always exit 0, and fail closed: a payload ParseClaude rejects, or a
// PreToolUse on a file tool whose input does not map to paths, is denied.
func FuzzClaudeHook(f *testing.F) {
	h := newHookProject(f, hookFence)
	replacer := strings.NewReplacer("$P", h.dir, "$H", h.home)
	for _, tc := range hostileCases() {
		if tc.fence == "" && tc.setup == nil && len(tc.payload) < 1<<16 {
			f.Add(replacer.Replace(tc.payload))
		}
	}
	fixtures, err := os.ReadFile(filepath.Join("..", "..", "hook", "claude", "testdata", "claude-code-2.1.328", "events.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(fixtures)), "\n") {
		f.Add(strings.ReplaceAll(line, "/home/dev/project", h.dir))
	}
	f.Fuzz(func(t *testing.T, payload string) {
		ev, perr := claude.Parse([]byte(payload))
		var terr error
		if perr == nil {
			_, terr = claude.Targets(ev.Tool, ev.Input)
		}
		a := runHookCLI(t, h.env, payload)
		if a.code != 0 {
			t.Fatalf("hook exit status = %d", a.code)
		}
		if strings.Contains(a.reason, "internal error") {
			t.Fatalf("hook recovered from a panic: %s", a.reason)
		}
		switch {
		case perr != nil && !a.deny:
			t.Fatalf("ParseClaude error %q, but the hook answered %q", perr, a.stdout)
		case perr == nil && ev.Event == claude.EventPreToolUse && terr != nil && !errors.Is(terr, hook.ErrNotJudged) && !a.deny:
			t.Fatalf("%s input does not map (%v), but the hook answered %q", ev.Tool, terr, a.stdout)
		case perr == nil && ev.Event == claude.EventPreToolUse && errors.Is(terr, hook.ErrNotJudged) && a.stdout != "":
			t.Fatalf("%s is not judged, but the hook answered %q", ev.Tool, a.stdout)
		}
	})
}
