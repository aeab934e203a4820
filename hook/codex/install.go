package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/picketdev/picket/hook"
)

// wire is the Agent's Wire: picket's group in hooks.json, running exe
// (without timeout(1), which install adds where the machine has one).
func wire(settings []byte, exe string) ([]byte, error) {
	return AddHook(settings, HookCommand(exe, ""))
}

// unwire is the Agent's Unwire: nil means the file goes.
func unwire(settings []byte, exe string) ([]byte, error) { return RemoveHook(settings, exe) }

// target is where an install goes: the hooks.json, and Codex's home,
// whose config.toml holds the trust record.
type target struct {
	hooks, codexHome string
	project          string // the project root, for a project install
}

// where is the hooks.json of the chosen scope: $CODEX_HOME/hooks.json
// (the default, every project), or <root>/.codex/hooks.json with
// --project, root being the git top level of the current directory.
func where(o hook.InstallOptions) (target, error) {
	home, err := Home(o.Getenv)
	if err != nil {
		return target{}, err
	}
	if !o.Project {
		return target{hooks: filepath.Join(home, "hooks.json"), codexHome: home}, nil
	}
	root := hook.GitTop(o.Dir, o.Env)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return target{hooks: filepath.Join(root, ".codex", "hooks.json"), codexHome: home, project: root}, nil
}

// timeoutBin is the timeout(1) the hook command bounds picket with
// ([hook.TimeoutBin]), when its path is one the command can carry: the
// one on PATH when it runs with --foreground (which keeps picket's prompt
// on the terminal) and -k, by absolute path, so nothing put on PATH later
// stands in for it. "" where there is none (macOS has none by default).
func timeoutBin(getenv func(string) string) string {
	if p := hook.TimeoutBin(getenv); p != "" && checkPath("timeout(1)", p) == nil {
		return p
	}
	return ""
}

// install is the Agent's Install: picket's group in hooks.json, the
// trust record with --trust, and a record in picket's state dir of what
// it added and created, for uninstall.
func install(o hook.InstallOptions) error {
	t, err := where(o)
	if err != nil {
		return err
	}
	if err := checkPath("the picket executable", o.Exe); err != nil {
		return err
	}
	cmd := HookCommand(o.Exe, timeoutBin(o.Getenv))
	old, err := readOrEmpty(t.hooks)
	if err != nil {
		return err
	}
	out, err := AddHook(old, cmd)
	if err != nil {
		return fmt.Errorf("install codex: %s: %w", t.hooks, err)
	}
	_, idx := HookCommands(out)
	key := TrustKey(t.hooks, idx[0])
	if o.Print {
		if _, err := o.Stdout.Write(out); err != nil {
			return err
		}
		if o.Trust {
			fmt.Fprintf(o.Stdout, "\n# and in %s:%s", filepath.Join(t.codexHome, "config.toml"), trustBlock(key, HookHash(cmd)))
		} else {
			trustSteps(o, t, key, cmd)
		}
		return nil
	}
	rec := recordOf(o.StateDir, t.hooks)
	created := hook.Missing(t.hooks, filepath.Dir(t.hooks))
	if !bytes.Equal(out, old) {
		if err := hook.WriteFileAtomic(t.hooks, out, hook.ModeOf(t.hooks, 0o644)); err != nil {
			return fmt.Errorf("install codex: %w", err)
		}
		rec.Created = union(rec.Created, created)
		o.Info("installed picket's PreToolUse hook in %s", t.hooks)
	} else {
		o.Info("install: %s already up to date", t.hooks)
	}
	rec.Exe = o.Exe
	if o.Trust {
		if err := rec.trust(t, key, HookHash(cmd)); err != nil {
			rec.save(o)
			return fmt.Errorf("install codex --trust: %w", err)
		}
		o.Info("trusted picket's hook in %s (hooks.state %s)", filepath.Join(t.codexHome, "config.toml"), strconv.Quote(key))
		if t.project != "" {
			projectSteps(o, t)
		}
	} else {
		trustSteps(o, t, key, cmd)
	}
	rec.save(o)
	o.Hint("start Codex again so it loads the hook; 'picket doctor' says whether it runs")
	return nil
}

