package hook

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
)

// memAudit keeps audit lines in memory.
type memAudit struct{ lines []audit.Entry }

func (m *memAudit) Append(_ *decide.Loaded, e audit.Entry) { m.lines = append(m.lines, e) }

// rewriteAgent reads "path" as a read and wraps "shell" calls' "cmd"
// under picket run; a "cmd" of "bad" cannot be wrapped.
var rewriteAgent = Agent{
	Name: "rw",
	Targets: func(c Call) ([]Target, error) {
		if c.Tool != "read" {
			return nil, ErrNotJudged
		}
		return PathTarget(c.Input, "path", decide.Read, false)
	},
	Rewrite: func(c Call, run ShellRun) (map[string]json.RawMessage, error) {
		if c.Tool != "shell" {
			return nil, nil
		}
		cmd := StringField(c.Input, "cmd")
		if cmd == "bad" {
			return nil, errors.New("cannot wrap it")
		}
		line, err := run.Line(c.Cwd, "bash", "-c", cmd)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(line)
		return map[string]json.RawMessage{"cmd": b}, nil
	},
}

// TestRewrite: a call picket lets through gets the agent's rewritten
// input, a denied one is denied unchanged, and one the agent cannot
// rewrite is denied and audited.
func TestRewrite(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"picket": {"blocklist": [".env"]}}`), 0o644)
	env := decide.EnvFromOS(func(k string) string { return map[string]string{"HOME": filepath.Join(base, "home")}[k] }, proj)
	sink := &memAudit{}
	p := &Pipeline{
		Agent:    &rewriteAgent,
		Policies: func(string) (*decide.Loaded, error) { return LoadPolicy(env) },
		Grants:   grants.Store{Dir: filepath.Join(base, "grants")},
		StateDir: filepath.Join(base, "state"),
		Audit:    sink,
		Headless: true,
		Exe:      "/opt/pick et/picket",
	}
	in := func(k, v string) map[string]json.RawMessage {
		b, _ := json.Marshal(v)
		return map[string]json.RawMessage{k: b}
	}

	a := p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "shell", Input: in("cmd", "cat 'a b'")})
	if a.Deny || a.Input == nil {
		t.Fatalf("shell call: %+v, want its input rewritten", a)
	}
	var line string
	json.Unmarshal(a.Input["cmd"], &line)
	want := `'/opt/pick et/picket' run --cwd ` + ShellQuote(proj) + ` --session s1 --agent rw -- bash -c 'cat '\''a b'\'''`
	if line != want {
		t.Errorf("rewritten command = %s, want %s", line, want)
	}
	if a := p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "read", Input: in("path", "README")}); a.Deny || a.Input != nil {
		t.Errorf("allowed read: %+v, want a neutral answer", a)
	}
	if a := p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "read", Input: in("path", ".env")}); !a.Deny || a.Input != nil {
		t.Errorf("denied read: %+v, want a deny without a rewrite", a)
	}
	a = p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "shell", Input: in("cmd", "bad")})
	if !a.Deny || !strings.Contains(a.Reason, "cannot wrap it") {
		t.Errorf("unwrappable shell call: %+v, want a deny naming why", a)
	}
	if n := len(sink.lines); n == 0 || sink.lines[n-1].Decision != "error" || sink.lines[n-1].Tool != "shell" {
		t.Errorf("audit lines %+v, want an error line for the unwrappable call", sink.lines)
	}
	p.Exe = ""
	if a := p.BeforeTool(Call{Agent: "rw", Session: "s1", Cwd: proj, Tool: "shell", Input: in("cmd", "ls")}); !a.Deny {
		t.Errorf("shell call with no picket to run it under: %+v, want a deny", a)
	}
}

// TestShellRunLine: the line runs the command with its words intact in
// a real shell, whatever they hold.
func TestShellRunLine(t *testing.T) {
	dir := t.TempDir()
	stub := filepath.Join(dir, "pick'et $x")
	os.WriteFile(stub, []byte("#!/bin/sh\nfor a; do printf '[%s]\\n' \"$a\"; done\n"), 0o755)
	cmd := "echo \"$HOME\" 'it''s' `x` $(y) \\ \n\t!"
	line, err := ShellRun{Exe: stub, Session: "s 1", Agent: "a"}.Line("/w d", "bash", "-c", cmd)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-c", line).Output()
	if err != nil {
		t.Fatalf("bash -c %s: %v", line, err)
	}
	want := "[run]\n[--cwd]\n[/w d]\n[--session]\n[s 1]\n[--agent]\n[a]\n[--]\n[bash]\n[-c]\n[" + cmd + "]\n"
	if string(out) != want {
		t.Errorf("the words bash got:\n%s\nwant:\n%s", out, want)
	}
	if _, err := (ShellRun{Exe: stub}).Line("/w", "bash", "-c", "a\x00b"); err == nil {
		t.Errorf("Line with a NUL byte: no error")
	}
	if _, err := (ShellRun{Exe: "picket"}).Line("/w", "true"); err == nil {
		t.Errorf("Line with a relative executable: no error")
	}
}
