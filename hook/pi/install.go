package pi

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

// backupLayout names the backup of an extension install replaced.
const backupLayout = "20060102T150405.000Z"

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
		bak := file + ".bak-" + time.Now().UTC().Format(backupLayout)
		if err := writeFile(bak, old); err != nil {
			return fmt.Errorf("install pi: keeping the old extension: %w", err)
		}
		o.Info("kept the previous %s as %s", File, bak)
	}
	created := missingDirs(dir)
	if err := writeFile(file, src); err != nil {
		return fmt.Errorf("install pi: %w", err)
	}
	if err := noteCreated(o.StateDir, dir, created); err != nil {
		o.Warn("could not record the directories install made for uninstall to remove: %v", err)
	}
	o.Info("installed picket's Pi extension in %s", file)
	o.Hint("start Pi again (or run /reload in it) so it loads the extension")
	// The extension asks picket's status whether to run bash under picket
	// run: where there is no sandbox, bash runs unfenced.
	o.ShellSandboxed("Pi's bash commands")
	return nil
}

// writeFile writes data through a temporary file and a rename, so Pi
// never loads half of it.
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
	removeCreated(o.StateDir, dir)
	o.Info("removed picket's Pi extension (%s)", dir)
	return nil
}

// missingDirs are the directories above dir (dir's own included) that do
// not exist yet, the deepest last: what writing into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// recordFile is where picket's state dir notes the directories an install
// of the extension into dir created.
func recordFile(stateDir, dir string) string {
	return hook.InstallRecordPath(stateDir, "pi", dir)
}

// noteCreated adds created to the record for dir.
func noteCreated(stateDir, dir string, created []string) error {
	if len(created) == 0 {
		return nil
	}
	var rec struct {
		Created []string `json:"created"`
	}
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
// deepest first, each only while it is empty, and the record.
func removeCreated(stateDir, dir string) {
	f := recordFile(stateDir, dir)
	var rec struct {
		Created []string `json:"created"`
	}
	if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &rec) == nil {
		slices.Sort(rec.Created)
		for i := len(rec.Created) - 1; i >= 0; i-- {
			os.Remove(rec.Created[i]) // fails, as it should, when anything is in it
		}
	}
	os.Remove(f)
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
