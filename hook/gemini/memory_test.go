package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// TestContextLoads: a call after which Gemini CLI loads a context file is
// judged with what that file imports; a write of a context file is judged
// as it leaves the file.
func TestContextLoads(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	for f, c := range map[string]string{
		".git/HEAD": "x", ".env": "SECRET", "ok/GEMINI.md": "rules @./a.md\n", "ok/a.md": "a", "ok/x.txt": "x",
		"bad/GEMINI.md": "@../.env\n", "bad/x.txt": "x", "bad/deeper/y.txt": "y",
		"agents/AGENTS.md": "@../.env", "agents/x.txt": "x",
		"edit/GEMINI.md": "see @../.enX\n", "plain/x.txt": "x",
	} {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(c), 0o644)
	}
	os.MkdirAll(filepath.Join(ws, "linked"), 0o755)
	os.Symlink("../.env", filepath.Join(ws, "linked", "GEMINI.md"))
	os.WriteFile(filepath.Join(ws, ".gemini-settings.json"), nil, 0o644)
	p := decide.MustCompile(decide.Spec{Root: ws, Home: filepath.Join(ws, "home"), Mode: decide.WorkspaceWrite,
		AllowWrite: decide.Rules("test", "."), Blocklist: decide.Rules("test", ".env")})
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(ws, "none.json"))
	for _, tt := range []struct {
		tool, in string
		denied   bool
	}{
		{toolRead, `{"file_path":"ok/x.txt"}`, false},
		{toolRead, `{"file_path":"bad/x.txt"}`, true},
		{toolRead, `{"file_path":"bad/deeper/y.txt"}`, true},
		{toolRead, `{"file_path":"linked/x.txt"}`, true},
		{toolRead, `{"file_path":"plain/x.txt"}`, false},
		{toolList, `{"dir_path":"bad"}`, true},
		{toolList, `{"dir_path":"ok"}`, false},
		{toolGlob, `{"pattern":"*","dir_path":"bad"}`, false}, // glob loads no context
		{toolWrite, `{"file_path":"plain/GEMINI.md","content":"@../.env"}`, true},
		{toolWrite, `{"file_path":"plain/GEMINI.md","content":"@\\x2e./.env"}`, false},
		{toolWrite, `{"file_path":"plain/notes.md","content":"@../.env"}`, false},
		{toolWrite, `{"file_path":"plain/GEMINI.md","content":"fine"}`, false},
		{toolEdit, `{"file_path":"edit/GEMINI.md","old_string":"enX","new_string":"env"}`, true},
		{toolEdit, `{"file_path":"edit/GEMINI.md","old_string":"see","new_string":"look"}`, false},
		{toolEdit, `{"file_path":"edit/GEMINI.md","old_string":"not there","new_string":"@../.env"}`, true},
		{toolRead, `{"file_path":"agents/x.txt"}`, false}, // AGENTS.md is no context file until the settings say so
		// The private project memory Gemini CLI loads into every session.
		{toolWrite, `{"file_path":"home/.gemini/tmp/proj/memory/MEMORY.md","content":"- see @` + ws + `/.env"}`, true},
		{toolWrite, `{"file_path":"home/.gemini/tmp/proj/memory/MEMORY.md","content":"- tabs, not spaces"}`, false},
		{toolWrite, `{"file_path":"plain/memory/MEMORY.md","content":"@../../.env"}`, false},
	} {
		c := hook.Call{Agent: Name, Cwd: ws, Tool: tt.tool, Input: input(t, tt.in)}
		ts, err := targets(c)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.in, err)
		}
		d, err := Agent.Judge(p, c, ts, hook.Ledger{})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allow != tt.denied {
			t.Errorf("%s %s: allow %v (%s %s), want denied %v", tt.tool, tt.in, d.Allow, d.Rule, d.Reason, tt.denied)
		}
		if !d.Allow && !strings.Contains(d.Reason, "context file") && !strings.Contains(d.Reason, "looser match") {
			t.Errorf("%s %s: reason %q does not say which context file", tt.tool, tt.in, d.Reason)
		}
	}
	os.MkdirAll(filepath.Join(ws, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(ws, ".gemini", "settings.json"), []byte(`{"context": {"fileName": ["AGENTS.md"]}}`), 0o644)
	if names := contextNames(filepath.Join(ws, "home"), ws, os.Getenv); !slices.Equal(names, []string{"GEMINI.md", "AGENTS.md"}) {
		t.Errorf("context names %v", names)
	}
	c := hook.Call{Agent: Name, Cwd: ws, Tool: toolRead, Input: input(t, `{"file_path":"agents/x.txt"}`)}
	ts, _ := targets(c)
	if d, _ := Agent.Judge(p, c, ts, hook.Ledger{}); d.Allow {
		t.Errorf("read_file agents/x.txt with AGENTS.md a context file: allowed")
	}
}

