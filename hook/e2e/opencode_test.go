package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/opencode"
)

// opencodeFenced is an opencode world with picket built and its plugin
// installed in the project by `picket install opencode --project`.
type opencodeFenced struct {
	*opencodeWorld
	picket, state string
}

func newOpencodeFenced(t *testing.T) *opencodeFenced {
	t.Helper()
	w := &opencodeFenced{opencodeWorld: newOpencodeWorld(t)}
	w.picket = filepath.Join(w.base, "bin", "picket")
	w.state = filepath.Join(w.home, ".local", "state")
	mustRun(t, repoRoot(t), os.Environ(), "go", "build", "-o", w.picket, "./cmd/picket")
	writeFile(t, filepath.Join(w.project, "README.md"), "hello from the e2e readme\n")
	writeFile(t, filepath.Join(w.project, "fence.jsonc"), projectFence)
	out := mustRun(t, w.project, w.env, w.picket, "install", "opencode", "--project")
	plugin := filepath.Join(w.project, ".opencode", "plugins", opencode.File)
	if src, err := os.ReadFile(plugin); err != nil || !bytes.Contains(src, []byte(`const PICKET = "`+w.picket+`";`)) {
		t.Fatalf("picket install opencode --project wrote no plugin running %s (err %v): %s", w.picket, err, out)
	}
	return w
}

// run runs `opencode run --format json` headless (CI: every block final)
// in the project.
func (w *opencodeFenced) run(t *testing.T, bin string, flags ...string) []byte {
	t.Helper()
	args := append([]string{"run", "Do the scripted steps.", "--format", "json"}, flags...)
	stdout, stderr, took := w.probeWorld.run(t, w.project, []string{"CI=true"}, bin, args...)
	t.Logf("opencode run took %v; stderr:\n%s", took, clip(string(stderr), 2000))
	return stdout
}

