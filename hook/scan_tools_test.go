package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
)

// realTool is a search binary an agent runs.
type realTool struct {
	path  string
	argv0 string // Claude Code's own executable answers as ripgrep when run as "rg"
}

// run runs the tool in dir with a bare environment (HOME set, so no
// config or global ignore file of the machine's user is read) and returns
// the lines it printed.
func (r realTool) run(t *testing.T, dir, home string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(r.path, args...)
	if r.argv0 != "" {
		cmd.Args[0] = r.argv0
	}
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		// ripgrep exits 1 when nothing matched; anything else is a fault.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s %q: %v\n%s", r.path, args, err, errb.String())
		}
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// missingTool fails the test under CI, where .ci/run installs every tool,
// and skips it elsewhere.
func missingTool(t *testing.T, what, hint string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing (CI is set): %s", what, hint)
	}
	t.Skipf("%s is missing: %s", what, hint)
}

// findRipgrep finds the ripgrep the agents run: PICKET_RG, else the one
// Claude Code embeds (its executable run as "rg", which .ci/agents.sh
// installs), else rg on PATH.
func findRipgrep(t *testing.T) realTool {
	t.Helper()
	if p := os.Getenv("PICKET_RG"); p != "" {
		return realTool{path: p}
	}
	m := filepath.Join("..", ".cache", "agents", "node_modules", "@anthropic-ai")
	for _, c := range []string{m + "/claude-code/bin/claude.exe", m + "/claude-code-linux-x64/claude",
		m + "/claude-code-linux-x64-musl/claude", m + "/claude-code-linux-arm64/claude", m + "/claude-code-linux-arm64-musl/claude"} {
		abs, _ := filepath.Abs(c)
		r := realTool{path: abs, argv0: "rg"}
		if r.version() != "" {
			return r
		}
	}
	if p, err := exec.LookPath("rg"); err == nil {
		return realTool{path: p}
	}
	missingTool(t, "ripgrep", "run bash .ci/agents.sh (Claude Code embeds it), or set PICKET_RG")
	return realTool{}
}

// findFd finds an fd that takes Pi's find flags (--no-require-git, fd
// 8.7 or later): PICKET_FD, else the one .ci/fd.sh installs, else fd or
// fdfind on PATH.
func findFd(t *testing.T) realTool {
	t.Helper()
	candidates := []string{os.Getenv("PICKET_FD"), filepath.Join("..", ".cache", "tools", "fd", "fd")}
	for _, name := range []string{"fd", "fdfind"} {
		if p, err := exec.LookPath(name); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		abs, _ := filepath.Abs(c)
		help, err := exec.Command(abs, "--help").Output()
		if err == nil && bytes.Contains(help, []byte("--no-require-git")) {
			return realTool{path: abs}
		}
	}
	missingTool(t, "fd with --no-require-git", "run bash .ci/fd.sh, or set PICKET_FD")
	return realTool{}
}

func (r realTool) version() string {
	cmd := exec.Command(r.path, "--version")
	if r.argv0 != "" {
		cmd.Args[0] = r.argv0
	}
	out, err := cmd.Output()
	if err != nil || !bytes.HasPrefix(out, []byte("ripgrep ")) {
		return ""
	}
	return string(out)
}

// search is one agent's search tool: how picket is asked about a call,
// and how the agent runs the real binary for it.
type search struct {
	agent, tool string
	filters     []string // the call's glob ("" for none) or pattern
	everything  string   // a filter that reaches every path
	access      decide.Access
	listsLinks  bool // the tool lists a symlink by its own name (fd)
	input       func(root, filter string) map[string]any
	args        func(root, filter string) []string
	paths       func(lines []string) []string
}

