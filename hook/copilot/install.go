package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/picketdev/picket/hook"
)

// HooksFile is the name of picket's own hooks file, in
// $COPILOT_HOME/hooks (or ~/.copilot/hooks) for the person, or in a
// repository's .github/hooks.
const HooksFile = "picket.json"

// HookArgs are picket's arguments in the hook command.
var HookArgs = []string{"hook", "--agent", Name}

// afterMatcher is the postToolUse matcher: the tools whose result the
// read-before-edit ledger records (Copilot CLI anchors it: ^(?:…)$).
const afterMatcher = "view|create|edit|str_replace_editor|apply_patch"

// HookCommand is the command line Copilot CLI runs (with bash) for each
// event: picket's hook, under timeout(1) at timeoutBin ("" for none),
// and where picket itself is missing, dies without an answer or outlives
// [WrapperTimeout], exit 2, a deny object saying so for the model and a
// line for the person. Copilot CLI denies a call on exit 1, 2 or 127
// alike (measured on 1.0.102), but only exit 2 is documented to deny
// whatever stdout holds; it runs a call whose hook outlives timeoutSec,
// which is why a hung picket is ended first. picket's own deny exits 2
// with its object printed: nothing is added to it.
func HookCommand(exe, timeoutBin string) string { return hookCommand(exe, timeoutBin, WrapperTimeout) }

// hookCommand is HookCommand with timeout(1) ending picket after seconds
// (and killing it 10 s later if it is still there).
func hookCommand(exe, timeoutBin string, seconds int) string {
	run := hook.ShellQuote(exe)
	if timeoutBin != "" {
		run = hook.ShellQuote(timeoutBin) + " --foreground -k 10 " + strconv.Itoa(seconds) + " " + run
	}
	return run + " " + strings.Join(HookArgs, " ") + ` || { s=$?; [ "$s" = 2 ] || ` +
		`echo '{"permissionDecision":"deny","permissionDecisionReason":"picket: error: the picket hook failed, so the call is denied (run picket doctor)"}'; ` +
		`echo "picket: error: the picket hook failed (exit $s); the call is denied" >&2; exit 2; }`
}

// Render is picket's hooks file for the picket at exe, bounded by the
// timeout(1) at timeoutBin: its hook on preToolUse (every tool: the file
// tools are judged, bash is wrapped), postToolUse of the file tools (the
// read-before-edit ledger), sessionStart and sessionEnd, each with the
// timeout set.
func Render(exe, timeoutBin string) []byte {
	entry := func(matcher string) map[string]any {
		e := map[string]any{"type": "command", "bash": HookCommand(exe, timeoutBin), "timeoutSec": HookTimeout}
		if matcher != "" {
			e["matcher"] = matcher
		}
		return e
	}
	file := map[string]any{"version": 1, "hooks": map[string]any{
		"sessionStart": []any{entry("")},
		"preToolUse":   []any{entry("")},
		"postToolUse":  []any{entry(afterMatcher)},
		"sessionEnd":   []any{entry("")},
	}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(file); err != nil {
		panic("picket: bug: cannot render the Copilot CLI hooks file: " + err.Error())
	}
	return b.Bytes()
}

// wire is the Agent's Wire: picket's own hooks file, whatever was there
// before (install keeps that as a backup), without timeout(1), which
// install looks up on the PATH it runs with.
func wire(_ []byte, exe string) ([]byte, error) { return Render(exe, ""), nil }

// unwire is the Agent's Unwire: the file goes.
func unwire([]byte, string) ([]byte, error) { return nil, nil }

// copilotHome is Copilot CLI's home: $COPILOT_HOME, else ~/.copilot.
func copilotHome(o hook.InstallOptions) (string, error) {
	if h := o.Getenv("COPILOT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if o.Home == "" {
		return "", errors.New("HOME is not set, so there is no ~/.copilot")
	}
	return filepath.Join(o.Home, ".copilot"), nil
}

// projectRoot is the repository whose .github/hooks Copilot CLI reads:
// the git top level of the current directory, else that directory.
func projectRoot(o hook.InstallOptions) string { return hook.GitTop(o.Dir, o.Env) }

// hooksPath is where install writes for the chosen scope: the person's
// hooks directory by default (run in every folder, trusted or not), the
// repository's .github/hooks with --project.
func hooksPath(o hook.InstallOptions) (string, error) {
	if o.Project {
		return filepath.Join(projectRoot(o), ".github", "hooks", HooksFile), nil
	}
	home, err := copilotHome(o)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "hooks", HooksFile), nil
}

