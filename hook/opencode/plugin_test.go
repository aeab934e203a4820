package opencode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// pluginRun is one call through the plugin's tool.execute.before hook, as
// testdata/node/driver.mjs reports it.
type pluginRun struct {
	Args      map[string]any `json:"args"`
	Threw     string         `json:"threw"`
	LoadThrew string         `json:"loadThrew"`
	Ms        int            `json:"ms"`
}

type pluginCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// runPlugin renders the real plugin with exe as picket, loads it in node
// as opencode would, and runs calls through it.
func runPlugin(t *testing.T, exe string, env []string, calls []pluginCall, config string) []pluginRun {
	t.Helper()
	node := testenv.Tool(t, "node", "apt-get install nodejs")
	dir := t.TempDir()
	src, err := Render(exe)
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "picket.mjs") // ESM to node, as to opencode
	if err := os.WriteFile(plugin, src, 0o644); err != nil {
		t.Fatal(err)
	}
	driver, _ := filepath.Abs("testdata/node/driver.mjs")
	cj, _ := json.Marshal(calls)
	args := []string{driver, plugin, dir, string(cj)}
	if config != "" {
		args = append(args, config)
	}
	cmd := exec.Command(node, args...)
	// The plugin asks the person unless CI is set: a test that wants a
	// headless run says so in env, whatever the environment it runs in.
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CI=") }), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node driver: %v\n%s", err, out)
	}
	var runs []pluginRun
	if err := json.Unmarshal(out, &runs); err != nil {
		t.Fatalf("driver printed %q: %v", out, err)
	}
	return runs
}

func fakePicket(t *testing.T) string {
	t.Helper()
	exe, _ := filepath.Abs("testdata/node/fake-picket.mjs")
	return exe
}

var readEnv = []pluginCall{{Tool: "read", Args: map[string]any{"filePath": "/p/.env"}}}

// TestPluginFailsClosed: every way picket serve can fail blocks the call,
// with a message that says so; none lets it run. opencode runs a call
// whose hook returned, and waits for a hook forever.
func TestPluginFailsClosed(t *testing.T) {
	t.Parallel()
	fake := fakePicket(t)
	for _, tc := range []struct {
		name, exe, mode, want string
	}{
		{"sidecar missing", "/nonexistent/picket", "", "failed to run /nonexistent/picket serve"},
		{"sidecar exits at start", fake, "exit", "picket serve exited (3)"},
		{"killed mid-call", fake, "killed", "picket serve exited (SIGKILL)"},
		{"answering garbage", fake, "garbage", "not JSON"},
		{"answering late", fake, "late", "did not answer decide within 0.5 s"},
		{"another protocol version", fake, "protocol", "speaks sidecar protocol 2, this plugin speaks 1"},
		{"answering another request", fake, "wrongid", "a request it was not asked"},
		{"an answer without allow", fake, "noallow", "picket: blocked"},
		{"an error answer", fake, "error", "boom"},
		{"a not-judged answer whose allow is not true", fake, "notjudgedstring", "picket: blocked"},
		{"a deny", fake, "deny", "picket: blocked read /p/.env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runs := runPlugin(t, tc.exe, []string{"FAKE_MODE=" + tc.mode, "PICKET_SIDECAR_TIMEOUT_MS=500"}, readEnv, "")
			if len(runs) != 1 || runs[0].LoadThrew != "" {
				t.Fatalf("runs = %+v: the plugin must load whatever the sidecar does (opencode skips one that throws)", runs)
			}
			r := runs[0]
			if r.Threw == "" || !strings.HasPrefix(r.Threw, "picket: ") || !strings.Contains(r.Threw, tc.want) {
				t.Errorf("the call %s; want it blocked with %q", describe(r), tc.want)
			}
			if tc.mode == "late" && r.Ms > 5000 {
				t.Errorf("a late sidecar held the call %d ms", r.Ms)
			}
		})
	}
}

func describe(r pluginRun) string {
	if r.Threw != "" {
		return "threw " + r.Threw
	}
	b, _ := json.Marshal(r.Args)
	return "ran with " + string(b)
}

// TestPluginRecovers: a sidecar killed mid-call blocks that call, and the
// next call starts a new one.
func TestPluginRecovers(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "killed")
	runs := runPlugin(t, fakePicket(t), []string{"FAKE_MODE=killonce", "FAKE_MARKER=" + marker}, append(readEnv, readEnv...), "")
	if len(runs) != 2 || runs[0].Threw == "" || runs[1].Threw != "" {
		t.Fatalf("runs = %+v, want the first call blocked and the second through a new sidecar", runs)
	}
}