// agentSearches are the four searches with the flags each agent passes,
// read from Claude Code 2.1.197 (Grep and Glob run its embedded ripgrep)
// and Pi 0.73.1 (grep runs ripgrep, find runs fd).
var agentSearches = []search{
	{agent: "claude", tool: "Grep", filters: []string{"", "*.txt", "!.env", "*.go,!secrets", "**/*"}, access: decide.Read,
		input: func(root, f string) map[string]any {
			return optional(map[string]any{"pattern": "x", "path": root}, "glob", f)
		},
		args: func(root, f string) []string {
			a := []string{"--no-config", "--hidden"}
			for _, d := range []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"} {
				a = append(a, "--glob", "!"+d)
			}
			a = append(a, "--max-columns", "500", "-l", "x")
			for _, g := range grepGlobs(f) {
				a = append(a, "--glob", g)
			}
			return append(a, root)
		},
		paths: lines},
	{agent: "claude", tool: "Glob", filters: []string{"**/*", "*", "*.txt", "src/**", "**/.env*"}, everything: "**/*", access: decide.List,
		input: func(root, f string) map[string]any { return map[string]any{"pattern": f, "path": root} },
		args: func(root, f string) []string {
			return []string{"--no-config", "--files", "--glob", f, "--sort=modified", "--no-ignore", "--hidden", root}
		},
		paths: lines},
	{agent: "pi", tool: "grep", filters: []string{"", "*.txt", "**/*", "!.env"}, access: decide.Read,
		input: func(root, f string) map[string]any {
			return optional(map[string]any{"pattern": "x", "path": root}, "glob", f)
		},
		args: func(root, f string) []string {
			a := []string{"--json", "--line-number", "--color=never", "--hidden"}
			if f != "" {
				a = append(a, "--glob", f)
			}
			return append(a, "--", "x", root)
		},
		paths: rgJSONPaths},
	{agent: "pi", tool: "find", filters: []string{"*", "*.txt", "**/*", ".env*", "src/*"}, everything: "*", access: decide.List, listsLinks: true,
		input: func(root, f string) map[string]any { return map[string]any{"pattern": f, "path": root} },
		args: func(root, f string) []string {
			a := []string{"--glob", "--color=never", "--hidden", "--no-require-git", "--max-results", "1000"}
			if strings.Contains(f, "/") {
				a = append(a, "--full-path")
				if !strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "**/") && f != "**" {
					f = "**/" + f
				}
			}
			return append(a, "--", f, root)
		},
		paths: lines},
}

func optional(m map[string]any, k, v string) map[string]any {
	if v != "" {
		m[k] = v
	}
	return m
}

func lines(l []string) []string { return l }

