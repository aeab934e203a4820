package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/e2e"
	"github.com/picketdev/picket/internal/testenv"
)

// Gemini CLI's own functions, from the pinned package's bundle, against
// picket's reading of them: how a path argument resolves, which commands
// it refuses as command substitution, what its JIT context loading reads.
// Node runs the bundle once with every case.

// bundleChunk finds the chunk of the pinned Gemini CLI bundle that
// exports the functions the test calls.
func bundleChunk(t *testing.T) string {
	t.Helper()
	bin, _ := e2e.AgentBinary(t, "gemini")
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(real)
	entry, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"\./(chunk-[A-Z0-9]+\.js)"`).FindAllSubmatch(entry, -1) {
		src, err := os.ReadFile(filepath.Join(dir, string(m[1])))
		if err == nil && bytes.Contains(src, []byte("\n  resolveDefensiveToolPath,\n")) && bytes.Contains(src, []byte("\n  loadJitSubdirectoryMemory,\n")) {
			return filepath.Join(dir, string(m[1]))
		}
	}
	t.Fatalf("no chunk of %s exports resolveDefensiveToolPath and loadJitSubdirectoryMemory", dir)
	return ""
}

const bundleScript = `
const m = await import(process.argv[1]);
const path = await import('node:path');
let input = '';
for await (const c of process.stdin) input += c;
const job = JSON.parse(input);
const out = {paths: [], decode: [], subst: [], wrapped: [], jit: []};
for (const p of job.paths) {
  try { out.paths.push(m.resolveToRealPath(path.resolve(job.root, m.resolveDefensiveToolPath(p, job.root)))); }
  catch (e) { out.paths.push('THROW'); }
}
for (const s of job.decode) {
  try { out.decode.push(decodeURIComponent(s)); } catch { out.decode.push(null); }
}
for (const c of job.subst) out.subst.push(m.detectCommandSubstitution(m.stripShellWrapper(c)));
for (const c of job.wrapped) out.wrapped.push(m.stripShellWrapper(c) === c.trim() && !m.detectCommandSubstitution(c));
for (const t of job.jit) {
  const r = await m.loadJitSubdirectoryMemory(t, [job.root], new Set(), new Set());
  out.jit.push(r.files.map(f => f.content).join('\n'));
}
process.stdout.write('\nRESULT ' + JSON.stringify(out) + '\n');
process.exit(0);
`

type bundleJob struct {
	Root    string   `json:"root"`
	Paths   []string `json:"paths"`
	Decode  []string `json:"decode"`
	Subst   []string `json:"subst"`
	Wrapped []string `json:"wrapped"`
	Jit     []string `json:"jit"`
}

type bundleResult struct {
	Paths   []string  `json:"paths"`
	Decode  []*string `json:"decode"`
	Subst   []bool    `json:"subst"`
	Wrapped []bool    `json:"wrapped"`
	Jit     []string  `json:"jit"`
}

func runBundle(t *testing.T, chunk string, job bundleJob) bundleResult {
	t.Helper()
	in, _ := json.Marshal(job)
	cmd := exec.Command("node", "--input-type=module", "-e", bundleScript, chunk)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GEMINI_CLI_NO_RELAUNCH=true")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	_, res, ok := bytes.Cut(out, []byte("\nRESULT "))
	var r bundleResult
	if !ok || json.Unmarshal(res, &r) != nil {
		t.Fatalf("node printed no result:\n%s", out)
	}
	return r
}

// TestAgainstGeminiBundle holds picket's reading of Gemini CLI to Gemini
// CLI 0.61's own code.
func TestAgainstGeminiBundle(t *testing.T) {
	testenv.Tool(t, "node", "Node.js 20 or later")
	chunk := bundleChunk(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".git/HEAD": "ref: x\n", ".env": "SECRET_ENV\n", "a.txt": "a\n", "@scoped/pkg.json": "{}",
		"GEMINI.md":          "root rules @./docs/ok.md\n",
		"docs/ok.md":         "ok text\n",
		"sub/GEMINI.md":      "sub rules\n@../.env\n",
		"clean/GEMINI.md":    "clean rules @./notes.md and mail@example.com\n",
		"clean/notes.md":     "notes\n",
		"deep/a/b/GEMINI.md": "deep @../../../sub/GEMINI.md\n",
		"deep/a/b/c.txt":     "c\n",
		"tick/GEMINI.md":     "see `@../.env` and\n```\n@../.env\n```\n",
		"chain/GEMINI.md":    "@./1.md\n", "chain/1.md": "@./2.md\n", "chain/2.md": "@./3.md\n", "chain/3.md": "@./4.md\n",
		"chain/4.md": "@./5.md\n", "chain/5.md": "@../.env\n",
	}
	for f, c := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(c), 0o644)
	}
	job := bundleJob{Root: root}
	job.Paths = []string{"a.txt", "@a.txt", "@/a.txt", "@@a.txt", "@", "@@", `@\a.txt`, "%2Eenv", "%2e%2E/x", "sub/%2F..%2F.env",
		"%", "%zz", "%C0%AE", "%E2%82%AC", "%F0%9F%98%80", "%ED%A0%80", "%c3%a9.txt", "%e9", "%25", "%252E",
		"./@scoped/pkg.json", "@scoped/pkg.json", "@scoped", "@nope/x", "@nope", "file:///etc/passwd", "~/x",
		"a/./b/../c", "//x", ".", "..", "/etc/../etc/./passwd", "sub//x", "x/", "%2F", "@%2Eenv", "%40a.txt"}
	job.Decode = append(append([]string{}, job.Paths...), "%C3", "%C3%28", "%F4%90%80%80", "%EF%BF%BE", "%F8%88%80%80%80", "a%2", "%%41")
	job.Subst = []string{"echo $(id)", "echo `id`", "diff <(ls) x", "tee >(cat)", `echo "$(id)"`, `echo "<(x)"`, `echo '$(id)'`,
		`echo \$(id)`, `echo "\$(id)"`, `bash -c 'echo $(id)'`, `/bin/sh -c "echo \$(id)"`, `sh -c "echo \"\$(id)\""`,
		`zsh -c echo $(id)`, `ls`, `echo "it's" $(x)`, `a\`, "echo $\\\n(id)", `echo $'\'' $(x)`}
	run := hook.ShellRun{Exe: "/opt/pick et/bin/picket", Session: "0e1f-s", Agent: Name}
	for _, c := range []string{"cat .env", "echo '$(id)'", `x="a'b"; echo "$x"`, "ls\n  -la", "bash -c 'ls'", "echo `x`'"} {
		if substitution(c) {
			continue
		}
		out, err := rewrite(hook.Call{Cwd: root, Session: run.Session, Tool: toolShell, Input: map[string]json.RawMessage{"command": mustJSON(c)}}, run)
		if err != nil {
			t.Fatalf("rewrite %q: %v", c, err)
		}
		var w string
		json.Unmarshal(out["command"], &w)
		job.Wrapped = append(job.Wrapped, w)
	}
	jit := []string{"sub/x.txt", "clean/x.txt", "deep/a/b/c.txt", "tick/x.txt", "chain/x.txt", "docs/ok.md", "a.txt"}
	for _, j := range jit {
		job.Jit = append(job.Jit, filepath.Join(root, j))
	}
	r := runBundle(t, chunk, job)

	for i, p := range job.Paths {
		got, err := filePaths(root, p)
		want := r.Paths[i]
		switch {
		case want == "THROW" || err != nil:
			if !(want == "THROW" && err != nil) && !(err != nil && strings.Contains(err.Error(), "NUL")) {
				t.Errorf("file path %q: Gemini CLI gives %q, picket %q, %v", p, want, got, err)
			}
		case got[0] != want:
			t.Errorf("file path %q: Gemini CLI reads %q, picket takes %q first (of %q)", p, want, got[0], got)
		}
	}
	for i, s := range job.Decode {
		got, ok := decodeURIComponent(s)
		if want := r.Decode[i]; (want == nil) == ok || want != nil && *want != got {
			t.Errorf("decodeURIComponent(%q) = %q, %v; JavaScript gives %v", s, got, ok, strOrNil(want))
		}
	}
	for i, c := range job.Subst {
		if r.Subst[i] && !substitution(c) {
			t.Errorf("Gemini CLI refuses %q as command substitution; picket would wrap it past that check", c)
		}
	}
	for i, w := range job.Wrapped {
		if !r.Wrapped[i] {
			t.Errorf("Gemini CLI strips or refuses picket's rewritten command %s", w)
		}
	}
	p := decide.MustCompile(decide.Spec{Root: root, Home: filepath.Join(root, "home"), Mode: decide.WorkspaceWrite, Blocklist: decide.Rules("test", ".env")})
	for i, j := range jit {
		target := filepath.Join(root, j)
		call := hook.Call{Agent: Name, Cwd: root, Tool: toolRead, Input: map[string]json.RawMessage{"file_path": mustJSON(target)}}
		d := decide.Check(p, decide.Read, target, root, -1)
		_, denied := loads(p, call, hook.Target{Access: decide.Read, Path: target}, d)
		leaks := strings.Contains(r.Jit[i], "SECRET_ENV")
		if leaks && !denied {
			t.Errorf("read_file %s: Gemini CLI loads .env with it (%q), and picket lets it through", j, r.Jit[i])
		}
		// picket judges imports in code spans, and past depth 5 (Gemini
		// CLI's "flat" import format has no bound): denials Gemini CLI's
		// default reading would not need.
		if !leaks && denied && j != "tick/x.txt" && j != "chain/x.txt" {
			t.Errorf("read_file %s: picket denies, but Gemini CLI loads nothing denied (%q)", j, r.Jit[i])
		}
	}
	t.Logf("Gemini CLI's JIT context for %s: %q", jit[0], r.Jit[0])
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func strOrNil(s *string) string {
	if s == nil {
		return "a URIError"
	}
	return fmt.Sprintf("%q", *s)
}
