package hook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/shellcmd"
)

// shellAgent judges one tool, "sh", by its command line, run in the
// call's cwd: the shape of an agent whose shell picket cannot wrap.
var shellAgent = Agent{Name: "shtest", Targets: func(c Call) ([]Target, error) {
	if c.Tool != "sh" {
		return nil, ErrNotJudged
	}
	return ShellLine(StringField(c.Input, "command"), c.Cwd), nil
}}

// TestShellLine: a shell command line is judged by what it touches and
// what it runs, through the one pipeline: a read of .env, a search that
// reaches it and a write outside the workspace are blocked; fence's
// command section blocks a command; a line picket cannot read is an
// error (a deny); the rest passes. The audit line names the command line.
func TestShellLine(t *testing.T) {
	f := newGrantFlow(t)
	os.WriteFile(filepath.Join(f.proj, "fence.jsonc"), []byte(`{"extends": "code", "picket": {"blocklist": [".env"]}, "command": {"deny": ["git push"]}}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(f.proj, ".env"), []byte("SECRET=x\n"), 0o600)
	os.WriteFile(filepath.Join(f.proj, "README.md"), []byte("hi\n"), 0o644)
	os.MkdirAll(filepath.Join(f.proj, "src"), 0o755)
	os.WriteFile(filepath.Join(f.proj, "src", "a.go"), []byte("package a\n"), 0o644)
	f.reload(t)
	f.p.Agent = &shellAgent
	f.p.Headless = true
	for _, tt := range []struct {
		line, cwd string
		want      string // "allow", "error", or the denying layer
	}{
		{"cat README.md", "", "allow"},
		{"cat .env", "", string(decide.LayerBlocklist)},
		{"cat ../.env", "src", string(decide.LayerBlocklist)},
		{"head -1 .env", "", string(decide.LayerBlocklist)},
		{"rg SECRET", "", string(decide.LayerBlocklist)},
		{"grep -r SECRET .", "", string(decide.LayerBlocklist)},
		{"rg package src", "", "allow"},
		{"echo x > /etc/picket-x", "", string(decide.LayerBoundary)},
		{"cp README.md /etc/r.md", "", string(decide.LayerBoundary)},
		{"ls src && cat a.go", "src", "allow"},
		{"git push origin main", "", string(LayerCommand)},
		{"shutdown -h now", "", string(LayerCommand)},
		{"eval \"$(cat x)\"", "", "error"},
		{"cat 'unterminated", "", "error"},
	} {
		cwd := f.proj
		if tt.cwd != "" {
			cwd = filepath.Join(f.proj, tt.cwd)
		}
		call := Call{Agent: "shtest", Session: "s1", Cwd: cwd, Root: f.proj, Tool: "sh", Input: rawInput{"command": jsonString(tt.line)}}
		targets, terr := f.p.Agent.Targets(call)
		v := f.p.Judge(f.loaded, nil, call, targets, terr)
		got := "allow"
		switch {
		case v.Err != nil:
			got = "error"
			if !errors.Is(v.Err, shellcmd.ErrUnanalysable) {
				t.Errorf("%q: error %v, want an unanalysable line", tt.line, v.Err)
			}
		case !v.Decision.Allow:
			got = string(v.Decision.Layer)
		}
		if got != tt.want {
			t.Errorf("%q in %s: %s (%+v), want %s", tt.line, cwd, got, v.Decision, tt.want)
		}
		if v.Entry.Command != tt.line || v.Entry.Cwd != cwd {
			t.Errorf("%q: audit entry command %q cwd %q, want the line and %s", tt.line, v.Entry.Command, v.Entry.Cwd, cwd)
		}
		if got == string(LayerCommand) && !strings.Contains(BlockMessage("sh", v.Decision), "picket: blocked sh "+strings.Fields(tt.line)[0]) {
			t.Errorf("%q: block message %q does not name the command", tt.line, BlockMessage("sh", v.Decision))
		}
	}
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
