package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/hook"
)

// install is the Agent's Install: picket's hooks in Gemini CLI's
// settings, and a record in picket's state dir of the file as it was, so
// that uninstall gives it back byte for byte when nothing else changed
// it since.
func install(o hook.InstallOptions) error {
	path, dir, err := settingsPath(o)
	if err != nil {
		return err
	}
	old, err := readSettingsFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install gemini: %w", err)
	}
	wired, err := wire(old, o.Exe)
	if err != nil {
		return fmt.Errorf("install gemini: %s: %w", path, err)
	}
	if o.Print {
		if _, err := o.Stdout.Write(wired); err != nil {
			return err
		}
		advise(o, path, dir)
		return nil
	}
	if bytes.Equal(wired, old) && old != nil {
		o.Info("install: %s already up to date", path)
		advise(o, path, dir)
		return nil
	}
	created := hook.Missing(path, filepath.Dir(path))
	if err := hook.ReplaceFile(path, wired); err != nil {
		return fmt.Errorf("install gemini: %w", err)
	}
	rec := recordOf(o.StateDir, path)
	if err := rec.Installed(old, wired, o.Exe, created); err != nil {
		o.Warn("could not record what install changed in %s (uninstall will take picket's hooks out, but cannot give the file back byte for byte): %v", path, err)
	}
	o.Info("installed picket's hooks (BeforeTool, BeforeAgent, AfterTool, SessionStart, SessionEnd) in %s", path)
	advise(o, path, dir)
	o.Hint("restart Gemini CLI so it reads the new settings")
	return nil
}

// advise tells the person what else decides whether the hooks run: the
// folder's trust, Gemini CLI's switches for hooks, a missing timeout, the
// shell sandbox.
func advise(o hook.InstallOptions, path, dir string) {
	st := TrustOf(dir, o.Home, o.Getenv)
	if !st.Trusted {
		o.Warn("Gemini CLI will not run picket in %s: %s", dir, st.Detail)
		o.Hint("%s; picket never trusts a folder for you (picket doctor shows the state)", st.Fix)
	} else {
		o.Info("Gemini CLI runs picket's hooks in %s: %s", dir, st.Detail)
	}
	if !o.Project {
		o.Hint("in every other folder, trust it when Gemini CLI asks: in a folder it does not trust, Gemini CLI runs no hook at all, picket's included")
	}
	if gh := o.Getenv("GEMINI_CLI_HOME"); gh != "" && realPath(gh) != realPath(o.Home) {
		dir := filepath.Join(gh, ".gemini")
		o.Warn("GEMINI_CLI_HOME is set: Gemini CLI keeps its settings in %s, which picket's mandatory write denies do not name (they name ~/.gemini), so an agent could write them and turn picket's hooks off", dir)
		o.Hint(`add %q to "filesystem": {"denyWrite": [...]} in your policy`, dir)
	}
	if later := laterBeforeToolHooks(o, path, dir); len(later) > 0 {
		verb := map[bool]string{true: "holds", false: "hold"}[len(later) == 1]
		o.Warn("%s %s BeforeTool hooks that Gemini CLI runs after picket's: it runs a call with the input the last of them returns, which picket does not judge again (a shell command they rewrite stays under picket run)", strings.Join(later, " and "), verb)
	}
	if timeoutBin() == "" {
		o.Warn("no timeout command on PATH (coreutils): a picket that hangs past %s lets Gemini CLI run the call", HookTimeout)
	}
	o.WarnShellSandbox("Gemini CLI's shell commands")
}