// TestPluginPinsAndFreezes: an allowed file call runs on the path picket
// judged (the resolved one), a relative path is resolved against the
// session's directory first, and the arguments are frozen against the
// plugins that run after this one.
func TestPluginPinsAndFreezes(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "requests")
	runs := runPlugin(t, fakePicket(t), []string{"FAKE_MODE=ok", "FAKE_LOG=" + log}, []pluginCall{
		{Tool: "read", Args: map[string]any{"filePath": "/x/link/a.txt"}},
		{Tool: "edit", Args: map[string]any{"filePath": "rel.txt", "oldString": "a", "newString": "b"}},
		{Tool: "glob", Args: map[string]any{"pattern": "*.go"}},
	}, "")
	if len(runs) != 3 || runs[0].Args["filePath"] != "/x/target/a.txt" {
		t.Fatalf("runs = %+v, want the read pinned to the resolved path", runs)
	}
	if p, _ := runs[1].Args["filePath"].(string); !filepath.IsAbs(p) || filepath.Base(p) != "rel.txt" {
		t.Errorf("edit ran on %v, want the relative path resolved against the session's directory", runs[1].Args["filePath"])
	}
	b, _ := os.ReadFile(log)
	var decides int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		json.Unmarshal([]byte(line), &r)
		switch r["op"] {
		case "decide":
			decides++
			if r["ask"] != true || r["session"] != "ses_1" || !filepath.IsAbs(r["cwd"].(string)) {
				t.Errorf("decide request %s: want ask (no CI), the session and the session's directory", line)
			}
		case "announce":
			p, _ := r["plugin"].(map[string]any)
			if p == nil || !strings.HasSuffix(p["file"].(string), "picket.mjs") || p["version"] == "" || len(p["sha256"].(string)) != 64 {
				t.Errorf("announce request %s: want the plugin's file, version and hash", line)
			}
		}
	}
	if decides != 3 || !strings.Contains(string(b), `"op":"announce"`) {
		t.Errorf("the sidecar saw %d decides and no announce? %s", decides, b)
	}
	// Headless: decide asks no one.
	os.Remove(log)
	runPlugin(t, fakePicket(t), []string{"FAKE_MODE=ok", "FAKE_LOG=" + log, "CI=true"}, readEnv, "")
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), `"ask":false`) {
		t.Errorf("under CI the decide asked: %s", b)
	}
}

// TestPluginBash: bash runs under picket run in the call's workdir, with
// the session's directory as --root, the session and the agent, the
// command passed whole whatever it holds; a command that cannot be wrapped
// is blocked.
func TestPluginBash(t *testing.T) {
	t.Parallel()
	fake := fakePicket(t)
	hostile := "echo 'it''s' \"$HOME\" `id` $(id) \\\n; exit 3 # \x01 ü"
	runs := runPlugin(t, fake, []string{"FAKE_MODE=ok", "SHELL=/bin/sh"}, []pluginCall{
		{Tool: "bash", Args: map[string]any{"command": hostile, "description": "d"}},
		{Tool: "bash", Args: map[string]any{"command": "ls", "workdir": "sub", "timeout": 1000}},
		{Tool: "bash", Args: map[string]any{"command": "a\x00b"}},
		{Tool: "bash", Args: map[string]any{"command": 7}},
		{Tool: "bash", Args: map[string]any{"command": "ls", "workdir": 7}},
	}, "")
	if len(runs) != 5 {
		t.Fatalf("runs = %+v", runs)
	}
	for i, want := range []string{"", "", "NUL", "no command string", "workdir is not a string"} {
		if want == "" {
			continue
		}
		if !strings.Contains(runs[i].Threw, want) {
			t.Errorf("bash call %d %s; want blocked with %q", i, describe(runs[i]), want)
		}
	}
	for i, cmd := range []string{hostile, "ls"} {
		line, _ := runs[i].Args["command"].(string)
		out, err := exec.Command("/bin/sh", "-c", line).Output()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var argv []string
		if err := json.Unmarshal(out, &argv); err != nil {
			t.Fatalf("%q printed %q", line, out)
		}
		dir := "" // the session's directory, a temp dir the driver named
		for j := 0; j+1 < len(argv); j++ {
			if argv[j] == "--root" {
				dir = argv[j+1]
			}
		}
		cwd := dir
		if i == 1 {
			cwd = filepath.Join(dir, "sub")
		}
		want := []string{"run", "--cwd", cwd, "--root", dir, "--session", "ses_1", "--agent", "opencode", "--", "/bin/sh", "-c", cmd}
		if strings.Join(argv, "\x00") != strings.Join(want, "\x00") || dir == "" {
			t.Errorf("bash call %d ran picket %q, want %q", i, argv, want)
		}
	}
	// A shell whose quoting picket does not know: blocked.
	runs = runPlugin(t, fake, []string{"FAKE_MODE=ok"}, []pluginCall{{Tool: "bash", Args: map[string]any{"command": "ls"}}}, `{"shell":"/bin/false"}`)
	if !strings.Contains(runs[0].Threw, "whose quoting picket does not know") {
		t.Errorf("bash with shell /bin/false %s; want blocked", describe(runs[0]))
	}
}
