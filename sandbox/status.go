package sandbox

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Runner is how one sandboxed command is started.
type Runner struct {
	Bwrap    string // bubblewrap's path (see [FindBwrap])
	Env      []string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	StateDir string // picket's state dir: placeholder bookkeeping lives here
	// Quarantined, when set, hears of each policy file the command created
	// and [Run] moved aside (picket audits it).
	Quarantined func(Quarantined)
	// Listeners, when set, gets the [Plan.Listen] listeners once the
	// sandbox has opened them (addrs are those opened, in the plan's
	// order; an IPv6 one the kernel could not open is missing): picket
	// serves them outside the sandbox until [Run] returns. It is called
	// from a goroutine of its own, before or while the command runs.
	Listeners func(addrs []string, files []*os.File)
}

// UnavailableError is a sandbox that cannot be built on this machine:
// nothing ran.
type UnavailableError struct {
	What   string
	Userns bool
	Fix    string // the hint, when it is neither bubblewrap nor user namespaces
}

func (e *UnavailableError) Error() string { return e.What }

// SetupError is a sandbox bubblewrap began but could not finish setting
// up, so the command never started: most often a path the plan mounts
// changed between the walk and the mount (a temp file another program
// removed). Planning again sees the change, so the caller may retry.
type SetupError struct {
	Status  int    // bubblewrap's exit status
	Message []byte // what bubblewrap wrote to stderr
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("bubblewrap could not set the sandbox up (exit status %d): a path it mounts changed while it started (bubblewrap's message above names it)", e.Status)
}

// Hint says how to fix it, or to run unfenced with --unsandboxed.
func (e *UnavailableError) Hint() string {
	return e.HintOr("run with --unsandboxed to accept running unfenced")
}

// HintOr says how to fix it, or else what unfenced says: the way to run
// without the sandbox where --unsandboxed cannot be typed.
func (e *UnavailableError) HintOr(unfenced string) string {
	if e.Fix != "" {
		return e.Fix
	}
	if e.Userns {
		return "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0; on Ubuntu, an AppArmor profile for bwrap), or " + unfenced
	}
	return "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap), or " + unfenced
}

// FindBwrap returns bubblewrap's path in PATH (a list like $PATH), or "".
func FindBwrap(path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		f := filepath.Join(dir, "bwrap")
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return f
		}
	}
	return ""
}

// probeRetries is how often the user-namespace probe runs again after a
// failed run, waiting probePause, then twice that: one failure may be
// transient (clone's EAGAIN, a user-namespace limit briefly reached, a
// bubblewrap killed from outside), and a sidecar that took it for "no
// sandbox here" would leave bash unfenced for its whole session. Where
// user namespaces are off for good, the retries cost two more runs and
// 150 ms, once per probe.
const (
	probeRetries = 2
	probePause   = 50 * time.Millisecond
)

// probeUserNS reports whether run, one user-namespace probe, succeeds
// within 1+probeRetries runs, calling pause before each retry. Only a
// missing bubblewrap is certain at once (the caller does not probe then);
// a failed run is not, so it is tried again before it counts.
func probeUserNS(run func() error, pause func(time.Duration)) bool {
	for i := 0; ; i++ {
		if run() == nil {
			return true
		}
		if i == probeRetries {
			return false
		}
		pause(probePause * time.Duration(i+1))
	}
}

// Supported reports whether picket run can build its sandbox at all on
// the operating system goos (a runtime.GOOS value): on Linux only, for
// now (bubblewrap and Landlock; a Seatbelt backend for macOS is later
// work). It is a plain value, so the decisions made on it (install
// leaving Claude Code's shell prefix out, show saying so) are tested on
// Linux too.
func Supported(goos string) bool { return goos == "linux" }

// ProbeOn is [Probe] as it comes out on the operating system goos (""
// is runtime.GOOS): where the sandbox does not exist, a Status that says
// so, without probing.
func ProbeOn(goos, path, probe string) Status {
	goos = cmp.Or(goos, runtime.GOOS)
	if !Supported(goos) {
		return Status{Unsupported: goos}
	}
	return Probe(path, probe)
}

// Status is what the sandbox can use on this machine.
type Status struct {
	// Unsupported names the operating system when picket's sandbox does
	// not exist for it (see [Supported]); "" on Linux.
	Unsupported string `json:"unsupported,omitempty"`
	Bwrap       string `json:"bwrap"`    // path, "" when missing
	UserNS      bool   `json:"userns"`   // bubblewrap could create a user namespace
	Landlock    int    `json:"landlock"` // Landlock ABI version, 0 when unavailable
}

// Works reports whether picket run can sandbox commands.
func (s Status) Works() bool { return s.Unsupported == "" && s.Bwrap != "" && s.UserNS }

// UnsupportedLine says plainly what a platform without the sandbox means
// for the agent's shell.
func UnsupportedLine(goos string) string {
	return fmt.Sprintf("shell sandbox unavailable: picket's shell sandbox needs Linux and this is %s, so shell commands are not fenced here (the file tools still are)", goos)
}

// String is one line for picket show and status footers.
func (s Status) String() string {
	switch {
	case s.Unsupported != "":
		return UnsupportedLine(s.Unsupported)
	case s.Bwrap == "":
		return "shell sandbox unavailable: bubblewrap is not installed (apt-get install bubblewrap)"
	case !s.UserNS:
		return "shell sandbox unavailable: user namespaces are disabled"
	case s.Landlock == 0:
		return "shell sandbox: bubblewrap (Landlock unavailable: no second layer for writes)"
	}
	return fmt.Sprintf("shell sandbox: bubblewrap + Landlock ABI %d", s.Landlock)
}