// trustSteps tells the person what Codex needs before it runs picket's
// hook, unless it already does.
func trustSteps(o hook.InstallOptions, t target, key, cmd string) {
	if !o.Print {
		if st, err := Trust(t.codexHome, t.hooks); err == nil && len(st) == 1 && st[0].Status == Trusted {
			o.Info("Codex already trusts picket's hook")
			if t.project != "" {
				projectSteps(o, t)
			}
			return
		}
	}
	o.Warn("Codex skips a hook no one has trusted, without a word: until you trust picket's hook, nothing is fenced")
	o.Hint("start Codex, type /hooks, and trust the PreToolUse hook from %s (it runs %s)", t.hooks, strconv.Quote(cmd))
	o.Hint("or run 'picket install codex%s --trust', which writes that trust (hooks.state %s in %s) for picket's hook alone",
		map[bool]string{true: " --project"}[t.project != ""], strconv.Quote(key), filepath.Join(t.codexHome, "config.toml"))
	if t.project != "" {
		projectSteps(o, t)
	}
}

// projectSteps: a project's .codex/hooks.json runs only in a project the
// person trusts, which picket leaves to them (trusting a project trusts
// all of its .codex).
func projectSteps(o hook.InstallOptions, t target) {
	o.Hint("Codex loads a project's .codex only in a project you trust: answer yes when Codex asks about %s, or set [projects.%s] trust_level = \"trusted\" in %s",
		t.project, tomlQuote(t.project), filepath.Join(t.codexHome, "config.toml"))
}

// uninstall is the Agent's Uninstall: picket's group out of hooks.json,
// the trust record install wrote out of config.toml, and the files and
// directories install created, when nothing else is in them.
func uninstall(o hook.InstallOptions) error {
	t, err := where(o)
	if err != nil {
		return err
	}
	exe := ""
	if o.ExeGiven {
		exe = o.Exe
	}
	old, err := readOrEmpty(t.hooks)
	if err != nil {
		return err
	}
	out, err := RemoveHook(old, exe)
	if err != nil {
		return fmt.Errorf("uninstall codex: %s: %w", t.hooks, err)
	}
	if o.Print {
		_, err := o.Stdout.Write(out)
		return err
	}
	rec := recordOf(o.StateDir, t.hooks)
	switch {
	case bytes.Equal(out, old):
		o.Info("uninstall: nothing of picket's in %s", t.hooks)
	case out == nil && slices.Contains(rec.Created, t.hooks):
		if err := os.Remove(t.hooks); err != nil {
			return fmt.Errorf("uninstall codex: %w", err)
		}
		o.Info("removed %s, which install had created", t.hooks)
	default:
		if out == nil {
			out = []byte("{}\n")
		}
		if err := hook.WriteFileAtomic(t.hooks, out, hook.ModeOf(t.hooks, 0o644)); err != nil {
			return fmt.Errorf("uninstall codex: %w", err)
		}
		o.Info("removed picket's hook from %s", t.hooks)
	}
	if err := rec.untrust(); err != nil {
		o.Warn("could not take picket's trust record out of %s: %v", rec.Trust.Config, err)
	}
	if dir := filepath.Dir(t.hooks); slices.Contains(rec.Created, dir) {
		os.Remove(dir) // fails, as it should, when anything is in it
	}
	rec.remove()
	return nil
}

// record is what install added and created, kept in picket's state dir
// under a name derived from the hooks.json path.
type record struct {
	file    string
	Exe     string   `json:"exe"`
	Created []string `json:"created,omitempty"`
	Trust   struct {
		Config  string `json:"config,omitempty"`  // the config.toml written to
		Block   string `json:"block,omitempty"`   // the bytes appended
		Created bool   `json:"created,omitempty"` // install created config.toml
	} `json:"trust"`
}

