package agents_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
)

// TestContract holds every registered agent to the same contract: the
// registry is all a new agent has to join, and this is what joining
// means. See ARCHITECTURE.md, "Adding an agent".
func TestContract(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range agents.All {
		t.Run(a.Name, func(t *testing.T) {
			if seen[a.Name] || !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(a.Name) {
				t.Fatalf("name %q is repeated or not a lowercase word", a.Name)
			}
			seen[a.Name] = true
			if a.Title == "" || a.Targets == nil || a.Decode == nil || a.Reply == nil || a.Wire == nil || a.Unwire == nil ||
				a.Install == nil || a.Uninstall == nil || len(a.FileTools) == 0 || len(a.ConfigPaths) == 0 || a.Fixtures == "" {
				t.Fatalf("%s leaves a required field empty: %+v", a.Name, a)
			}
			if !strings.Contains(a.InstallHelp, "picket install "+a.Name) || !strings.Contains(a.InstallHelp, "picket uninstall "+a.Name) {
				t.Errorf("InstallHelp does not show picket install/uninstall %s:\n%s", a.Name, a.InstallHelp)
			}
			t.Run("fixtures parse", func(t *testing.T) { fixturesParse(t, a) })
			t.Run("file tools mapped", func(t *testing.T) { fileToolsMapped(t, a) })
			t.Run("reply schema", func(t *testing.T) { replySchema(t, a) })
			t.Run("wire round trip", func(t *testing.T) { wireRoundTrip(t, a) })
			t.Run("install round trip", func(t *testing.T) { installRoundTrip(t, a) })
			t.Run("config paths are mandatory", func(t *testing.T) { configMandatory(t, a) })
			if a.Hook != nil {
				// An agent that kills a hook still waiting lets the call
				// through: the timeout install writes leaves a prompt its
				// whole time, and the lock and the answer 30 s more.
				if min := time.Duration(decide.PromptTimeoutCap+30) * time.Second; a.Hook.Timeout < min {
					t.Errorf("hook timeout %s, want at least %s", a.Hook.Timeout, min)
				}
			}
		})
	}
}

// repoRoot is the module's root, where Fixtures are named from.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if dir == "/" {
			t.Fatal("no go.mod above the test")
		}
	}
}

// fixturesParse: every recorded event decodes, and every recorded call of
// a file tool maps to its targets.
func fixturesParse(t *testing.T, a *hook.Agent) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), a.Fixtures, "*", "*.ndjson"))
	if len(files) == 0 {
		t.Fatalf("no recorded events under %s/<version>/", a.Fixtures)
	}
	calls := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, hook.MaxEvent)
		for n := 1; sc.Scan(); n++ {
			ev, err := a.Decode(sc.Bytes())
			if err != nil {
				t.Errorf("%s:%d: Decode = %v", f, n, err)
				continue
			}
			if ev.Kind != hook.BeforeTool || !a.FileTool(ev.Call.Tool) {
				continue
			}
			calls++
			if _, err := a.Targets(ev.Call); err != nil {
				t.Errorf("%s:%d: Targets(%s) = %v", f, n, ev.Call.Tool, err)
			}
		}
	}
	if calls == 0 {
		t.Errorf("the fixtures hold no call of a file tool")
	}
}

// fileToolsMapped: every file tool is judged (an input it cannot read is
// an error, which denies, never a pass), and a tool it does not know
// passes untouched.
func fileToolsMapped(t *testing.T, a *hook.Agent) {
	for _, tool := range a.FileTools {
		_, err := a.Targets(hook.Call{Agent: a.Name, Tool: tool, Input: map[string]json.RawMessage{}})
		if errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("file tool %s is not judged", tool)
		}
	}
	for _, tool := range []string{"", "no_such_tool", "mcp__x__read"} {
		if _, err := a.Targets(hook.Call{Agent: a.Name, Tool: tool}); !errors.Is(err, hook.ErrNotJudged) {
			t.Errorf("tool %q: Targets = %v, want ErrNotJudged", tool, err)
		}
	}
}

