package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/picketdev/picket/hook/pi"
)

const installPiUsage = `Usage:
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

// installPi implements `picket install pi` and `picket uninstall pi`.
func (c *cli) installPi(name string, args []string) int {
	fs := flag.NewFlagSet(name+" pi", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	user := fs.Bool("user", false, "")
	project := fs.Bool("project", false, "")
	print := fs.Bool("print", false, "")
	exe := fs.String("exe", "", "")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("%s pi takes no arguments, got %q", name, fs.Arg(0))
		return 2
	}
	if *project && *user {
		c.errorf("--project and --user exclude each other")
		return 2
	}
	dir, err := c.piExtensionDir(*project)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	if name == "uninstall" {
		return c.uninstallPi(dir, *print)
	}
	path, err := piExecutable(*exe)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	src, err := pi.Render(path)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	if *print {
		c.stdout.Write(src)
		return 0
	}
	return c.writePiExtension(dir, src)
}

// piExtensionDir is where the extension goes for the chosen scope.
func (c *cli) piExtensionDir(project bool) (string, error) {
	if !project {
		home := c.getenv("HOME")
		if home == "" {
			return "", errors.New("HOME is not set, so there is no ~/.pi/agent/extensions")
		}
		return pi.Dir(home, "", true), nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("failed to find the current directory: %w", err)
	}
	root, err := c.projectRootFrom(cwd)
	if err != nil {
		return "", err
	}
	return pi.Dir("", root, false), nil
}

// piExecutable is the absolute, symlink-free path of exe, or of this
// executable when exe is empty.
func piExecutable(exe string) (string, error) {
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

// writePiExtension writes src to dir/index.ts unless it is already there,
// through a temporary file and a rename so Pi never loads half of it.
func (c *cli) writePiExtension(dir string, src []byte) int {
	file := filepath.Join(dir, pi.File)
	old, err := os.ReadFile(file)
	if err == nil && bytes.Equal(old, src) {
		fmt.Fprintf(c.stderr, "picket: install: %s already up to date\n", file)
		return 0
	}
	if err == nil {
		// Another version, or one the person edited: kept, never lost.
		bak := file + ".bak-" + time.Now().UTC().Format(backupLayout)
		if err := writePiFile(bak, old); err != nil {
			c.errorf("install pi: keeping the old extension: %v", err)
			return 2
		}
		fmt.Fprintf(c.stderr, "picket: kept the previous %s as %s\n", pi.File, bak)
	}
	if err := writePiFile(file, src); err != nil {
		c.errorf("install pi: %v", err)
		return 2
	}
	fmt.Fprintf(c.stderr, "picket: installed picket's Pi extension in %s\n", file)
	c.hintf("start Pi again (or run /reload in it) so it loads the extension")
	return 0
}

func writePiFile(file string, data []byte) error {
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

// uninstallPi removes the extension picket wrote, and its directory when
// nothing else is left there: a file the person put beside it stays.
func (c *cli) uninstallPi(dir string, print bool) int {
	if print {
		fmt.Fprintln(c.stdout, dir)
		return 0
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(c.stderr, "picket: uninstall: %s is not there, nothing to remove\n", dir)
		return 0
	}
	if err := os.Remove(filepath.Join(dir, pi.File)); err != nil && !errors.Is(err, os.ErrNotExist) {
		c.errorf("uninstall pi: %v", err)
		return 2
	}
	if err := os.Remove(dir); err != nil {
		fmt.Fprintf(c.stderr, "picket: removed picket's Pi extension (%s); left %s, which holds files picket did not write\n", filepath.Join(dir, pi.File), dir)
		return 0
	}
	fmt.Fprintf(c.stderr, "picket: removed picket's Pi extension (%s)\n", dir)
	return 0
}
