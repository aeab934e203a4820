package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/sandbox"
)

func init() {
	commands["install"] = runInstall
	commands["uninstall"] = runUninstall
}

const installUsage = `Usage:
  picket install claude [--project | --user] [--print] [--exe P]
  picket uninstall claude [--project | --user] [--print] [--exe P]

Adds picket's hooks (PreToolUse and PostToolUse on the file tools,
SessionStart, SessionEnd), the mandatory write denies (as permissions.deny
rules) and env.CLAUDE_CODE_SHELL_PREFIX (every Bash command then runs in
picket's shell sandbox, see picket run) to Claude Code's settings, keeping
everything else; uninstall removes them again.

  --project  <root>/.claude/settings.json, where root is $CLAUDE_PROJECT_DIR,
             else the git top level of the current directory, else the
             current directory (the default)
  --user     ~/.claude/settings.json
  --print    print the resulting settings to stdout and write nothing
  --exe P    picket executable the hook command runs (default: this one)
`

func runInstall(c *cli, args []string) int {
	if len(args) > 0 && args[0] == "pi" {
		return c.installPi("install", args[1:])
	}
	return c.installCmd("install", args, hook.InstallClaude)
}

func runUninstall(c *cli, args []string) int {
	if len(args) > 0 && args[0] == "pi" {
		return c.installPi("uninstall", args[1:])
	}
	return c.installCmd("uninstall", args, hook.UninstallClaude)
}

func (c *cli) installCmd(name string, args []string, edit func([]byte, hook.ClaudeInstall) ([]byte, error)) int {
	fs := flag.NewFlagSet(name+" claude", flag.ContinueOnError) // pi has its own (installPi)
	fs.SetOutput(c.stderr)
	project := fs.Bool("project", false, "")
	user := fs.Bool("user", false, "")
	print := fs.Bool("print", false, "")
	exe := fs.String("exe", "", "")
	// The agent comes first in the usage text, flags after it.
	var agent []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		agent, args = args[:1], args[1:]
	}
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	agent = append(agent, fs.Args()...)
	switch {
	case len(agent) == 1 && agent[0] != "claude":
		c.errorf("%s: unknown agent %s: picket installs into claude or pi", name, escape.Field(agent[0]))
		c.hintf("run 'picket %s claude' or 'picket %s pi'", name, name)
		return 2
	case len(agent) != 1:
		c.errorf("%s needs exactly one agent: claude or pi", name)
		c.hintf("run 'picket %s claude' or 'picket %s pi'", name, name)
		return 2
	}
	if *project && *user {
		c.errorf("--project and --user exclude each other")
		return 2
	}
	path, err := c.claudeSettingsPath(*user)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	installedExe, err := c.picketExe(*exe)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	opts := claudeInstallOpts(installedExe)
	opts.User = *user
	opts.Own = c.claudeOwnPaths(installedExe)
	record := c.installRecord(path)
	if name == "install" {
		opts.Stale = staleRules(record.load(), opts.DenyRules())
	}
	exeGiven := *exe != ""
	if name == "uninstall" {
		opts.Deny = record.load() // nil when install left no record: all of picket's
		if prev := record.exe(); prev != "" && !exeGiven {
			// The hooks run the picket that installed them, which may
			// since have moved; this one is not in them.
			o := claudeInstallOpts(prev)
			opts.Command, opts.ShellPrefix = o.Command, o.ShellPrefix
		}
		if record.keptPrefix() {
			// The person had set that very prefix before install.
			opts.ShellPrefix = ""
		}
	}
	var added []string
	keptPrefix := false
	apply := func(b []byte) ([]byte, error) {
		if name == "install" {
			keptPrefix = record.load() == nil && !c.claudeHooksIn(b, opts) && hasShellPrefix(b, opts.ShellPrefix)
			missing, err := hook.ClaudeDenyMissing(b, opts)
			if err != nil {
				return nil, err
			}
			added = missing
			if record.load() == nil && c.claudeHooksIn(b, opts) {
				// Installed by a picket that kept no record: the rules
				// there are taken as its own, as that picket would have.
				added = opts.DenyRules()
			}
		}
		return edit(b, opts)
	}
	if *print {
		return c.printSettings(path, apply)
	}
	missing := missingPaths(path, filepath.Dir(path))
	changed, err := hook.UpdateClaudeSettings(path, apply)
	if err != nil {
		c.errorf("%s claude: %v", name, err)
		return 2
	}
	var created []string
	if name == "install" && changed {
		created = missing
	}
	if name == "uninstall" {
		removeCreated(path, record.created())
	}
	if err := record.update(name, added, opts.Stale, installedExe, created, keptPrefix); err != nil {
		c.warnf("could not record which deny rules %s added (uninstall will take out all of picket's): %v", path, err)
	}
	switch {
	case !changed && name == "uninstall":
		fmt.Fprintf(c.stderr, "picket: uninstall: nothing of picket's in %s\n", path)
	case !changed:
		fmt.Fprintf(c.stderr, "picket: %s: %s already up to date\n", name, path)
	case name == "install":
		fmt.Fprintf(c.stderr, "picket: installed picket's hooks, deny rules and shell prefix in %s\n", path)
		c.hintf("restart Claude Code so it reads the new settings")
	default:
		fmt.Fprintf(c.stderr, "picket: removed picket's hooks, deny rules and shell prefix from %s\n", path)
	}
	if name == "uninstall" {
		c.warnOtherHooks(path)
	}
	if name == "install" {
		c.warnShellSandbox()
	}
	return 0
}