// laterBeforeToolHooks are the settings files Gemini CLI reads after the
// one at path (the user's, then the workspace's of dir, then the
// system's) that hold BeforeTool hooks other than picket's.
func laterBeforeToolHooks(o hook.InstallOptions, path, dir string) []string {
	sys := systemSettingsPaths(o.Getenv)[0]
	later := []string{sys}
	if ws := workspaceSettingsPath(dir); path != ws && realPath(dir) != realPath(geminiHome(o.Home, o.Getenv)) {
		later = []string{ws, sys}
	}
	var out []string
	for _, f := range later {
		for _, g := range loadSettings(f).Hooks[EventBeforeTool] {
			if slices.ContainsFunc(g.Hooks, func(h settingsHook) bool { return !isPicketHook(h.Name, h.Command) }) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// uninstall is the Agent's Uninstall: the file as it was before install
// when it has not changed since, else the file without picket's hooks;
// the file and the directory install created go when nothing else is in
// them.
func uninstall(o hook.InstallOptions) error {
	path, _, err := settingsPath(o)
	if err != nil {
		return err
	}
	old, err := readSettingsFile(path)
	rec := recordOf(o.StateDir, path)
	if errors.Is(err, fs.ErrNotExist) {
		if !o.Print {
			rec.Remove()
			o.Info("uninstall: %s is not there, nothing to remove", path)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("uninstall gemini: %w", err)
	}
	r, restored := rec.Read()
	out, err := unwire(old, o.Exe)
	if err != nil {
		return fmt.Errorf("uninstall gemini: %s: %w", path, err)
	}
	if restored = restored && r.Unchanged(old); restored {
		out = r.Original
	}
	if o.Print {
		if out == nil {
			o.Info("uninstall would remove %s, which holds nothing but picket's hooks", path)
		}
		_, err := o.Stdout.Write(out)
		return err
	}
	if bytes.Equal(out, old) {
		rec.Remove()
		o.Info("uninstall: nothing of picket's in %s", path)
		return nil
	}
	if out == nil {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("uninstall gemini: %w", err)
		}
		if dir := filepath.Dir(path); slices.Contains(r.Created, dir) {
			os.Remove(dir) // fails, as it should, when anything is in it
		}
	} else if err := hook.ReplaceFile(path, out); err != nil {
		return fmt.Errorf("uninstall gemini: %w", err)
	}
	rec.Remove()
	if restored {
		o.Info("gave %s back as it was before picket's install", path)
	} else {
		o.Info("removed picket's hooks from %s", path)
	}
	return nil
}

// settingsPath is the settings file for the scope, and the directory
// whose trust decides whether its hooks run: the user's settings (the
// default) and the current directory, or, with --project, the workspace
// settings of the directory Gemini CLI starts in (GEMINI_PROJECT_DIR,
// else the current directory): Gemini CLI reads .gemini/settings.json
// there and nowhere above it.
func settingsPath(o hook.InstallOptions) (path, dir string, err error) {
	dir = o.Dir
	if d := o.Getenv(projectDirEnv); filepath.IsAbs(d) {
		dir = d
	}
	home := geminiHome(o.Home, o.Getenv)
	if !o.Project {
		if home == "" {
			return "", "", errors.New("HOME is not set, so there is no ~/.gemini/settings.json")
		}
		return userSettingsPath(o.Home, o.Getenv), dir, nil
	}
	if !filepath.IsAbs(dir) {
		return "", "", fmt.Errorf("the project directory %q is not absolute", dir)
	}
	if home != "" && realPath(dir) == realPath(home) {
		return "", "", errors.New("Gemini CLI reads no workspace settings in your home directory: install with --user")
	}
	return workspaceSettingsPath(dir), dir, nil
}

// maxSettings bounds a settings file install reads.
const maxSettings = 64 << 20

// readSettingsFile reads a settings file that must be a regular file: a
// FIFO in its place is refused, not waited on, and so is a device or a
// file past maxSettings. A missing file is fs.ErrNotExist.
func readSettingsFile(path string) ([]byte, error) { return hook.ReadSettingsFile(path, maxSettings) }

// recordOf is picket's record of the settings file it wired, keyed by
// the file in its directory's real path.
func recordOf(stateDir, settings string) hook.SettingsRecord {
	key := settings
	if r, err := filepath.EvalSymlinks(filepath.Dir(settings)); err == nil {
		key = filepath.Join(r, filepath.Base(settings))
	}
	return hook.RecordOf(stateDir, "gemini", key)
}

// installHelp is picket install gemini --help.
const installHelp = `Usage:
  picket install gemini [--user | --project] [--print] [--exe P]
  picket uninstall gemini [--user | --project] [--print] [--exe P]

Adds picket's hooks to Gemini CLI's settings, keeping everything else,
comments included: BeforeTool on the file tools and the shell (file tools
are judged; shell commands are rewritten to run under picket run, in
picket's shell sandbox), BeforeAgent (the context files Gemini CLI
loaded at start, judged before each prompt reaches the model), AfterTool
on read_file, write_file and replace (the read-before-edit ledger),
SessionStart and SessionEnd. The hook
command blocks the call whenever picket fails, hangs or is missing, with
a timeout of its own below Gemini CLI's (90000 ms). Uninstall gives the
file back as it was, or takes picket's hooks out of it if it changed.

Gemini CLI runs no settings hook in a folder it does not trust (headless,
it refuses to start there): trust each folder in its trust dialog, which
writes {"<dir>": "TRUST_FOLDER"} into ~/.gemini/trustedFolders.json.
install says whether the folder is trusted; picket never trusts one.

  --user     $GEMINI_CLI_HOME/.gemini/settings.json, else
             ~/.gemini/settings.json: every folder (the default)
  --project  <dir>/.gemini/settings.json, where dir is $GEMINI_PROJECT_DIR,
             else the current directory: Gemini CLI reads it only when
             started in that very directory
  --print    print the resulting settings to stdout and write nothing
  --exe P    picket executable the hook command runs (default: this one)
`
