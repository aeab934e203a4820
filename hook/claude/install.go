package claude

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/picketdev/picket/hook"
)

// install is the Agent's Install: picket's hooks, deny rules and shell
// prefix in Claude Code's settings, and a record in picket's state dir of
// the rules it added, so that uninstall takes out exactly those.
func install(o hook.InstallOptions) error { return apply(o, "install") }

// uninstall is the Agent's Uninstall.
func uninstall(o hook.InstallOptions) error { return apply(o, "uninstall") }

// wire is the Agent's Wire: the hooks, shell prefix and deny rules of the
// project's settings, running exe.
func wire(settings []byte, exe string) ([]byte, error) {
	if settings == nil {
		settings = []byte{}
	}
	return AddWiring(settings, wiringFor(exe))
}

// unwire is the Agent's Unwire; an empty object left where there was no
// file means the file goes.
func unwire(settings []byte, exe string) ([]byte, error) {
	out, err := RemoveWiring(settings, wiringFor(exe))
	if err == nil && string(bytes.TrimSpace(out)) == "{}" {
		return nil, nil
	}
	return out, err
}

func apply(o hook.InstallOptions, name string) error {
	path, err := settingsPath(o)
	if err != nil {
		return err
	}
	opts := wiringFor(o.Exe)
	opts.User = o.User
	opts.Own = ownPaths(o)
	record := recordOf(o.StateDir, path)
	prefix := opts.ShellPrefix
	fenced := hook.ShellSandboxed(o.GOOS)
	if name == "install" {
		opts.Stale = staleRules(record.load(), opts.DenyRules())
		if !fenced {
			// Every Bash command would exit 126: the prefix stays out, and
			// an earlier install's comes out, unless the person set it.
			opts.ShellPrefix = ""
			if _, ok := record.read(); ok && !record.keptPrefix() {
				opts.DropShellPrefix = wiringFor(cmp.Or(record.exe(), o.Exe)).ShellPrefix
			}
		}
	}
	if name == "uninstall" {
		opts.Deny = record.load() // nil when install left no record: all of picket's
		if prev := record.exe(); prev != "" && !o.ExeGiven {
			// The hooks run the picket that installed them, which may
			// since have moved; this one is not in them.
			w := wiringFor(prev)
			opts.Command, opts.ShellPrefix = w.Command, w.ShellPrefix
		}
		if record.keptPrefix() {
			// The person had set that very prefix before install.
			opts.ShellPrefix = ""
		}
	}
	var added []string
	keptPrefix := false
	edit := func(b []byte) ([]byte, error) {
		if name == "install" {
			keptPrefix = record.load() == nil && !hooksIn(b, opts) && hasShellPrefix(b, prefix)
			missing, err := DenyMissing(b, opts)
			if err != nil {
				return nil, err
			}
			added = missing
			if record.load() == nil && hooksIn(b, opts) {
				// Installed by a picket that kept no record: the rules
				// there are taken as its own, as that picket would have.
				added = opts.DenyRules()
			}
		}
		if name == "install" {
			return AddWiring(b, opts)
		}
		return RemoveWiring(b, opts)
	}
	if o.Print {
		return printSettings(o, path, edit)
	}
	missing := hook.Missing(path, filepath.Dir(path))
	changed, err := UpdateSettings(path, edit)
	if err != nil {
		return fmt.Errorf("%s claude: %w", name, err)
	}
	var created []string
	if name == "install" && changed {
		created = missing
	}
	if name == "uninstall" {
		removeCreated(path, record.created())
	}
	if err := record.update(name, added, opts.Stale, o.Exe, created, keptPrefix); err != nil {
		o.Warn("could not record which deny rules %s added (uninstall will take out all of picket's): %v", path, err)
	}
	switch {
	case !changed && name == "uninstall":
		o.Info("uninstall: nothing of picket's in %s", path)
	case !changed:
		o.Info("%s: %s already up to date", name, path)
	case name == "install" && !fenced:
		o.Info("installed picket's hooks and deny rules in %s", path)
		o.Hint("restart Claude Code so it reads the new settings")
	case name == "install":
		o.Info("installed picket's hooks, deny rules and shell prefix in %s", path)
		o.Hint("restart Claude Code so it reads the new settings")
	default:
		o.Info("removed picket's hooks, deny rules and shell prefix from %s", path)
	}
	if name == "uninstall" {
		warnOtherHooks(o, path)
	}
	if name == "install" {
		// The prefix never runs a command unfenced: without the sandbox
		// every Bash command fails, and where there is none install left
		// the prefix out.
		o.WarnShellSandbox("Claude Code's Bash commands")
		if w := IgnoredTmpDir(o.Getenv); w != "" && fenced {
			o.Warn("%s", w)
		}
	}
	return nil
}