// warnShellSandbox says so when the shell sandbox cannot work here: then
// every Bash command of Claude Code fails (the prefix never runs one
// unfenced) until bubblewrap and user namespaces are there.
func (c *cli) warnShellSandbox() {
	st := sandbox.Probe(c.getenv("PATH"), c.getenv(probeEnv))
	if st.Works() {
		return
	}
	c.warnf("%s: Claude Code's Bash commands will fail (exit 126) until it works", st)
	c.hintf("'picket run -- true' says what is missing and how to fix it")
}

func (c *cli) printSettings(path string, apply func([]byte) ([]byte, error)) int {
	old, err := hook.ReadSettings(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.errorf("%v", err)
		return 2
	}
	out, err := apply(old)
	if err != nil {
		c.errorf("%s: %v", path, err)
		return 2
	}
	c.stdout.Write(out)
	return 0
}

// picketExe is the absolute, resolved path of exe ("" for this picket).
func (c *cli) picketExe(exe string) (string, error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("failed to find the picket executable: %w", err)
		}
		exe = self
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}

// claudeInstallOpts are the hooks and shell prefix that run the picket at
// exe (absolute).
func claudeInstallOpts(exe string) hook.ClaudeInstall {
	return hook.ClaudeInstall{Command: hook.ClaudeHookCommand(exe), ShellPrefix: hook.ClaudeShellPrefix(exe)}
}

// claudeOwnPaths are where picket's own files are in this environment,
// for their deny rules: the resolved state and fence config dirs, and exe,
// the picket the hooks run.
func (c *cli) claudeOwnPaths(exe string) hook.ClaudeOwnPaths {
	env := decide.Env{Home: c.home(), ConfigHome: c.getenv("XDG_CONFIG_HOME")}
	return hook.ClaudeOwnPaths{Home: c.home(), StateDir: c.stateDir(), ConfigDir: env.UserConfigDir(), Executable: exe}
}

