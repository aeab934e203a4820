package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The quarantine moves aside the policy files a command made, but only
// where its walk looked, and only once the command has ended. As a second
// line, every sandboxed command leaves its window [start, end] in picket's
// state dir (which sandboxes cannot write), and picket will not take a
// policy from a file that changed inside one (see [ChangedDuringSandbox]):
// a file made deeper than the walk went, or in a directory it never
// looked at, or read while the command still runs, is refused all the
// same. A person who wrote such a file touches it once no command runs.

// windowsKeep is how long a window is remembered.
const windowsKeep = 30 * 24 * time.Hour

// windowsMax is the size past which the log drops forgotten windows.
const windowsMax = 1 << 20

func windowsFile(stateDir string) string { return filepath.Join(stateDir, "sandbox", "windows") }

// recordWindow appends one finished window.
func recordWindow(stateDir string, start, end time.Time) error {
	if stateDir == "" {
		return nil
	}
	name := windowsFile(stateDir)
	size, err := appendLine(name, fmt.Sprintf("%d %d", start.UnixNano(), end.UnixNano()))
	if err == nil && size > windowsMax {
		pruneWindows(name)
	}
	return err
}

// appendLine appends one line to a file of picket's state with a single
// write (O_APPEND: lines from concurrent pickets never mix), and returns
// the file's size after it.
func appendLine(name, line string) (size int64, err error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	_, err = f.WriteString(line + "\n")
	if fi, serr := f.Stat(); serr == nil {
		size = fi.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return size, err
}

// pruneWindows drops the windows that ended before windowsKeep.
func pruneWindows(name string) {
	b, err := os.ReadFile(name)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-windowsKeep).UnixNano()
	var keep strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if _, e, ok := parseWindow(line); ok && e >= cutoff {
			keep.WriteString(line + "\n")
		}
	}
	tmp := fmt.Sprintf("%s.%d", name, os.Getpid())
	if os.WriteFile(tmp, []byte(keep.String()), 0o600) == nil {
		os.Rename(tmp, name)
	}
}

func trustedFile(stateDir string) string { return filepath.Join(stateDir, "sandbox", "trusted") }

// TrustWrite records that picket itself just wrote file (a persisted grant,
// picket init), so that a write made while a command runs is not taken
// for the command's: [ChangedDuringSandbox] passes a file whose ctime is
// still the one recorded. It also remembers files found outside every
// window. The list is read whole on every policy load; it grows by a line
// per policy edit.
func TrustWrite(stateDir, file string) error {
	fi, err := os.Stat(file)
	if err != nil || stateDir == "" {
		return err
	}
	_, err = appendLine(trustedFile(stateDir), trustedLine(file, ctime(fi)))
	return err
}

// trustedLine is how the trusted list spells one file at one ctime.
func trustedLine(file string, ct time.Time) string {
	return fmt.Sprintf("%d %s", ct.UnixNano(), strconv.Quote(file))
}

// trusted reports whether picket recorded writing file with this ctime.
func trusted(stateDir, file string, ct time.Time) bool {
	b, err := os.ReadFile(trustedFile(stateDir))
	if err != nil {
		return false
	}
	want := trustedLine(file, ct)
	for _, line := range strings.Split(string(b), "\n") {
		if line == want {
			return true
		}
	}
	return false
}

// ChangedDuringSandbox reports whether file, or the symlink that names it,
// last changed while a sandboxed command ran: its ctime falls inside a
// recorded window, or after the start of one still open (a command that
// runs, or whose picket died before its check was done). A write picket
// recorded as its own (see [TrustWrite]) does not count.
func ChangedDuringSandbox(stateDir, file string) bool {
	var times []time.Time
	for _, stat := range []func(string) (os.FileInfo, error){os.Lstat, os.Stat} {
		if fi, err := stat(file); err == nil {
			times = append(times, ctime(fi))
		}
	}
	if len(times) == 0 || stateDir == "" {
		return false
	}
	if len(times) == 2 && times[0].Equal(times[1]) && trusted(stateDir, file, times[1]) {
		return false // not a symlink, and written by picket
	}
	in := func(s, e int64) bool {
		for _, t := range times {
			if n := t.UnixNano(); n > s && (e == 0 || n <= e) {
				return true
			}
		}
		return false
	}
	if ents, err := os.ReadDir(pendingDir(stateDir)); err == nil {
		for _, e := range ents {
			var pd pending
			if b, err := os.ReadFile(filepath.Join(pendingDir(stateDir), e.Name())); err == nil && json.Unmarshal(b, &pd) == nil && in(pd.Start, 0) {
				return true
			}
		}
	}
	if f, err := os.Open(windowsFile(stateDir)); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if s, e, ok := parseWindow(sc.Text()); ok && in(s, e) {
				return true
			}
		}
	}
	// No window can ever hold this ctime now: later ones start later.
	// Remember it, so the next load reads one short file, not the log.
	if len(times) == 2 && times[0].Equal(times[1]) {
		TrustWrite(stateDir, file)
	}
	return false
}

// parseWindow reads one "start end" line.
func parseWindow(line string) (s, e int64, ok bool) {
	a, b, found := strings.Cut(line, " ")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseInt(a, 10, 64)
	e, err2 := strconv.ParseInt(b, 10, 64)
	return s, e, err1 == nil && err2 == nil
}