func recordOf(stateDir, hooksPath string) record {
	r := record{file: hook.InstallRecordPath(stateDir, "codex", hooksPath)}
	if b, err := os.ReadFile(r.file); err == nil {
		json.Unmarshal(b, &r)
	}
	return r
}

func (r *record) save(o hook.InstallOptions) {
	b, _ := json.Marshal(r)
	err := os.MkdirAll(filepath.Dir(r.file), 0o700)
	if err == nil {
		err = os.WriteFile(r.file, b, 0o600)
	}
	if err != nil {
		o.Warn("could not record what install added (uninstall then takes out every picket hook it finds): %v", err)
	}
}

func (r *record) remove() { os.Remove(r.file) }

// trust appends picket's trust record to config.toml (replacing the one
// an earlier install appended).
func (r *record) trust(t target, key, hash string) error {
	config := filepath.Join(t.codexHome, "config.toml")
	old, err := readOrEmpty(config)
	if err != nil {
		return err
	}
	prev := ""
	if r.Trust.Config == config {
		prev = r.Trust.Block
	}
	block := trustBlock(key, hash)
	out, err := addTrust(old, key, hash, block, prev)
	if err != nil {
		return err
	}
	if bytes.Equal(out, old) {
		return nil
	}
	created := len(hook.Missing(config)) == 1
	home := hook.Missing(t.codexHome)
	if err := hook.WriteFileAtomic(config, out, hook.ModeOf(config, 0o644)); err != nil {
		return err
	}
	r.Created = union(r.Created, home)
	r.Trust.Config, r.Trust.Block = config, block
	r.Trust.Created = r.Trust.Created || created
	return nil
}

// untrust takes the block install appended out of config.toml again, if
// it is still there as written, and config.toml itself when install
// created it and nothing else is left.
func (r *record) untrust() error {
	if r.Trust.Config == "" || r.Trust.Block == "" {
		return nil
	}
	b, err := readOrEmpty(r.Trust.Config)
	if err != nil {
		return err
	}
	i := bytes.LastIndex(b, []byte(r.Trust.Block))
	if i < 0 {
		return nil
	}
	out := append(append([]byte(nil), b[:i]...), b[i+len(r.Trust.Block):]...)
	if len(out) == 0 && r.Trust.Created {
		err = os.Remove(r.Trust.Config)
	} else {
		err = hook.WriteFileAtomic(r.Trust.Config, out, hook.ModeOf(r.Trust.Config, 0o644))
	}
	if err == nil {
		for _, d := range r.Created {
			if d == filepath.Dir(r.Trust.Config) {
				os.Remove(d)
			}
		}
	}
	return err
}

// readOrEmpty reads a configuration file; a missing one is empty.
func readOrEmpty(path string) ([]byte, error) {
	b, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// installHelp is picket install codex --help.
const installHelp = `Usage:
  picket install codex [--project | --user] [--trust] [--print] [--exe P]
  picket uninstall codex [--project | --user] [--print] [--exe P]

Adds picket's PreToolUse hook (the shell, apply_patch and view_image) to
Codex's hooks.json, keeping everything else; uninstall removes it again.
Codex runs the hook through $SHELL -lc; the command starts /bin/sh, which
turns any failure of picket (missing, crashed, killed, hung past two
minutes) into exit 2 with a reason: a block. Codex itself would run the
call.

Codex skips a hook no one has trusted, without a word. Trust picket's in
Codex's /hooks, or pass --trust: install then writes the trust record
/hooks would write (its hash under hooks.state in config.toml) for
picket's own hook, nothing else. A project's .codex/hooks.json also needs
the project trusted, which install leaves to you.

  --user     $CODEX_HOME/hooks.json (~/.codex/hooks.json), for every
             project (the default)
  --project  <root>/.codex/hooks.json, where root is the git top level of
             the current directory, else the current directory
  --trust    also write the trust record for picket's hook
  --print    print the resulting hooks.json to stdout and write nothing
  --exe P    picket executable the hook command runs (default: this one)
`