// claudeSettingsPath is ~/.claude/settings.json for the user scope, else the
// project's .claude/settings.json.
func (c *cli) claudeSettingsPath(user bool) (string, error) {
	if user {
		home := c.getenv("HOME")
		if home == "" {
			return "", errors.New("HOME is not set, so there is no ~/.claude/settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	root, err := c.projectRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".claude", "settings.json"), nil
}

// projectRoot is where Claude Code looks for project settings:
// CLAUDE_PROJECT_DIR when set, else the git top level, else the current
// directory.
func (c *cli) projectRoot() (string, error) {
	if dir := c.getenv("CLAUDE_PROJECT_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("failed to find the current directory: %w", err)
	}
	return c.projectRootFrom(cwd)
}

func (c *cli) projectRootFrom(cwd string) (string, error) {
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = cwd
	cmd.Env = c.env
	if out, err := cmd.Output(); err == nil {
		if top := strings.TrimSpace(string(out)); top != "" {
			return top, nil
		}
	}
	return cwd, nil
}

// installRecord remembers, in picket's state dir, which permissions.deny
// rules install added to one settings file, so that uninstall takes out
// exactly those and leaves the rules the person had written themselves.
//
// The record is named by the settings path with the symlinks of its
// existing directories resolved, so an install through one spelling of the
// project (CLAUDE_PROJECT_DIR through a symlink) and an uninstall through
// another (the git top level) find the same record. legacy is the name an
// earlier picket gave it, by the path as spelled.
type installRecord struct{ file, legacy string }

func (c *cli) installRecord(settings string) installRecord {
	name := func(p string) string {
		sum := sha256.Sum256([]byte(p))
		return filepath.Join(c.stateDir(), "installs", "claude-"+hex.EncodeToString(sum[:12])+".json")
	}
	r := installRecord{file: name(resolveDirs(settings))}
	if legacy := name(settings); legacy != r.file {
		r.legacy = legacy
	}
	return r
}

// resolveDirs is path with the symlinks of its longest existing directory
// prefix resolved; the last element is kept as it is.
func resolveDirs(path string) string {
	dir, rest := filepath.Dir(path), []string{filepath.Base(path)}
	for {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = parent
	}
}

type installRecordFile struct {
	Deny []string `json:"deny"`
	Exe  string   `json:"exe,omitempty"` // the picket the hooks run
	// Created are the settings file and its directory when install
	// created them, for uninstall to remove if nothing else is in them.
	Created []string `json:"created,omitempty"`
	// KeptPrefix says env.CLAUDE_CODE_SHELL_PREFIX held picket's prefix
	// before install, set by the person: uninstall leaves it.
	KeptPrefix bool `json:"keptPrefix,omitempty"`
}

func (r installRecord) read() (installRecordFile, bool) {
	for _, f := range []string{r.file, r.legacy} {
		var rec installRecordFile
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err == nil && json.Unmarshal(b, &rec) == nil {
			return rec, true
		}
	}
	return installRecordFile{}, false
}

// load returns the recorded rules, or nil when there is no record.
func (r installRecord) load() []string {
	rec, ok := r.read()
	if !ok {
		return nil
	}
	if rec.Deny == nil {
		rec.Deny = []string{}
	}
	return rec.Deny
}

// exe returns the picket executable the recorded install wrote into the
// hooks, "" when unknown.
func (r installRecord) exe() string {
	rec, _ := r.read()
	return rec.Exe
}

// keptPrefix reports whether the shell prefix was there before install.
func (r installRecord) keptPrefix() bool {
	rec, _ := r.read()
	return rec.KeptPrefix
}

// hasShellPrefix reports whether settings set env.CLAUDE_CODE_SHELL_PREFIX
// to prefix.
func hasShellPrefix(settings []byte, prefix string) bool {
	var root map[string]json.RawMessage
	var env map[string]json.RawMessage
	var v string
	return prefix != "" && json.Unmarshal(settings, &root) == nil &&
		json.Unmarshal(root["env"], &env) == nil &&
		json.Unmarshal(env[hook.ClaudeShellPrefixEnv], &v) == nil && v == prefix
}

// created returns the paths the recorded install created.
func (r installRecord) created() []string {
	rec, _ := r.read()
	return rec.Created
}

// staleRules are the recorded rules install no longer writes.
func staleRules(recorded, current []string) []string {
	var stale []string
	for _, r := range recorded {
		if !slices.Contains(current, r) {
			stale = append(stale, r)
		}
	}
	return stale
}

// update adds what install added (deny rules, created paths) to the
// record and drops the stale rules it took out, with the executable the
// hooks run; uninstall drops the record.
func (r installRecord) update(cmd string, added, stale []string, exe string, created []string, keptPrefix bool) error {
	if cmd != "install" {
		for _, f := range []string{r.file, r.legacy} {
			if f == "" {
				continue
			}
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	deny := slices.DeleteFunc(r.load(), func(d string) bool { return slices.Contains(stale, d) })
	for _, a := range added {
		if !slices.Contains(deny, a) {
			deny = append(deny, a)
		}
	}
	if deny == nil {
		deny = []string{}
	}
	for _, p := range r.created() {
		if !slices.Contains(created, p) {
			created = append(created, p)
		}
	}
	keptPrefix = keptPrefix || r.keptPrefix()
	b, err := json.Marshal(installRecordFile{Deny: deny, Exe: exe, Created: created, KeptPrefix: keptPrefix})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.file), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(r.file, b, 0o600); err != nil {
		return err
	}
	if r.legacy != "" {
		os.Remove(r.legacy) // read into the record just written
	}
	return nil
}

// missingPaths returns those of paths that do not exist.
func missingPaths(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// removeCreated removes, of the settings file at path and its directory,
// those install created (created) and uninstall left empty: the file when
// it holds an empty object, the directory when nothing is in it. A file the
// person had before install is never in created.
func removeCreated(path string, created []string) {
	if slices.Contains(created, path) && emptySettings(path) {
		os.Remove(path)
	}
	if dir := filepath.Dir(path); slices.Contains(created, dir) {
		os.Remove(dir) // fails, as it should, when anything is in it
	}
}

// emptySettings reports whether the file at path holds an empty JSON object.
func emptySettings(path string) bool {
	b, err := os.ReadFile(path)
	var m map[string]json.RawMessage
	return err == nil && json.Unmarshal(b, &m) == nil && m != nil && len(m) == 0
}

// claudeHooksIn reports whether settings already hold picket's hooks.
func (c *cli) claudeHooksIn(settings []byte, opts hook.ClaudeInstall) bool {
	opts.Deny, opts.ShellPrefix = []string{}, ""
	out, err := hook.UninstallClaude(settings, opts)
	return err == nil && !bytes.Equal(out, settings)
}

// warnOtherHooks says so when the settings still run a picket hook after
// uninstall: one installed from a picket at another path, with no record
// of it (an install made before picket kept one, or another state dir).
func (c *cli) warnOtherHooks(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, cmd := range hook.ClaudeHookCommands(b) {
		c.warnf("%s still runs %s, which another picket installed", path, strconv.Quote(cmd))
		if exe, ok := strings.CutSuffix(cmd, " hook --agent claude"); ok {
			c.hintf("run 'picket uninstall claude --exe %s' to remove it", exe)
		}
	}
}
