package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

const exe = "/opt/picket/bin/picket"

// TestWire: every sample gets picket's four hook groups, with the
// timeout in milliseconds, every other setting and hook kept; Unwire
// gives the sample back byte for byte.
func TestWire(t *testing.T) {
	samples, _ := filepath.Glob("testdata/*.settings*")
	samples = append(samples, "")
	for _, f := range samples {
		var in []byte
		if f != "" {
			in, _ = os.ReadFile(f)
		}
		out, err := wire(in, exe)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var s settings
		std, _ := hujson.Standardize(bytes.Clone(out)) // in place
		json.Unmarshal(std, &s)
		for _, e := range events {
			var found int
			for _, g := range s.Hooks[e.name] {
				for _, h := range g.Hooks {
					if h.Name == HookName {
						found++
						if h.Command != HookCommand(exe) || g.Matcher != e.matcher {
							t.Errorf("%s: %s hook %q (matcher %q)", f, e.name, h.Command, g.Matcher)
						}
					}
				}
			}
			if found != 1 {
				t.Errorf("%s: %d picket hooks for %s, want 1:\n%s", f, found, e.name, out)
			}
		}
		var raw struct {
			Hooks map[string][]struct {
				Sequential bool `json:"sequential"`
				Hooks      []struct {
					Timeout int64 `json:"timeout"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		json.Unmarshal(std, &raw)
		// Every BeforeTool hook runs in turn, so that one after picket's
		// is given the command picket wrapped, not the model's.
		if last := raw.Hooks[EventBeforeTool][len(raw.Hooks[EventBeforeTool])-1]; !last.Sequential {
			t.Errorf("%s: picket's BeforeTool group is not sequential:\n%s", f, out)
		}
		if got := raw.Hooks[EventBeforeTool][len(raw.Hooks[EventBeforeTool])-1].Hooks[0].Timeout; got != 90000 {
			t.Errorf("%s: timeout %d, want 90000 (milliseconds)", f, got)
		}
		if f == "testdata/comments.settings.jsonc" {
			for _, keep := range []string{"// the light one", "/* my own hooks */", "~/bin/audit-shell", "notify-send gemini", "// end\n"} {
				if !bytes.Contains(out, []byte(keep)) {
					t.Errorf("%s: lost %q:\n%s", f, keep, out)
				}
			}
		}
		again, err := wire(out, exe)
		if err != nil || !bytes.Equal(again, out) {
			t.Errorf("%s: wiring twice changed the file:\n%s", f, again)
		}
		back, err := unwire(out, exe)
		if err != nil {
			t.Fatal(err)
		}
		if f == "" && back != nil || f != "" && !bytes.Equal(back, in) {
			t.Errorf("%s: Unwire(Wire(x)) =\n%s\nwant\n%s", f, back, in)
		}
	}
}

// TestWireMovedPicket: wiring another executable replaces picket's hooks,
// and unwire takes out any picket's, whatever executable it names, while
// a hook of the person's that merely mentions picket stays.
func TestWireMovedPicket(t *testing.T) {
	old, _ := wire([]byte(`{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "mine", "command": "echo picket hook --agent gemini"}]}]}}`), "/old/picket")
	moved, err := wire(old, exe)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(moved, []byte("/old/picket")) || !bytes.Contains(moved, []byte(exe)) || !bytes.Contains(moved, []byte(`"mine"`)) {
		t.Errorf("rewired settings:\n%s", moved)
	}
	back, _ := unwire(moved, "/elsewhere/picket")
	if bytes.Contains(back, []byte(`"picket"`)) || !bytes.Contains(back, []byte(`"mine"`)) {
		t.Errorf("unwired settings:\n%s", back)
	}
}

func TestWireRefuses(t *testing.T) {
	for _, in := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"BeforeTool": {}}}`, `{"hooks": {}, "hooks": {}}`, `{"hooks": {"AfterTool": [], "AfterTool": []}}`, `{"x": `} {
		if out, err := wire([]byte(in), exe); err == nil {
			t.Errorf("wire(%s) = %s, want an error", in, out)
		}
	}
}

// TestHookCommand: the command runs picket's hook, blocks (exit 2, with a
// reason) when picket fails in any way, and lets picket's own answer and
// status through when it answers.
func TestHookCommand(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, script string
		code         int
		out, err     string
	}{
		{"answers", "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"deny\",\"reason\":\"r\"}'\n", 0, `{"decision":"deny","reason":"r"}`, ""},
		{"allows", "#!/bin/sh\ncat >/dev/null\n", 0, "", ""},
		{"fails", "#!/bin/sh\nexit 1\n", 2, "", "picket: error: picket's hook failed"},
		{"crashes", "#!/bin/sh\nkill -SEGV $$\n", 2, "", "(exit 139)"},
		{"missing", "", 2, "", "(exit 127)"},
		{"hangs", "#!/bin/sh\nexec sleep 60\n", 2, "", "(exit 137)"},
	} {
		p := filepath.Join(dir, tt.name, "pick et")
		if tt.script != "" {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(tt.script), 0o755)
		}
		cmd := exec.Command("bash", "-c", hookCommand(p, hook.TimeoutBin(os.Getenv), time.Second))
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"BeforeTool"}`)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if code != tt.code || strings.TrimSpace(stdout.String()) != tt.out || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.name, code, stdout.String(), stderr.String(), tt.code, tt.out, tt.err)
		}
	}
	if KillAfter >= HookTimeout {
		t.Errorf("the command kills picket after %s, Gemini CLI's timeout is %s", KillAfter, HookTimeout)
	}
	// picket answers by itself before it is killed: a prompt starts within
	// the hook's deadline (cmd/picket's 10 s) and ends, with a deny when
	// no one answered, within the longest prompt timeout and its margin.
	if answer := 10*time.Second + time.Duration(decide.PromptTimeoutCap)*time.Second + hook.PromptMargin; answer+3*time.Second > KillAfter {
		t.Errorf("picket may take %s to answer, the command kills it after %s", answer, KillAfter)
	}
}

// TestHookCommandPlantedTimeout: a "timeout" put on PATH after install,
// one that exits 0 without running anything, does not stand in for
// coreutils' one: a picket that fails still blocks the call.
func TestHookCommandPlantedTimeout(t *testing.T) {
	tb := hook.TimeoutBin(os.Getenv)
	if tb == "" {
		t.Skip("no timeout(1) on PATH")
	}
	dir := t.TempDir()
	planted, p := filepath.Join(dir, "bin"), filepath.Join(dir, "picket")
	os.MkdirAll(planted, 0o755)
	os.WriteFile(filepath.Join(planted, "timeout"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	cmd := exec.Command("bash", "-c", hookCommand(p, tb, KillAfter))
	cmd.Env = append(os.Environ(), "PATH="+planted+":"+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"BeforeTool"}`)
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("with a planted timeout on PATH, a failing picket gave %v, want exit 2 (blocked)", err)
	}
	if got := hookExe(hookCommand("/x/pick et", tb, KillAfter)); got != "/x/pick et" {
		t.Errorf("hookExe = %q", got)
	}
	if got := hookExe(hookCommand("/x/picket", "", KillAfter)); got != "/x/picket" {
		t.Errorf("hookExe without a timeout = %q", got)
	}
}
