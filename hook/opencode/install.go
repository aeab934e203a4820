package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/picketdev/picket/hook"
)

// backupLayout names the backup of a plugin install replaced.
const backupLayout = "20060102T150405.000Z"

// wire is the Agent's Wire: the plugin, whatever was there before
// (install keeps that as a backup).
func wire(_ []byte, exe string) ([]byte, error) { return Render(exe) }

// unwire is the Agent's Unwire: the plugin file goes.
func unwire([]byte, string) ([]byte, error) { return nil, nil }

// configHome is $XDG_CONFIG_HOME when it is absolute, else ~/.config: where
// opencode's user config dir is.
func configHome(o hook.InstallOptions) (string, error) {
	if x := o.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return x, nil
	}
	if o.Home == "" {
		return "", errors.New("HOME is not set, so there is no ~/.config/opencode")
	}
	return filepath.Join(o.Home, ".config"), nil
}

// pluginDir is where the plugin goes for the chosen scope: the person's
// own by default.
func pluginDir(o hook.InstallOptions) (string, error) {
	if !o.Project {
		home, err := configHome(o)
		if err != nil {
			return "", err
		}
		return Dir(home, "", true), nil
	}
	return Dir("", hook.GitTop(o.Dir, o.Env), false), nil
}

// install is the Agent's Install: the plugin, with o.Exe baked in, written
// where opencode loads it on its next start.
func install(o hook.InstallOptions) error {
	dir, err := pluginDir(o)
	if err != nil {
		return err
	}
	src, err := Render(o.Exe)
	if err != nil {
		return err
	}
	if o.Print {
		_, err := o.Stdout.Write(src)
		return err
	}
	file := filepath.Join(dir, File)
	old, err := os.ReadFile(file)
	if err == nil && bytes.Equal(old, src) {
		o.Info("install: %s already up to date", file)
		return nil
	}
	if err == nil {
		// Another version, or one the person edited: kept, never lost.
		// Not as a .ts or .js file, which opencode would load too.
		bak := file + ".bak-" + time.Now().UTC().Format(backupLayout)
		if err := writeFile(bak, old); err != nil {
			return fmt.Errorf("install opencode: keeping the old plugin: %w", err)
		}
		o.Info("kept the previous %s as %s", File, bak)
	}
	created := missingDirs(dir)
	if err := writeFile(file, src); err != nil {
		return fmt.Errorf("install opencode: %w", err)
	}
	if err := noteCreated(o.StateDir, dir, created); err != nil {
		o.Warn("could not record the directories install made for uninstall to remove: %v", err)
	}
	o.Info("installed picket's opencode plugin in %s", file)
	o.Hint("start opencode again so it loads the plugin; 'picket doctor' then says whether it did")
	// The plugin runs bash under picket run only where it can sandbox it.
	o.ShellSandboxed("opencode's bash commands")
	return nil
}

// writeFile writes data through a temporary file and a rename, so opencode
// never loads half of it. The temporary name ends in neither .ts nor .js.
func writeFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to write %s: %w", file, err)
	}
	return nil
}

// uninstall is the Agent's Uninstall: it removes the plugin picket wrote,
// and the directories install created while nothing else is in them:
// another plugin, or what opencode put in .opencode, stays.
func uninstall(o hook.InstallOptions) error {
	dir, err := pluginDir(o)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, File)
	if o.Print {
		_, err := fmt.Fprintln(o.Stdout, file)
		return err
	}
	if err := os.Remove(file); errors.Is(err, os.ErrNotExist) {
		o.Info("uninstall: %s is not there, nothing to remove", file)
	} else if err != nil {
		return fmt.Errorf("uninstall opencode: %w", err)
	} else {
		o.Info("removed picket's opencode plugin (%s)", file)
	}
	if left := removeCreated(o.StateDir, dir); left != "" {
		o.Info("left %s, which holds files picket did not write", left)
	}
	return nil
}

// missingDirs are the directories from dir up that do not exist yet, the
// deepest last: what writing into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// recordFile is where picket's state dir notes the directories an install
// of the plugin into dir created.
func recordFile(stateDir, dir string) string {
	return hook.InstallRecordPath(stateDir, "opencode", dir)
}

type record struct {
	Created []string `json:"created"`
}

// noteCreated adds created to the record for dir.
func noteCreated(stateDir, dir string, created []string) error {
	if len(created) == 0 {
		return nil
	}
	var rec record
	f := recordFile(stateDir, dir)
	if b, err := os.ReadFile(f); err == nil {
		json.Unmarshal(b, &rec)
	}
	for _, c := range created {
		if !slices.Contains(rec.Created, c) {
			rec.Created = append(rec.Created, c)
		}
	}
	b, _ := json.Marshal(rec)
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	return os.WriteFile(f, b, 0o600)
}

// removeCreated removes the directories an install into dir created, the
// deepest first, each only while it is empty, and then the record. It
// returns the first it had to leave, or "".
func removeCreated(stateDir, dir string) (left string) {
	f := recordFile(stateDir, dir)
	var rec record
	if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &rec) == nil {
		slices.Sort(rec.Created)
		for i := len(rec.Created) - 1; i >= 0; i-- {
			if err := os.Remove(rec.Created[i]); err != nil && !errors.Is(err, os.ErrNotExist) && left == "" {
				left = rec.Created[i] // not empty, as it should stay
			}
		}
	}
	if left == "" {
		os.Remove(f)
	}
	return left
}

// installHelp is picket install opencode --help.
const installHelp = `Usage:
  picket install opencode [--user | --project] [--print] [--exe P]
  picket uninstall opencode [--user | --project] [--print] [--exe P]

Writes picket's plugin for opencode, with this picket's absolute path baked
in, where opencode loads plugins on its next start; uninstall removes it,
and the directories install made while nothing else is in them. Run it
yourself: the agent may never write these directories (they are mandatory
write denies).

  --user     $XDG_CONFIG_HOME/opencode/plugins/picket.js (~/.config when
             XDG_CONFIG_HOME is not set; the default)
  --project  <root>/.opencode/plugins/picket.js, where root is the git top
             level of the current directory, else the current directory
  --print    install: print the plugin to stdout; uninstall: print the
             file it would remove; write nothing
  --exe P    picket executable the plugin runs (default: this one)

opencode skips a plugin that fails to load without a word, and
'opencode run --pure' loads none: 'picket doctor' says whether opencode
loaded picket's plugin the last time it ran.
`