// replySchema: a block is the agent's own answer in its exact schema
// (<Fixtures>/reply.schema.json), with the reason the model reads, and an
// exit status of 0 or 2; an allow is the agent's neutral answer, never an
// approval.
func replySchema(t *testing.T, a *hook.Agent) {
	file := filepath.Join(repoRoot(t), a.Fixtures, "reply.schema.json")
	c := jsonschema.NewCompiler()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(file, bytes.NewReader(src)); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(file)
	if err != nil {
		t.Fatal(err)
	}
	const reason = "picket: blocked Read /p/.env\n{\"x\": 1}"
	r := a.Reply(hook.Answer{Deny: true, Reason: reason})
	if r.Exit != 0 && r.Exit != 2 {
		t.Errorf("block exits %d, want 0 or 2", r.Exit)
	}
	if r.Exit == 2 && len(r.Stderr) == 0 {
		t.Errorf("block exits 2 with nothing on stderr (agents read that as go ahead)")
	}
	if len(r.Stdout) > 0 || r.Exit == 0 {
		var v any
		if err := json.Unmarshal(r.Stdout, &v); err != nil {
			t.Fatalf("block reply %q is not JSON: %v", r.Stdout, err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("block reply %s does not match %s: %v", r.Stdout, file, err)
		}
		if !bytes.Contains(r.Stdout, []byte(`picket: blocked Read /p/.env`)) {
			t.Errorf("block reply %s does not carry the reason", r.Stdout)
		}
	}
	allow := a.Reply(hook.Answer{})
	if allow.Exit != 0 || len(bytes.TrimSpace(allow.Stdout)) != 0 || len(allow.Stderr) != 0 {
		t.Errorf("allow = %+v, want the neutral answer: nothing, exit 0", allow)
	}
	if a.Rewrite == nil {
		return
	}
	// A rewrite carries the new input and no decision: it is no approval.
	in := map[string]json.RawMessage{"command": json.RawMessage(`"'/opt/picket' run -- bash -c 'ls'"`)}
	r = a.Reply(hook.Answer{Input: in})
	var v any
	if r.Exit != 0 || json.Unmarshal(r.Stdout, &v) != nil {
		t.Fatalf("rewrite = %+v, want JSON on stdout, exit 0", r)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("rewrite reply %s does not match %s: %v", r.Stdout, file, err)
	}
	if !bytes.Contains(r.Stdout, []byte(`bash -c 'ls'`)) || bytes.Contains(r.Stdout, []byte(`allow`)) {
		t.Errorf("rewrite reply %s: want the new input and no approval", r.Stdout)
	}
}

// wireRoundTrip: taking picket's wiring out of the settings it was added
// to gives them back byte for byte.
func wireRoundTrip(t *testing.T, a *hook.Agent) {
	samples := [][]byte{nil}
	more, _ := filepath.Glob(filepath.Join(repoRoot(t), a.Fixtures, "*.settings*"))
	for _, f := range more {
		b, _ := os.ReadFile(f)
		samples = append(samples, b)
	}
	for _, s := range samples {
		wired, err := a.Wire(s, "/opt/picket/bin/picket")
		if err != nil {
			t.Fatalf("Wire(%q) = %v", s, err)
		}
		if bytes.Equal(wired, s) {
			t.Errorf("Wire(%q) changed nothing", s)
		}
		back, err := a.Unwire(wired, "/opt/picket/bin/picket")
		if err != nil || !bytes.Equal(back, s) {
			t.Errorf("Unwire(Wire(%q)) = %q, %v; want it back byte for byte", s, back, err)
		}
	}
}

// installRoundTrip: picket install then picket uninstall, in a project and
// for the person, leave every file of both as it was: nothing added,
// nothing left behind.
func installRoundTrip(t *testing.T, a *hook.Agent) {
	for _, user := range []bool{false, true} {
		base := t.TempDir()
		home, proj, state := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "state")
		for _, d := range []string{home, proj} {
			os.MkdirAll(d, 0o755)
		}
		os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n"), 0o644)
		env := map[string]string{"HOME": home, a.ProjectDirEnv: proj, "PATH": os.Getenv("PATH"), "PICKET_SANDBOX_PROBE": "true"}
		var out bytes.Buffer
		nop := func(string, ...any) {}
		o := hook.InstallOptions{User: user, Project: !user, Exe: "/opt/picket/bin/picket", Home: home, StateDir: state,
			ConfigDir: filepath.Join(home, ".config", "fence"), Getenv: func(k string) string { return env[k] },
			Env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, Dir: proj, Stdout: &out, Info: nop, Warn: nop, Hint: nop}
		before := tree(t, base, state)
		if err := a.Install(o); err != nil {
			t.Fatalf("install (user %v): %v", user, err)
		}
		if after := tree(t, base, state); after == before {
			t.Errorf("install (user %v) wrote nothing", user)
		}
		if err := a.Uninstall(o); err != nil {
			t.Fatalf("uninstall (user %v): %v", user, err)
		}
		if after := tree(t, base, state); after != before {
			t.Errorf("install then uninstall (user %v) changed the files:\nbefore:\n%s\nafter:\n%s", user, before, after)
		}
	}
}

// tree lists every file and directory under root but skip, with contents.
func tree(t *testing.T, root, skip string) string {
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == skip {
			return filepath.SkipDir
		}
		b.WriteString(p)
		if !d.IsDir() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// configMandatory: a write to each of the agent's configuration paths,
// spelled as a real path, is denied by the mandatory layer under the
// policy picket builds, whatever the policy says.
func configMandatory(t *testing.T, a *hook.Agent) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.MkdirAll(home, 0o755)
	// A policy that opens everything it can: mandatory denies still hold.
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"filesystem": {"allowWrite": ["~", "/"]}, "picket": {"mode": "full"}}`), 0o644)
	env := decide.EnvFromOS(func(k string) string { return map[string]string{"HOME": home}[k] }, proj)
	env.Agents = agents.ConfigPaths()
	loaded, err := decide.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	spell := strings.NewReplacer("**/", "deep/sub/", "*", "x", "[", "", "]", "")
	for _, p := range a.ConfigPaths {
		if strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
			t.Errorf("config path %q: want ~/… or a path relative to the project root", p)
			continue
		}
		path := spell.Replace(p)
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			path = filepath.Join(home, rest)
		} else {
			path = filepath.Join(proj, path)
		}
		d := decide.Check(loaded.Policy, decide.Write, filepath.Join(path, "f"), proj, 1)
		if d.Allow || d.Layer != decide.LayerMandatory {
			t.Errorf("write below %s (%s) = %s %s, want the mandatory layer's deny", p, path, d.Layer, d.Rule)
		}
	}
}