// TestOpencode runs the pinned opencode, headless, with picket's plugin
// installed by picket install opencode, against a scripted Chat
// Completions model: the file tools are judged, bash runs in picket's
// sandbox, blocks reach the model with picket's reason, the audit names
// opencode and its session, the plugin announced itself, and the secret
// reaches the model in no request.
func TestOpencode(t *testing.T) {
	t.Parallel()
	bin, version := AgentBinary(t, "opencode")
	w := newOpencodeFenced(t)
	secret := "hunter2-e2e-" + randomHex(t)
	writeFile(t, filepath.Join(w.project, ".env"), "SECRET_VALUE="+secret+"\n")
	outside := filepath.Join(w.base, "outside")
	writeFile(t, filepath.Join(outside, "keep.txt"), "outside\n")
	readme := filepath.Join(w.project, "README.md")
	script := []Turn{
		0:  ToolUse("read", map[string]any{"filePath": ".env"}),
		1:  ToolUse("write", map[string]any{"filePath": filepath.Join(outside, "escape.txt"), "content": "escaped\n"}),
		2:  ToolUse("read", map[string]any{"filePath": "README.md"}),
		3:  ToolUse("edit", map[string]any{"filePath": "README.md", "oldString": "hello from", "newString": "edited by"}),
		4:  opencodeShell("cat .env"),
		5:  opencodeShell("touch " + filepath.Join(outside, "touched")),
		6:  opencodeShell("ls"),
		7:  ToolUse("grep", map[string]any{"pattern": "hunter2-e2e-[0-9a-f]+"}),
		8:  ToolUse("write", map[string]any{"filePath": ".opencode/plugins/evil.js", "content": "export const X = async () => ({})\n"}),
		9:  ToolUse("bash", map[string]any{"command": "pwd; touch made-here", "workdir": outside, "description": "probe"}),
		10: Text("DONE"),
	}
	model, err := StartChat(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "scripted")
	stdout := w.run(t, bin)
	if !strings.Contains(string(stdout), `"text":"DONE"`) {
		t.Errorf("opencode run did not finish the script:\n%s", clip(string(stdout), 3000))
	}
	results := model.Results()
	for k := 0; k <= 9; k++ {
		t.Logf("opencode %s, call %d: the model got %q", version, k, clip(results[ToolUseID(k)].Text, 300))
	}
	for k, what := range map[int]string{0: "read .env", 1: "write outside the workspace", 8: "write of .opencode/plugins"} {
		if r, ok := results[ToolUseID(k)]; !ok || !strings.Contains(r.Text, "picket: blocked") {
			t.Errorf("%s: the model got %q, want picket's block", what, r.Text)
		}
	}
	if r := results[ToolUseID(0)]; !strings.Contains(r.Text, `"rule": "picket.blocklist"`) {
		t.Errorf("read .env: the model got %q, want picket's reason with its rule", r.Text)
	}
	if r := results[ToolUseID(2)]; !strings.Contains(r.Text, "hello from the e2e readme") {
		t.Errorf("read README.md: the model got %q, want its content", r.Text)
	}
	if got := readFileString(t, readme); got != "edited by the e2e readme\n" {
		t.Errorf("README.md after the edit = %q (the model got %q)", got, results[ToolUseID(3)].Text)
	}
	if r := results[ToolUseID(6)]; !strings.Contains(r.Text, "README.md") || !strings.Contains(r.Text, "fence.jsonc") {
		t.Errorf("bash ls: the model got %q, want the listing", r.Text)
	}
	for _, f := range []string{"escape.txt", "touched", "made-here"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s was created outside the workspace", f)
		}
	}
	if _, err := os.Stat(filepath.Join(w.project, ".opencode", "plugins", "evil.js")); err == nil {
		t.Errorf("the model wrote a plugin into .opencode/plugins")
	}
	if r := results[ToolUseID(9)]; !strings.Contains(r.Text, outside) {
		t.Errorf("bash in workdir %s: the model got %q, want it to run there (and fail to write)", outside, r.Text)
	}
	for i, r := range model.Requests() {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Errorf("request %d (%s %s) carries the secret to the model", i, r.Method, r.Path)
		}
	}

	lines := readAudit(t, filepath.Join(w.state, "picket", "audit.log"))
	sessions := map[string]bool{}
	find := func(tool, pathPart string) {
		t.Helper()
		for _, l := range lines {
			if l.Decision == "block" && l.Tool == tool && strings.Contains(l.Path, pathPart) {
				if l.Agent != "opencode" || !strings.HasPrefix(l.Session, "ses_") || l.Rule == "" {
					t.Errorf("audit line for %s %s: %+v, want agent opencode, its session and a rule", tool, pathPart, l)
				}
				sessions[l.Session] = true
				return
			}
		}
		t.Errorf("no audit block line for %s %s in %+v", tool, pathPart, lines)
	}
	find("read", ".env")
	find("write", outside)
	find("write", "evil.js")
	if len(sessions) != 1 {
		t.Errorf("the blocks name sessions %v, want opencode's one session", sessions)
	}
	for _, l := range lines {
		if l.Decision == "block" && strings.HasSuffix(l.Path, "README.md") {
			t.Errorf("audit log blocks the allowed README.md: %+v", l)
		}
	}

	// Proof of life: the plugin announced itself, and what picket doctor
	// reads says opencode loaded it in its last run.
	a, err := hook.LastAnnouncement(filepath.Join(w.state, "picket"), opencode.Name)
	if err != nil || a.Plugin != filepath.Join(w.project, ".opencode", "plugins", opencode.File) || a.Directory != w.project {
		t.Errorf("announcement = %+v, %v", a, err)
	}
	if st := opencode.Loaded(filepath.Join(w.state, "picket"), filepath.Join(w.home, ".local", "share")); !st.Trusted {
		t.Errorf("after a fenced run, opencode.Loaded = %+v, want loaded", st)
	}
}

