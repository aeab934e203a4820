package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tmpPlace is where a temp-dir workspace test puts the project: below
// /tmp, or below a TMPDIR outside /tmp (as on macOS and many CI runners).
type tmpPlace struct {
	name   string
	parent func(t *testing.T, w *world) string // makes and returns the directory the project goes in
	env    func(w *world, parent string) []string
}

func tmpPlaces() []tmpPlace {
	return []tmpPlace{
		{name: "tmp", parent: func(t *testing.T, w *world) string { return "/tmp" }},
		{
			name: "tmpdir",
			// Not below w.base: picket refuses a TMPDIR in a system tree,
			// and the clone (so w.base) may be under /var/lib.
			parent: func(t *testing.T, w *world) string {
				return OwnTempDir(t, filepath.Join(repoRoot(t), ".cache", "tmpdir"))
			},
			env: func(w *world, parent string) []string { return []string{"TMPDIR=" + parent} },
		},
	}
}

// moveProject makes the world's project anew in a fresh directory below
// parent (README.md, projectFence, git init) and points w at it; the test
// removes it afterwards.
func (w *world) moveProject(t *testing.T, parent string) {
	t.Helper()
	dir, err := os.MkdirTemp(parent, "picket-e2e-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(dir)
		}
	})
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	w.project = dir
	writeFile(t, filepath.Join(dir, "README.md"), "hello from the e2e readme\n")
	writeFile(t, filepath.Join(dir, "fence.jsonc"), projectFence)
	mustRun(t, dir, w.env, "git", "init", "-q")
}

// tmpNeighbor plants a file beside the project, in its temp dir: the
// sandbox must not show it when the temp dir is /tmp (private there).
func tmpNeighbor(t *testing.T, parent, secret string) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, "picket-e2e-neighbor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeFile(t, filepath.Join(dir, "note"), secret+"\n")
	return filepath.Join(dir, "note")
}

// tmpScript is what the model runs in a temp-dir workspace, as tool uses 0
// to 6: the first four are checkBashFence's, then a cd whose cwd Claude
// Code must learn from its cwd file, a read of the neighbor and a write in
// the system temp dir.
func tmpScript(neighbor string) []string {
	return []string{
		"cat ~/.ssh/id_rsa",
		"touch ../../outside-" + filepath.Base(filepath.Dir(neighbor)),
		"ls",
		"echo hi > inside.txt",
		"mkdir -p sub && cd sub && pwd -P",
		"cat " + neighbor,
		`echo via-tmpdir > "${TMPDIR:-/tmp}/` + tmpProbe(neighbor) + `"`,
	}
}

// tmpProbe is the name of the file the script writes in the temp dir.
func tmpProbe(neighbor string) string { return "probe-" + filepath.Base(filepath.Dir(neighbor)) }

// checkTmpWorkspace asserts the temp-dir workspace script's results: the
// fence holds, the command ran in the project and its write landed there,
// and the neighbor in /tmp stayed out of sight.
func checkTmpWorkspace(t *testing.T, results map[string]toolResult, w *world, pl tmpPlace, parent, neighbor, key, note string) {
	t.Helper()
	outside := filepath.Join(filepath.Dir(filepath.Dir(w.project)), "outside-"+filepath.Base(filepath.Dir(neighbor)))
	if pl.name == "tmp" {
		// ../../ from /tmp/ws is /: not writable, and never the host's.
		outside = "/outside-" + filepath.Base(filepath.Dir(neighbor))
	}
	result := checkBashFence(t, results, w.project, outside, key)
	if r := result(4, "cd sub"); r.IsError || strings.TrimSpace(r.text()) != filepath.Join(w.project, "sub") {
		t.Errorf("mkdir -p sub && cd sub: tool_result = %q (is_error %v), want %s", r.text(), r.IsError, filepath.Join(w.project, "sub"))
	}
	r := result(5, "cat the neighbor")
	if pl.name == "tmp" && (strings.Contains(r.text(), note) || !r.IsError) {
		t.Errorf("cat %s: tool_result = %q (is_error %v), want it out of sight: /tmp is private", neighbor, r.text(), r.IsError)
	}
	// The system temp dir is writable; one outside /tmp is the host's, and
	// /tmp is private.
	probe := filepath.Join(parent, tmpProbe(neighbor))
	t.Cleanup(func() { os.Remove(probe) })
	r = result(6, "write in the temp dir")
	got, _ := os.ReadFile(probe)
	if r.IsError || (string(got) == "via-tmpdir\n") != (pl.name == "tmpdir") {
		t.Errorf("write in the temp dir: tool_result %q (is_error %v), host's %s holds %q; want written, on the host only for a TMPDIR outside /tmp", r.text(), r.IsError, probe, got)
	}
}

// TestClaudeCodeBashTmpWorkspace guards against a workspace in a temp dir
// breaking Claude Code's Bash tool under the shell prefix (every command
// failed: "bwrap: Can't chdir to /tmp/…"): with the project below /tmp,
// and below a TMPDIR outside /tmp, commands run in it, writes land on the
// host, the fence holds and the rest of /tmp stays private.
func TestClaudeCodeBashTmpWorkspace(t *testing.T) {
	claude := claudeBinary(t)
	requireBwrap(t)
	w := newWorld(t) // one picket build for both places
	env := w.env
	for _, pl := range tmpPlaces() {
		t.Run(pl.name, func(t *testing.T) {
			parent := pl.parent(t, w)
			w.env = env
			if pl.env != nil {
				w.env = append(slices.Clip(env), pl.env(w, parent)...)
			}
			w.moveProject(t, parent)
			key := "ssh-e2e-" + randomHex(t)
			writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
			note := "tmp-note-" + randomHex(t)
			neighbor := tmpNeighbor(t, parent, note)
			w.installClaude(t)

			var turns []Turn
			for _, c := range tmpScript(neighbor) {
				turns = append(turns, ToolUse("Bash", map[string]any{"command": c}))
			}
			model, err := StartModel(append(turns, Text("done")))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			runClaudeWith(t, claude, w.project, w.env, model, "Read,Write,Edit,NotebookEdit,Grep,Glob,Bash")
			checkTmpWorkspace(t, toolResults(t, model.Requests()), w, pl, parent, neighbor, key, note)
		})
	}
}

// TestPiBashTmpWorkspace is TestClaudeCodeBashTmpWorkspace through Pi's
// bash, which runs each command under picket run from the project.
func TestPiBashTmpWorkspace(t *testing.T) {
	pi := piBinary(t)
	requireSandbox(t)
	w := newPiWorld(t)
	env := w.env
	for _, pl := range tmpPlaces() {
		t.Run(pl.name, func(t *testing.T) {
			parent := pl.parent(t, w.world)
			w.env = env
			if pl.env != nil {
				w.env = append(slices.Clip(env), pl.env(w.world, parent)...)
			}
			w.moveProject(t, parent)
			key := "ssh-e2e-" + randomHex(t)
			writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), key+"\n")
			note := "tmp-note-" + randomHex(t)
			neighbor := tmpNeighbor(t, parent, note)

			var turns []Turn
			for _, c := range tmpScript(neighbor) {
				turns = append(turns, ToolUse("bash", map[string]any{"command": c}))
			}
			model, err := StartModel(append(turns, Text("done")))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			w.useModel(t, model)
			w.runPiPrint(t, pi)
			checkTmpWorkspace(t, toolResults(t, model.Requests()), w.world, pl, parent, neighbor, key, note)
		})
	}
}