func TestImports(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"@a.md", []string{"a.md"}},
		{"see @./x and @../y\n@/abs\t@z", []string{"./x", "../y", "/abs", "z"}},
		{"mail@example.com @@x @1x @-x @", nil},
		{"`@code`", nil}, // "`" before it: not an import to Gemini CLI either
		{"a\r@b.md", []string{"b.md"}},
	} {
		if got := imports(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("imports(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestStartContext: before a prompt reaches the model (BeforeAgent), the
// context files Gemini CLI loaded when the session started are judged as
// reads with what they import: one that imports .env (written by a
// shell command in an earlier session) denies the prompt; clean ones,
// or none, let it through.
func TestStartContext(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	sub := filepath.Join(ws, "sub")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET"), 0o644)
	t.Setenv("HOME", filepath.Join(ws, "home"))
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(ws, "none.json"))
	p := decide.MustCompile(decide.Spec{Root: ws, Home: filepath.Join(ws, "home"), Mode: decide.WorkspaceWrite,
		AllowWrite: decide.Rules("test", "."), Blocklist: decide.Rules("test", ".env")})
	ev, err := decode([]byte(`{"session_id":"s","transcript_path":"","cwd":"` + sub + `","hook_event_name":"BeforeAgent","timestamp":"t","prompt":"hello"}`))
	if err != nil || ev.Kind != hook.BeforeTool || ev.Call.Tool != toolStartContext || len(ev.Call.Input) != 0 {
		t.Fatalf("BeforeAgent decoded as %+v, %v", ev, err)
	}
	judge := func() (decide.Decision, error) {
		ts, err := targets(ev.Call)
		if err != nil {
			return decide.Decision{Allow: true}, err
		}
		return Agent.Judge(p, ev.Call, ts, hook.Ledger{})
	}
	if _, err := judge(); err != hook.ErrNotJudged {
		t.Errorf("no context file: %v, want nothing to judge", err)
	}
	for _, tt := range []struct {
		file, text string
		denied     bool
	}{
		{"sub/GEMINI.md", "rules\n", false},
		{"GEMINI.md", "see @.env\n", true},     // above the session's directory, up to the git root
		{"GEMINI.md", "see @./sub/x\n", false}, // a file that is not there
		{"sub/GEMINI.md", "@../.env", true},
	} {
		os.WriteFile(filepath.Join(ws, tt.file), []byte(tt.text), 0o644)
		d, err := judge()
		if err != nil || d.Allow == tt.denied || tt.denied && !strings.Contains(d.Reason, "context file") {
			t.Errorf("%s holding %q: allow %v (%s), %v; want denied %v", tt.file, tt.text, d.Allow, d.Reason, err, tt.denied)
		}
	}
	os.Remove(filepath.Join(ws, "sub", "GEMINI.md"))
	os.Remove(filepath.Join(ws, "GEMINI.md"))
	os.Symlink(".env", filepath.Join(ws, "GEMINI.md"))
	if d, err := judge(); err != nil || d.Allow {
		t.Errorf("GEMINI.md a link to .env: allow %v, %v", d.Allow, err)
	}
}
