package pi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/picketdev/picket/hook"
)

// backupLayout names the backup of an extension install replaced.
const backupLayout = "20060102T150405.000Z"

// backup names the backup of file, an extension install replaces.
func backup(file string) string { return file + ".bak-" + time.Now().UTC().Format(backupLayout) }

// wire is the Agent's Wire: the extension, whatever was there before
// (install keeps that as a backup).
func wire(_ []byte, exe string) ([]byte, error) { return Render(exe) }

// unwire is the Agent's Unwire: the extension file goes.
func unwire([]byte, string) ([]byte, error) { return nil, nil }

// extensionDir is where the extension goes for the chosen scope.
func extensionDir(o hook.InstallOptions) (string, error) {
	if !o.Project { // the person's own by default
		if o.Home == "" {
			return "", errors.New("HOME is not set, so there is no ~/.pi/agent/extensions")
		}
		return Dir(o.Home, "", true), nil
	}
	return Dir("", hook.GitTop(o.Dir, o.Env), false), nil
}

// install is the Agent's Install: the extension, with o.Exe baked in,
// written where Pi loads it on its next start.
func install(o hook.InstallOptions) error {
	dir, err := extensionDir(o)
	if err != nil {
		return err
	}
	if wrote, err := extension.Install(o, dir); err != nil || !wrote {
		return err
	}
	o.Info("installed picket's Pi extension in %s", filepath.Join(dir, File))
	o.Hint("start Pi again (or run /reload in it) so it loads the extension")
	// The extension asks picket's status whether to run bash under picket
	// run: where there is no sandbox, bash runs unfenced.
	o.ShellSandboxed("Pi's bash commands")
	return nil
}

// uninstall is the Agent's Uninstall: it removes the extension picket
// wrote, and its directory when nothing else is left there: a file the
// person put beside it stays.
func uninstall(o hook.InstallOptions) error {
	dir, err := extensionDir(o)
	if err != nil {
		return err
	}
	if o.Print {
		_, err := fmt.Fprintln(o.Stdout, dir)
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		o.Info("uninstall: %s is not there, nothing to remove", dir)
		return nil
	}
	if err := os.Remove(filepath.Join(dir, File)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("uninstall pi: %w", err)
	}
	if err := os.Remove(dir); err != nil {
		o.Info("removed picket's Pi extension (%s); left %s, which holds files picket did not write", filepath.Join(dir, File), dir)
		return nil
	}
	// The record goes even while a directory above is left: with dir
	// gone, the next uninstall stops before it.
	extension.RemoveCreated(o.StateDir, dir)
	os.Remove(hook.InstallRecordPath(o.StateDir, Name, dir))
	o.Info("removed picket's Pi extension (%s)", dir)
	return nil
}

// installHelp is picket install pi --help.
const installHelp = `Usage:
  picket install pi [--user | --project] [--print] [--exe P]
  picket uninstall pi [--user | --project] [--print] [--exe P]

Writes picket's extension for the Pi coding agent, with this picket's
absolute path baked in, where Pi loads it on its next start; uninstall
removes that directory again. Run it yourself: the agent may never write
these directories (they are mandatory write denies).

  --user     ~/.pi/agent/extensions/picket/index.ts (the default)
  --project  <root>/.pi/extensions/picket/index.ts, where root is the git
             top level of the current directory, else the current directory
  --print    install: print the extension to stdout; uninstall: print the
             directory it would remove; write nothing
  --exe P    picket executable the extension runs (default: this one)
`