// rgJSONPaths reads the paths of ripgrep --json's matches.
func rgJSONPaths(ls []string) []string {
	var out []string
	for _, l := range ls {
		var m struct {
			Type string `json:"type"`
			Data struct {
				Path struct{ Text string } `json:"path"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Type == "begin" {
			out = append(out, m.Data.Path.Text)
		}
	}
	return out
}

// TestScanAgainstTools: over random trees full of symlinks (to denied
// files and directories, chains, links to links, links out of the root,
// dangling links, loops), each agent's search, run for real with its exact
// flags, never lists a path picket lets through when a direct call on it
// would be denied; and a search with no filter is denied only when the
// tool does list such a path (a link to a denied path that the tool does
// not follow no longer blocks it). PICKET_SCAN_TREES sets how many trees
// (default 12).
func TestScanAgainstTools(t *testing.T) {
	rg, fd := findRipgrep(t), findFd(t)
	n := 12
	if s := os.Getenv("PICKET_SCAN_TREES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(os.Getpid())
	if s := os.Getenv("PICKET_SCAN_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("PICKET_SCAN_SEED=%d", seed)
	stats := map[string]int{}
	for i := range n {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		tr := randomTree(t, r, base)
		for _, root := range tr.roots {
			for _, s := range agentSearches {
				bin := rg
				if s.tool == "find" {
					bin = fd
				}
				for _, f := range s.filters {
					compareSearch(t, tr, s, bin, root, f, stats)
				}
			}
		}
	}
	t.Logf("searches: %v", stats)
	if stats["allowed"] == 0 || stats["denied, the tool lists a denied path"] == 0 {
		t.Errorf("the trees gave no allowed or no rightly denied search: %v", stats)
	}
}

// compareSearch runs one search both ways and checks the two properties.
func compareSearch(t *testing.T, tr tree, s search, bin realTool, root, filter string, stats map[string]int) {
	t.Helper()
	c := Call{Agent: s.agent, Session: "s", Cwd: tr.ws, Tool: s.tool, Input: map[string]json.RawMessage{}}
	for k, v := range s.input(root, filter) {
		c.Input[k], _ = json.Marshal(v)
	}
	targets, err := Targets(c)
	if err != nil {
		t.Fatalf("Targets(%s %v): %v", s.tool, s.input(root, filter), err)
	}
	d, err := Judge(tr.p, c, targets, Ledger{})
	if err != nil {
		t.Fatalf("Judge(%s %v): %v", s.tool, s.input(root, filter), err)
	}
	var leaks []string
	for _, p := range s.paths(bin.run(t, tr.ws, tr.home, s.args(root, filter)...)) {
		if !tr.direct(s, strings.TrimSuffix(p, "/")) {
			leaks = append(leaks, p)
		}
	}
	name := fmt.Sprintf("%s %s %q over %s", s.agent, s.tool, filter, strings.TrimPrefix(root, tr.base))
	switch {
	case d.Allow && len(leaks) > 0:
		t.Errorf("%s: allowed, but the tool lists what a direct call denies: %q\n%s", name, leaks, tr.describe())
	case d.Allow:
		stats["allowed"]++
	case len(leaks) > 0:
		stats["denied, the tool lists a denied path"]++
	case filter == "" || filter == s.everything:
		t.Errorf("%s: denied (%s %s), but the tool lists nothing a direct call denies\n%s", name, d.Rule, d.Resolved, tr.describe())
	default:
		stats["denied by caution about the filter"]++
	}
}

// direct reports whether a direct call would allow the path a search
// listed: a symlink fd lists is judged by its own name (fd read nothing
// through it), anything else where it leads.
func (tr tree) direct(s search, p string) bool {
	if fi, err := os.Lstat(p); s.listsLinks && err == nil && fi.Mode()&os.ModeSymlink != 0 {
		_, dir, err := decide.Canonicalize(filepath.Dir(p), tr.ws, tr.home)
		if err != nil {
			return false
		}
		return decide.Decide(tr.p, decide.Request{Access: s.access, Path: p, Resolved: filepath.Join(dir, filepath.Base(p)), Size: -1}).Allow
	}
	return decide.Check(tr.p, s.access, p, tr.ws, -1).Allow
}

// tree is a random workspace and home, and the roots to search.
type tree struct {
	base, ws, home string
	p              decide.Policy
	roots          []string
	made           []string // what was made, for a failure's message
}

func (tr tree) describe() string {
	return "tree:\n  " + strings.Join(tr.made, "\n  ")
}

// randomTree makes a workspace of directories, files and symlinks with
// names the policy denies (.env, id_rsa, secrets/) and a home with a
// key, and a policy denying them.
func randomTree(t *testing.T, r *rand.Rand, base string) tree {
	t.Helper()
	tr := tree{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home")}
	tr.p = decide.MustCompile(decide.Spec{Root: tr.ws, Home: tr.home, Mode: decide.WorkspaceWrite,
		DenyRead:  decide.Rules("test", "**/secrets/**", "**/id_rsa", "~/.ssh"),
		Blocklist: decide.Rules("test", ".env", ".env.*")})
	file := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr.made = append(tr.made, strings.TrimPrefix(p, base+"/"))
	}
	for _, f := range []string{"home/.ssh/id_rsa", "home/notes/a.txt", "home/vault/secrets/t.txt", "home/vault/b.txt"} {
		file(filepath.Join(base, f))
	}
	dirs := []string{tr.ws}
	if err := os.MkdirAll(tr.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	dirNames := []string{"src", "lib", "secrets", ".cfg", "deep", "Secrets"}
	fileNames := []string{"a.txt", "b.go", ".env", ".env.local", "id_rsa", "notes.md", ".hidden", "c.txt"}
	for range 2 + r.IntN(6) {
		d := filepath.Join(dirs[r.IntN(len(dirs))], dirNames[r.IntN(len(dirNames))])
		file(filepath.Join(d, "t.txt")) // a denied directory has a file the tools list
		dirs = append(dirs, d)
	}
	for range 2 + r.IntN(6) {
		file(filepath.Join(dirs[r.IntN(len(dirs))], fileNames[r.IntN(len(fileNames))]))
	}
	// Link targets: the workspace's own files and directories, the
	// home's key and directories, nothing at all, loops, other links.
	targets := append([]string{}, dirs...)
	targets = append(targets, filepath.Join(tr.home, ".ssh"), filepath.Join(tr.home, ".ssh", "id_rsa"),
		filepath.Join(tr.home, "notes"), filepath.Join(tr.home, "vault"), filepath.Join(tr.home, "vault", "secrets"),
		filepath.Join(tr.ws, "missing"), ".", "..", "../..")
	for _, m := range tr.made {
		if strings.HasPrefix(m, "ws/") {
			targets = append(targets, filepath.Join(base, m))
		}
	}
	linkNames := []string{"l1", "l2", "keys", "up", "env.txt", ".env", "vault", "x.go"}
	var links []string
	for range 2 + r.IntN(5) {
		at := filepath.Join(dirs[r.IntN(len(dirs))], linkNames[r.IntN(len(linkNames))])
		to := targets[r.IntN(len(targets))]
		if len(links) > 0 && r.IntN(3) == 0 {
			to = links[r.IntN(len(links))] // a chain
		}
		if filepath.IsAbs(to) && r.IntN(2) == 0 {
			if rel, err := filepath.Rel(filepath.Dir(at), to); err == nil {
				to = rel
			}
		}
		if os.Symlink(to, at) == nil {
			links = append(links, at)
			targets = append(targets, at)
			tr.made = append(tr.made, strings.TrimPrefix(at, base+"/")+" -> "+to)
		}
	}
	tr.roots = []string{tr.ws, dirs[r.IntN(len(dirs))]}
	for _, l := range links {
		if fi, err := os.Stat(l); err == nil && fi.IsDir() {
			tr.roots = append(tr.roots, l) // a link named as the root: followed
			break
		}
	}
	return tr
}
