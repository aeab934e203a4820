package opencode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/picketdev/picket/hook"
)

// opencode skips a plugin that fails to load, or whose set-up throws,
// without a word, and `opencode run --pure` loads none. What proves that
// opencode runs picket's plugin is the plugin's announcement to picket
// serve when it loads (picket's state dir) beside opencode's own log of
// its runs (its data dir): a run after the last announcement did not load
// it.

// Run is one start of opencode, as its log records it.
type Run struct {
	Time      time.Time
	Directory string // the session's directory
	// PluginError is the log's "failed to load plugin" line for picket's
	// plugin in this run, if any.
	PluginError string
}

// LogFile is opencode's log in its data dir (dataHome is $XDG_DATA_HOME,
// or ~/.local/share).
func LogFile(dataHome string) string {
	return filepath.Join(dataHome, "opencode", "log", "opencode.log")
}

// maxLogTail is how much of the end of opencode's log LastRun reads.
const maxLogTail = 4 << 20

var (
	logInstance = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^timestamp=(\S+) .*message="creating instance" directory=(.*)$`)
	})
	logFailed = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`message="failed to load plugin" path=(\S+) error=(.*)$`)
	})
)

// LastRun is opencode's last start, from the end of its log: the last
// instance it created, and whether picket's plugin failed to load in it.
// An error wrapping fs.ErrNotExist means opencode never ran here.
func LastRun(dataHome string) (Run, error) {
	f, err := os.Open(LogFile(dataHome))
	if err != nil {
		return Run{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxLogTail {
		f.Seek(fi.Size()-maxLogTail, io.SeekStart)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxLogTail))
	if err != nil {
		return Run{}, err
	}
	var run Run
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if m := logInstance().FindStringSubmatch(line); m != nil {
			t, err := time.Parse(time.RFC3339Nano, m[1])
			if err != nil {
				continue
			}
			run, found = Run{Time: t, Directory: strings.Trim(m[2], `"`)}, true
		} else if m := logFailed().FindStringSubmatch(line); m != nil && found && strings.HasSuffix(m[1], "/"+File) {
			run.PluginError = strings.Trim(m[2], `"`)
		}
	}
	if !found {
		return Run{}, fmt.Errorf("%s records no run: %w", LogFile(dataHome), fs.ErrNotExist)
	}
	return run, nil
}

// LastLoad is the last time opencode loaded picket's plugin, as the plugin
// announced it; an error wrapping fs.ErrNotExist when it never did.
func LastLoad(stateDir string) (hook.Announcement, error) {
	return hook.LastAnnouncement(stateDir, Name)
}

// Loaded is what picket doctor says of opencode: whether it loaded
// picket's plugin the last time it ran, and what to do if not.
func Loaded(stateDir, dataHome string) hook.TrustState {
	load, lerr := LastLoad(stateDir)
	run, rerr := LastRun(dataHome)
	switch {
	case lerr != nil && !errors.Is(lerr, fs.ErrNotExist):
		return hook.TrustState{Detail: fmt.Sprintf("cannot read the plugin's last announcement: %v", lerr), Fix: "check picket's state dir"}
	case rerr != nil && errors.Is(rerr, fs.ErrNotExist) && lerr != nil:
		return hook.TrustState{Detail: "opencode has not run since picket's plugin was installed (no run in " + LogFile(dataHome) + ")",
			Fix: "start opencode once, then run 'picket doctor' again"}
	case rerr != nil && !errors.Is(rerr, fs.ErrNotExist):
		return hook.TrustState{Detail: fmt.Sprintf("cannot read opencode's log: %v", rerr), Fix: "check " + LogFile(dataHome)}
	case run.PluginError != "":
		return hook.TrustState{Detail: fmt.Sprintf("opencode failed to load picket's plugin at %s in %s: %s", stamp(run.Time), run.Directory, run.PluginError),
			Fix: "run 'picket install opencode' again; opencode runs unfenced until it loads the plugin"}
	case lerr != nil:
		return hook.TrustState{Detail: fmt.Sprintf("opencode ran at %s in %s and never loaded picket's plugin", stamp(run.Time), run.Directory),
			Fix: "run 'picket install opencode' (or --project in that project), and do not run opencode with --pure"}
	case rerr == nil && load.Time.Before(run.Time):
		return hook.TrustState{Detail: fmt.Sprintf("opencode's last run (%s in %s) did not load picket's plugin; it last did at %s in %s",
			stamp(run.Time), run.Directory, stamp(load.Time), load.Directory),
			Fix: "install the plugin where that run loads it ('picket install opencode', or --project there); 'opencode run --pure' loads no plugin"}
	}
	return hook.TrustState{Trusted: true, Detail: fmt.Sprintf("opencode loaded picket's plugin %s (version %s) at %s in %s, talking to picket %s",
		load.Plugin, load.Version, stamp(load.Time), load.Directory, load.Picket)}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// dataHome is $XDG_DATA_HOME when absolute, else ~/.local/share.
func dataHome(o hook.InstallOptions) string {
	if x := o.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return x
	}
	return filepath.Join(o.Home, ".local", "share")
}

// trust is the Agent's Trust: opencode runs picket's plugin when the file
// is where it loads plugins for the project (the user's config dir, or a
// .opencode between the project's directory and its git top level) and
// the last run loaded it.
func trust(o hook.InstallOptions) hook.TrustState {
	if len(installed(o)) == 0 {
		return hook.TrustState{Detail: "picket's plugin is in none of the directories opencode loads plugins from for " + o.Dir,
			Fix: "run 'picket install opencode' (for you) or 'picket install opencode --project'"}
	}
	return Loaded(o.StateDir, dataHome(o))
}

// installed lists picket's plugin files opencode would load for o.Dir.
func installed(o hook.InstallOptions) []string {
	var dirs []string
	if home, err := configHome(o); err == nil {
		dirs = append(dirs, Dir(home, "", true))
	}
	top := hook.GitTop(o.Dir, o.Env)
	for d := filepath.Clean(o.Dir); ; d = filepath.Dir(d) {
		dirs = append(dirs, Dir("", d, false))
		if d == top || d == filepath.Dir(d) {
			break
		}
	}
	var out []string
	for _, d := range dirs {
		f := filepath.Join(d, File)
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("picket serve")) {
			out = append(out, f)
		}
	}
	return out
}