func printSettings(o hook.InstallOptions, path string, edit func([]byte) ([]byte, error)) error {
	old, err := ReadSettings(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, err := edit(old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = o.Stdout.Write(out)
	return err
}

// wiringFor are the hooks and shell prefix that run the picket at exe
// (absolute).
func wiringFor(exe string) Wiring {
	return Wiring{Command: HookCommand(exe), ShellPrefix: ShellPrefix(exe)}
}

// ownPaths are where picket's own files are in this environment, for
// their deny rules: the state and fence config dirs, and o.Exe, the
// picket the hooks run.
func ownPaths(o hook.InstallOptions) OwnPaths {
	return OwnPaths{Home: o.Home, StateDir: o.StateDir, ConfigDir: o.ConfigDir, Executable: o.Exe}
}

// settingsPath is ~/.claude/settings.json for the user scope, else the
// project's .claude/settings.json.
func settingsPath(o hook.InstallOptions) (string, error) {
	if o.User {
		home := o.Getenv("HOME")
		if home == "" {
			return "", errors.New("HOME is not set, so there is no ~/.claude/settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	root, err := projectRoot(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".claude", "settings.json"), nil
}

// projectRoot is where Claude Code looks for project settings:
// CLAUDE_PROJECT_DIR when set, else the git top level, else the current
// directory.
func projectRoot(o hook.InstallOptions) (string, error) {
	if dir := o.Getenv(projectDirEnv); dir != "" {
		return filepath.Abs(dir)
	}
	return hook.GitTop(o.Dir, o.Env), nil
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

func recordOf(stateDir, settings string) installRecord {
	name := func(p string) string {
		return hook.InstallRecordPath(stateDir, "claude", p)
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
		json.Unmarshal(env[ShellPrefixEnv], &v) == nil && v == prefix
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

// hooksIn reports whether settings already hold picket's hooks.
func hooksIn(settings []byte, opts Wiring) bool {
	opts.Deny, opts.ShellPrefix = []string{}, ""
	out, err := RemoveWiring(settings, opts)
	return err == nil && !bytes.Equal(out, settings)
}

// warnOtherHooks says so when the settings still run a picket hook after
// uninstall: one installed from a picket at another path, with no record
// of it (an install made before picket kept one, or another state dir).
func warnOtherHooks(o hook.InstallOptions, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, cmd := range HookCommands(b) {
		o.Warn("%s still runs %s, which another picket installed", path, strconv.Quote(cmd))
		if exe, ok := strings.CutSuffix(cmd, " hook --agent claude"); ok {
			o.Hint("run 'picket uninstall claude --exe %s' to remove it", exe)
		}
	}
}

// installHelp is picket install claude --help.
const installHelp = `Usage:
  picket install claude [--project | --user] [--print] [--exe P]
  picket uninstall claude [--project | --user] [--print] [--exe P]

Adds picket's hooks (PreToolUse and PostToolUse on the file tools,
SessionStart, SessionEnd), the mandatory write denies (as permissions.deny
rules) and, on Linux, env.CLAUDE_CODE_SHELL_PREFIX (every Bash command
then runs in picket's shell sandbox, see picket run; elsewhere there is no
sandbox and Bash runs unfenced) to Claude Code's settings, keeping
everything else; uninstall removes them again.

  --project  <root>/.claude/settings.json, where root is $CLAUDE_PROJECT_DIR,
             else the git top level of the current directory, else the
             current directory (the default)
  --user     ~/.claude/settings.json
  --print    print the resulting settings to stdout and write nothing
  --exe P    picket executable the hook command runs (default: this one)
`
