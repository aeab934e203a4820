package qwen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/picketdev/picket/hook"
)

// where is the settings file of the chosen scope, and the directory a
// session starts in: the user's settings ($QWEN_HOME/settings.json, else
// ~/.qwen/settings.json: every folder, the default), or with --project
// the current directory's .qwen/settings.json, which Qwen Code reads only
// when started in that very directory, and never in the home directory.
func where(o hook.InstallOptions) (path, dir string, err error) {
	dir, err = filepath.Abs(o.Dir)
	if err != nil {
		return "", "", err
	}
	p, err := pathsFor(dir, o.Home, o.Getenv)
	if err != nil {
		return "", "", err
	}
	if !o.Project {
		return p.user, dir, nil
	}
	if realPath(dir) == realPath(o.Home) {
		return "", "", errors.New("Qwen Code reads no project settings in your home directory: install with --user")
	}
	return p.project, dir, nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
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

// install is the Agent's Install: picket's hooks in Qwen Code's settings,
// and a record in picket's state dir of the file as it was, so that
// uninstall gives it back byte for byte when nothing else changed it
// since.
func install(o hook.InstallOptions) error {
	path, dir, err := where(o)
	if err != nil {
		return err
	}
	if err := checkPath("the picket executable", o.Exe); err != nil {
		return err
	}
	tb := timeoutBin(o.Getenv)
	old, err := readSmall(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install qwen: %w", err)
	}
	wired, err := AddHooks(old, HookCommand(o.Exe, tb))
	if err != nil {
		return fmt.Errorf("install qwen: %s: %w", path, err)
	}
	if o.Print {
		if _, err := o.Stdout.Write(wired); err != nil {
			return err
		}
		advise(o, dir, tb)
		return nil
	}
	if old != nil && bytes.Equal(wired, old) {
		o.Info("install: %s already up to date", path)
		advise(o, dir, tb)
		return nil
	}
	created := hook.Missing(path, filepath.Dir(path))
	if err := hook.ReplaceFile(path, wired); err != nil {
		return fmt.Errorf("install qwen: %w", err)
	}
	rec := recordOf(o.StateDir, path)
	if err := rec.Installed(old, wired, o.Exe, created); err != nil {
		o.Warn("could not record what install changed in %s (uninstall will take picket's hooks out, but cannot give the file back byte for byte): %v", path, err)
	}
	o.Info("installed picket's hooks (PreToolUse, PostToolUse) in %s", path)
	advise(o, dir, tb)
	o.Hint("start Qwen Code again so it reads the new settings; 'picket doctor' says whether it runs them")
	return nil
}

// advise tells the person what else decides whether the hooks hold: the
// folder's trust and disableAllHooks, a missing timeout(1), and that
// shell commands are judged by their words only.
func advise(o hook.InstallOptions, dir, tb string) {
	if o.Project {
		p, err := pathsFor(dir, o.Home, o.Getenv)
		if err == nil {
			var user map[string]any
			var system map[string]any
			if b, err := readSmall(p.user); err == nil {
				jsonc(b, &user)
			}
			if b, err := readSmall(p.system); err == nil {
				jsonc(b, &system)
			}
			if ok, detail, fix := folderTrusted(p, user, system); !ok {
				o.Warn("Qwen Code will not run picket's hooks in %s: %s", dir, detail)
				o.Hint("%s; picket never trusts a folder for you", fix)
			}
		}
		o.Hint("Qwen Code reads %s only when started in %s itself; 'picket install qwen --user' covers every folder", filepath.Join(dir, ".qwen", "settings.json"), dir)
	}
	if !o.Print {
		if st := TrustOf(dir, o.Home, o.Getenv); !st.Trusted && st.Fix != "run 'picket install qwen'" {
			o.Warn("%s", st.Detail)
			o.Hint("%s", st.Fix)
		}
	}
	o.Hint("with folder trust on (security.folderTrust.enabled), never mark a folder DO_NOT_TRUST if its own .qwen/settings.json holds picket's hooks; --bare runs Qwen Code with no hook at all")
	if qh, err := qwenHome(o.Home, o.Getenv); err == nil && o.Home != "" && realPath(qh) != realPath(filepath.Join(o.Home, ".qwen")) {
		o.Warn("QWEN_HOME moves Qwen Code's settings to %s, outside the mandatory write denies (~/.qwen): an agent could write them and turn picket's hooks off", qh)
		o.Hint(`add %q to filesystem.denyWrite in your policy`, qh)
	}
	if tb == "" {
		o.Warn("no timeout(1) on PATH (coreutils): a picket that hangs, or a prompt left on screen, past %s lets Qwen Code run the call", BusTimeout)
	}
	o.Hint("Qwen Code's shell commands are judged by their words, which is best effort: run Qwen Code in its own sandbox as well (qwen --sandbox, or tools.sandbox in settings.json); see docs/agents/qwen.md")
}

// uninstall is the Agent's Uninstall: the file as it was before install
// when it has not changed since, else the file without picket's hooks;
// the file and the directory install created go when nothing else is in
// them.
func uninstall(o hook.InstallOptions) error {
	path, _, err := where(o)
	if err != nil {
		return err
	}
	rec := recordOf(o.StateDir, path)
	old, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !o.Print {
			rec.Remove()
			o.Info("uninstall: %s is not there, nothing to remove", path)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("uninstall qwen: %w", err)
	}
	r, ok := rec.Read()
	out, err := RemoveHooks(old)
	if err != nil {
		return fmt.Errorf("uninstall qwen: %s: %w", path, err)
	}
	restored := ok && r.Unchanged(old)
	if restored {
		out = r.Original
	}
	if o.Print {
		_, err := o.Stdout.Write(out)
		return err
	}
	if bytes.Equal(out, old) {
		rec.Remove()
		o.Info("uninstall: nothing of picket's in %s", path)
		return nil
	}
	switch {
	case out == nil && (restored || slices.Contains(r.Created, path)):
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("uninstall qwen: %w", err)
		}
		if dir := filepath.Dir(path); slices.Contains(r.Created, dir) {
			os.Remove(dir) // fails, as it should, when anything is in it
		}
	case out == nil:
		out = []byte("{}\n") // the person's file, emptied: it stays
		fallthrough
	default:
		if err := hook.ReplaceFile(path, out); err != nil {
			return fmt.Errorf("uninstall qwen: %w", err)
		}
	}
	rec.Remove()
	if restored {
		o.Info("gave %s back as it was before picket's install", path)
	} else {
		o.Info("removed picket's hooks from %s", path)
	}
	return nil
}

