package opencode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/picketdev/picket/hook"
)

// backupLayout names the backup of a plugin install replaced.
const backupLayout = "20060102T150405.000Z"

// backup names the backup of file, a plugin install replaces: not a .ts
// or .js file, which opencode would load too.
func backup(file string) string { return file + ".bak-" + time.Now().UTC().Format(backupLayout) }

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
	if wrote, err := plugin.Install(o, dir); err != nil || !wrote {
		return err
	}
	o.Info("installed picket's opencode plugin in %s", filepath.Join(dir, File))
	o.Hint("start opencode again so it loads the plugin; 'picket doctor' then says whether it did")
	// The plugin runs bash under picket run only where it can sandbox it.
	o.ShellSandboxed("opencode's bash commands")
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
	if left := plugin.RemoveCreated(o.StateDir, dir); left != "" {
		o.Info("left %s, which holds files picket did not write", left)
	}
	return nil
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