// backupLayout names the backup of a hooks file install replaced.
const backupLayout = "20060102T150405.000Z"

// install is the Agent's Install: picket's hooks file, with o.Exe in its
// commands, where Copilot CLI reads it when a session starts, and a
// record of the directories it made and the file it replaced.
func install(o hook.InstallOptions) error {
	file, err := hooksPath(o)
	if err != nil {
		return err
	}
	bin := hook.TimeoutBin(o.Getenv)
	src := Render(o.Exe, bin)
	if o.Print {
		if _, err := o.Stdout.Write(src); err != nil {
			return err
		}
		o.Info("install would write this to %s", file)
		tellTrust(o, file)
		return nil
	}
	rec := recordOf(o.StateDir, file)
	old, err := os.ReadFile(file)
	switch {
	case err == nil && bytes.Equal(old, src):
		o.Info("install: %s already up to date", file)
		tellTrust(o, file)
		return nil
	case err == nil && !bytes.Contains(old, []byte(" "+strings.Join(HookArgs, " "))) && rec.Backup == "":
		// Not picket's: kept aside, and put back by uninstall.
		bak := file + ".bak-" + time.Now().UTC().Format(backupLayout)
		if err := writeFile(bak, old); err != nil {
			return fmt.Errorf("install copilot: keeping the old %s: %w", file, err)
		}
		rec.Backup = bak
		o.Info("kept the previous %s as %s (uninstall puts it back)", file, bak)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("install copilot: %w", err)
	}
	for _, d := range missingDirs(filepath.Dir(file)) {
		if !slices.Contains(rec.Created, d) {
			rec.Created = append(rec.Created, d)
		}
	}
	if err := writeFile(file, src); err != nil {
		return fmt.Errorf("install copilot: %w", err)
	}
	rec.Exe = o.Exe
	if err := rec.save(o.StateDir, file); err != nil {
		o.Warn("could not record what install made, for uninstall to remove: %v", err)
	}
	o.Info("installed picket's hooks for Copilot CLI in %s", file)
	tellTrust(o, file)
	o.Hint("start Copilot CLI again: it reads its hooks when a session starts")
	if hook.ShellSandboxed(o.GOOS) {
		tellPaths(o)
	}
	if bin == "" {
		o.Warn("no timeout(1) on PATH: a picket that hangs past %d s lets Copilot CLI run the call (install coreutils and run install again)", HookTimeout)
	}
	o.WarnShellSandbox("Copilot CLI's bash commands")
	return nil
}

// uninstall is the Agent's Uninstall: picket's hooks file goes, the file
// install replaced comes back, and the directories install made go when
// nothing else is in them.
func uninstall(o hook.InstallOptions) error {
	file, err := hooksPath(o)
	if err != nil {
		return err
	}
	if o.Print {
		_, err := fmt.Fprintln(o.Stdout, file)
		return err
	}
	rec := recordOf(o.StateDir, file)
	old, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		o.Info("uninstall: %s is not there, nothing to remove", file)
	case err != nil:
		return fmt.Errorf("uninstall copilot: %w", err)
	case !bytes.Contains(old, []byte(" "+strings.Join(HookArgs, " "))):
		o.Info("uninstall: %s runs no picket hook; left as it is", file)
		return nil
	default:
		if err := os.Remove(file); err != nil {
			return fmt.Errorf("uninstall copilot: %w", err)
		}
		o.Info("removed picket's hooks for Copilot CLI (%s)", file)
	}
	if rec.Backup != "" {
		if err := os.Rename(rec.Backup, file); err != nil && !errors.Is(err, os.ErrNotExist) {
			o.Warn("could not put back %s: %v", rec.Backup, err)
		} else if err == nil {
			o.Info("put back the %s install had replaced", file)
		}
	}
	slices.Sort(rec.Created)
	for i := len(rec.Created) - 1; i >= 0; i-- {
		os.Remove(rec.Created[i]) // fails, as it should, when anything is in it
	}
	os.Remove(recordFile(o.StateDir, file))
	return nil
}