// recordOf is picket's record of the settings file it wired, keyed by
// the file in its directory's real path. (Qwen Code itself adds
// "$version" to a settings file at its first start: uninstall then takes
// picket's hooks out and leaves that.)
func recordOf(stateDir, settings string) hook.SettingsRecord {
	key := filepath.Join(realPath(filepath.Dir(settings)), filepath.Base(settings))
	return hook.RecordOf(stateDir, "qwen", key)
}

// installHelp is picket install qwen --help.
const installHelp = `Usage:
  picket install qwen [--user | --project] [--print] [--exe P]
  picket uninstall qwen [--user | --project] [--print] [--exe P]

Adds picket's hooks to Qwen Code's settings.json, keeping everything
else, comments included: PreToolUse on the file tools, the shell and
monitor (each call judged; a shell command by its words), PostToolUse on
read_file, write_file and edit (the read-before-edit ledger). The hook
command blocks the call whenever picket fails, hangs past 40 s or is
missing (Qwen Code itself would run it, and it runs a call whose
PreToolUse hooks have not answered within 60 s, whatever their timeout). Uninstall gives the file back as it was, or takes
picket's hooks out of it if it changed since.

Qwen Code runs the user's hooks in every folder. A project's
.qwen/settings.json is read only when Qwen Code starts in that directory,
and not at all in a folder marked DO_NOT_TRUST (with
security.folderTrust.enabled). disableAllHooks and --bare run no hook.
picket never changes any of these; picket doctor reports them.

  --user     $QWEN_HOME/settings.json, else ~/.qwen/settings.json: every
             folder (the default)
  --project  ./.qwen/settings.json of the current directory
  --print    print the resulting settings to stdout and write nothing
  --exe P    picket executable the hook command runs (default: this one)
`