// TestOpencodePluginFailsClosed: with the picket the plugin names gone,
// opencode still loads the plugin and every file call is blocked with the
// reason; bash, which picket run cannot start, does not run either; and
// --pure, which loads no plugin, is what picket doctor then reports.
func TestOpencodePluginFailsClosed(t *testing.T) {
	t.Parallel()
	bin, _ := AgentBinary(t, "opencode")
	w := newOpencodeFenced(t)
	marker := filepath.Join(w.project, "ran.txt")
	model, err := StartChat([]Turn{
		ToolUse("read", map[string]any{"filePath": "README.md"}),
		opencodeShell("touch " + marker),
		Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "scripted")
	if err := os.Rename(w.picket, w.picket+".gone"); err != nil {
		t.Fatal(err)
	}
	w.run(t, bin)
	results := model.Results()
	if r := results[ToolUseID(0)]; !strings.Contains(r.Text, "picket: error:") || strings.Contains(r.Text, "hello from the e2e readme") {
		t.Errorf("read with picket missing: the model got %q, want picket's error block", r.Text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("bash ran with picket missing (the model got %q)", results[ToolUseID(1)].Text)
	}

	// --pure loads no plugin: the run is unfenced, and picket doctor's
	// source says so.
	if err := os.Rename(w.picket+".gone", w.picket); err != nil {
		t.Fatal(err)
	}
	model2, err := StartChat([]Turn{Text("DONE")})
	if err != nil {
		t.Fatal(err)
	}
	defer model2.Close()
	w.useModel(t, model2, "scripted")
	state := filepath.Join(w.state, "picket")
	hook.WriteAnnouncement(state, hook.Announcement{Agent: opencode.Name, Plugin: "/x/picket.js", Version: "1", Directory: w.project})
	w.run(t, bin, "--pure")
	if st := opencode.Loaded(state, filepath.Join(w.home, ".local", "share")); st.Trusted || !strings.Contains(st.Fix, "--pure") {
		t.Errorf("after opencode run --pure, opencode.Loaded = %+v, want not loaded, naming --pure", st)
	}
}

// TestOpencodeApplyPatch: with a GPT model id opencode offers apply_patch
// in place of write and edit; picket judges every path of the patch: a
// patch inside the workspace applies, one that adds a file outside it or
// moves a file into .opencode/plugins is blocked whole.
func TestOpencodeApplyPatch(t *testing.T) {
	t.Parallel()
	bin, _ := AgentBinary(t, "opencode")
	w := newOpencodeFenced(t)
	outside := filepath.Join(w.base, "outside")
	inside := "*** Begin Patch\n*** Add File: patched.txt\n+patched inside\n*** End Patch\n"
	out := "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** Add File: " + filepath.Join(outside, "escape.txt") + "\n+escaped\n*** End Patch\n"
	move := "*** Begin Patch\n*** Update File: README.md\n*** Move to: .opencode/plugins/evil.js\n@@\n-hello from the e2e readme\n+export const X = async () => ({})\n*** End Patch\n"
	model, err := StartChat([]Turn{
		ToolUse("apply_patch", map[string]any{"patchText": inside}),
		ToolUse("apply_patch", map[string]any{"patchText": out}),
		ToolUse("apply_patch", map[string]any{"patchText": move}),
		Text("DONE"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	w.useModel(t, model, "gpt-5.5")
	w.run(t, bin)
	results := model.Results()
	if got := readFileString(t, filepath.Join(w.project, "patched.txt")); got != "patched inside\n" {
		t.Errorf("the patch inside left patched.txt holding %q (the model got %q)", got, results[ToolUseID(0)].Text)
	}
	for k, what := range map[int]string{1: "a patch adding a file outside", 2: "a patch moving README.md into .opencode/plugins"} {
		if r := results[ToolUseID(k)]; !strings.Contains(r.Text, "picket: blocked apply_patch") || !strings.Contains(r.Text, `"access": "write"`) {
			t.Errorf("%s: the model got %q, want picket's block", what, r.Text)
		}
	}
	for _, f := range []string{filepath.Join(outside, "escape.txt"), filepath.Join(w.project, "ok.txt"), filepath.Join(w.project, ".opencode", "plugins", "evil.js")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a blocked patch wrote %s", f)
		}
	}
	if got := readFileString(t, filepath.Join(w.project, "README.md")); got != "hello from the e2e readme\n" {
		t.Errorf("README.md = %q after a blocked move", got)
	}
}