// tellTrust says what Copilot CLI needs before it runs the hooks file:
// nothing for the person's own, folder trust for a repository's, and no
// disableAllHooks anywhere.
func tellTrust(o hook.InstallOptions, file string) {
	st := trustFor(o, file)
	if st.Trusted {
		o.Info("%s", st.Detail)
	} else {
		o.Warn("%s", st.Detail)
		o.Hint("%s", st.Fix)
	}
	if o.Project {
		o.Hint("with .github/hooks in this repository, Copilot CLI no longer runs the hooks of its .claude/settings.json (picket install claude) here; and the file names this machine's picket, %s: where a checkout has none there, Copilot CLI denies every tool call", o.Exe)
	}
}

// tellPaths says what Copilot CLI's own path check asks of the wrapped
// shell commands: each names picket's executable, outside the session's
// directory.
func tellPaths(o hook.InstallOptions) {
	dir := filepath.Dir(o.Exe)
	o.Hint("every bash command now starts with %s, which Copilot CLI asks about once a session (answer \"Yes, and add these directories to the allowed list\"); start it with --add-dir %s to allow it up front (copilot -p needs that, or --allow-all-paths)",
		o.Exe, hook.ShellQuote(dir))
}

// record is what install keeps in picket's state dir about one hooks
// file: the picket its commands run, the directories it made, the file
// it replaced.
type record struct {
	Exe     string   `json:"exe,omitempty"`
	Created []string `json:"created,omitempty"`
	Backup  string   `json:"backup,omitempty"`
}

func recordFile(stateDir, file string) string {
	return hook.InstallRecordPath(stateDir, "copilot", file)
}

func recordOf(stateDir, file string) record {
	var r record
	if b, err := os.ReadFile(recordFile(stateDir, file)); err == nil {
		json.Unmarshal(b, &r)
	}
	return r
}

func (r record) save(stateDir, file string) error {
	b, _ := json.Marshal(r)
	f := recordFile(stateDir, file)
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	return os.WriteFile(f, b, 0o600)
}

// missingDirs are dir and the directories above it that do not exist
// yet: what writing into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append(out, d)
	}
	return out
}

// writeFile writes data with [hook.WriteFileAtomic], so Copilot CLI never
// reads half of it.
func writeFile(file string, data []byte) error {
	if err := hook.WriteFileAtomic(file, data, 0o644); err != nil {
		return fmt.Errorf("failed to write %s: %w", file, err)
	}
	return nil
}

// installHelp is picket install copilot --help.
const installHelp = `Usage:
  picket install copilot [--user | --project] [--print] [--exe P]
  picket uninstall copilot [--user | --project] [--print] [--exe P]

Writes picket's hooks file for GitHub Copilot CLI, picket.json, with this
picket's absolute path in its commands: picket judges every file tool
call (view, create, edit, apply_patch, grep, rg, glob) and runs every bash
command under picket run, in its shell sandbox. Copilot CLI reads hooks
when a session starts. Uninstall removes the file again (and puts back a
file install replaced). Run it yourself: the agent may never write these
files (they are mandatory write denies).

  --user     $COPILOT_HOME/hooks/picket.json, else ~/.copilot/hooks/picket.json
             (the default): Copilot CLI runs it in every folder, trusted
             or not
  --project  <root>/.github/hooks/picket.json, where root is the git top
             level of the current directory: Copilot CLI runs it only in a
             folder the person trusted, and skips it without a word
             otherwise (install says how to trust it; it never does)
  --print    install: print the file to stdout, and where it would go;
             uninstall: print the file it would remove; write nothing
  --exe P    picket executable the hooks run (default: this one)
`
