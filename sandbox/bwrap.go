package sandbox

import (
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/sandbox/first"
)

// InfoFD is the descriptor bubblewrap writes the sandbox's status to
// (--json-status-fd): the sandbox's PID once it is made, and the
// command's exit code only if the sandbox's setup finished and the command
// started, which is how [Run] tells a setup that failed from a command
// that failed. [Run] passes a pipe there.
const InfoFD = 3

// HandoffFD is the descriptor the first process inside the sandbox hands
// the [Plan.Listen] listeners to picket over; [Run] passes one end of a
// socket pair there.
const HandoffFD = first.HandoffFD

// StderrFD is where the first process inside the sandbox finds the
// command's stderr, which it puts in place of its own before anything
// runs: bubblewrap's stderr is a pipe to picket, so a message about a
// setup that failed and is then tried again does not reach the command's
// reader (see [RunReplanned]).
const StderrFD = first.StderrFD

// LandlockExec is the hidden flag of "picket run" that marks the first
// process inside the sandbox (package first): it applies [Plan.Landlock]
// and starts the command.
const LandlockExec = first.Exec

// LandlockABI returns the kernel's Landlock ABI version, 0 when Landlock
// is unavailable (and on every system but Linux).
func LandlockABI() int { return first.ABI() }

// op is one mount, placed by path: a directory's mounts come before those
// below it, and at one path the ranks order them.
type op struct {
	path string
	rank int
	args []string
}

// The ranks of mounts at one path, bottom first.
const (
	rankSkeleton = iota
	rankSystem
	rankRead
	rankWrite
	rankStructure
	rankProtect
	rankHide
	rankSocket
	rankExe
)

// bwrapArgs returns the bubblewrap arguments that run cmd under p. It is
// pure: the same plan and command always give the same arguments, and
// nothing is read or written.
func bwrapArgs(p Plan, cmd []string) []string {
	args := []string{
		"--die-with-parent", "--new-session",
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--unshare-net", "--cap-drop", "ALL", "--as-pid-1", "--json-status-fd", "3",
	}
	switch p.Root {
	case RootReadOnly:
		args = append(args, "--ro-bind", "/", "/")
	case RootWritable:
		args = append(args, "--bind", "/", "/")
	}
	for _, o := range p.ops() {
		args = append(args, o.args...)
	}
	if p.Root == RootEmpty {
		args = append(args, "--chmod", "0111", "/", "--remount-ro", "/")
	}
	if p.Cwd != "" {
		args = append(args, "--chdir", p.Cwd)
	}
	args = append(args, "--", p.Exe, "run", LandlockExec)
	for _, w := range p.Landlock.Write {
		args = append(args, "--write", w)
	}
	for _, s := range p.Landlock.Sockets {
		args = append(args, "--socket", s)
	}
	for _, l := range p.Listen {
		args = append(args, "--listen", l)
	}
	args = append(args, "--")
	return append(args, cmd...)
}

// ops lists every mount in the order bubblewrap must make them.
func (p Plan) ops() []op {
	var ops []op
	add := func(path string, rank int, args ...string) {
		ops = append(ops, op{path, rank, args})
	}
	add("/dev", rankSystem, "--dev", "/dev")
	add("/proc", rankSystem, "--proc", "/proc")
	add("/tmp", rankSystem, "--tmpfs", "/tmp")
	for _, d := range p.SocketDirs {
		add(d, rankSystem, "--tmpfs", d)
	}
	mounted := append(append([]string{}, p.Read...), p.Write...)
	if p.Root == RootEmpty {
		for _, d := range p.skeleton() {
			add(d, rankSkeleton, "--perms", "0111", "--dir", d)
		}
		for _, l := range p.Links {
			if !under(l.Path, mounted) {
				add(l.Path, rankSkeleton, "--symlink", l.Target, l.Path)
			}
		}
	}
	for _, r := range p.Read {
		// Gone since the walk: a plan made now would not show it.
		add(r, rankRead, "--ro-bind-try", r, r)
	}
	for _, t := range p.Through {
		// Bound over the private /tmp or /run as the root showed it:
		// writable binds and an empty root's reads bind it already.
		switch {
		case under(t, mounted):
		case p.Root == RootReadOnly:
			add(t, rankRead, "--ro-bind", t, t)
		case p.Root == RootWritable:
			add(t, rankWrite, "--bind", t, t)
		}
	}
	for _, w := range p.Write {
		add(w, rankWrite, "--bind", w, w)
	}
	for _, d := range p.TmpDirs {
		add(d, rankWrite, "--perms", "0700", "--dir", d)
	}
	for _, w := range p.TmpBinds {
		add(w, rankWrite, "--bind", w, w)
	}
	for _, s := range p.Structure {
		// Bound strictly: skipped when gone, it could be back by the time
		// a protected path below it is bound, and then be renamed away
		// with it. Gone, it fails the setup, and the caller plans again.
		add(s, rankStructure, "--bind", s, s)
	}
	hiddenFile := map[string]bool{}
	for _, h := range p.Hide {
		hiddenFile[h.Path] = !h.Dir
	}
	for _, q := range p.Protect {
		if hiddenFile[q] {
			// The empty file bound over it is read-only: a read-only bind
			// beneath it would change nothing and cost bubblewrap a mount
			// (it reads /proc/self/mountinfo again for every bind).
			continue
		}
		add(q, rankProtect, protectBind(q, p.named), q, q)
	}
	for _, h := range p.Hide {
		if h.Dir {
			add(h.Path, rankHide, "--perms", "0000", "--tmpfs", h.Path)
		} else {
			add(h.Path, rankHide, "--ro-bind", p.EmptyFile, h.Path)
		}
	}
	for _, s := range p.Sockets {
		// Gone since the walk: a plan made now would not bind it.
		add(s, rankSocket, "--ro-bind-try", s, s)
	}
	if p.Exe != "" {
		add(p.Exe, rankExe, "--ro-bind", p.Exe, p.Exe)
	}
	slices.SortStableFunc(ops, func(a, b op) int {
		if c := comparePaths(a.path, b.path); c != 0 {
			return c
		}
		return a.rank - b.rank
	})
	return ops
}

// protectBind is the bind that keeps q read-only. A path the walk found
// (a fence.json below a writable tree) that is gone when bubblewrap binds
// it is skipped: that is the plan a walk made a moment later would give,
// and no weaker, as a file the command then creates there is one it could
// have created under that later plan too, and [Run] moves it aside
// afterwards all the same. A path a rule names literally is bound
// strictly: a plan made now would put a placeholder there, so its absence
// fails the setup and [Run]'s caller plans again.
func protectBind(q string, named []string) string {
	if slices.Contains(named, q) {
		return "--ro-bind"
	}
	return "--ro-bind-try"
}

// comparePaths orders paths so that a directory comes before everything
// below it.
func comparePaths(a, b string) int {
	return strings.Compare(strings.ReplaceAll(a, "/", "\x00"), strings.ReplaceAll(b, "/", "\x00"))
}

// skeleton returns the directories an empty root needs so that every
// mount and link has a parent: search-only (mode 0111), so they can be
// passed through but not listed, as check denies listing them.
func (p Plan) skeleton() []string {
	mounted := append(append([]string{}, p.Read...), p.Write...)
	var targets []string
	targets = append(targets, p.Read...)
	targets = append(targets, p.Write...)
	targets = append(targets, p.Exe)
	targets = append(targets, p.Sockets...)
	for _, l := range p.Links {
		targets = append(targets, l.Path)
	}
	if p.Cwd != "" {
		targets = append(targets, p.Cwd)
	}
	var out []string
	if p.Cwd != "" && !under(p.Cwd, mounted) {
		out = append(out, p.Cwd) // an unreadable workspace: the command still starts there
	}
	for _, t := range targets {
		if t == "" {
			continue
		}
		for d := filepath.Dir(t); d != "/" && d != "."; d = filepath.Dir(d) {
			if !under(d, mounted) && !isUnder(d, "/tmp") && !under(d, p.SocketDirs) {
				out = append(out, d)
			}
		}
	}
	return sortedUnique(out)
}

// RunHidden runs the hidden forms of "picket run" that picket starts itself:
// the first process inside the sandbox ([LandlockExec], which picket's
// command starts before this from an early init, see package first) and
// the walk's keeper ([KeeperExec]). ok is false for any other args.
func RunHidden(args []string, stderr io.Writer) (code int, ok bool) {
	switch {
	case len(args) > 0 && args[0] == LandlockExec:
		return first.Main(args[1:], stderr), true
	case len(args) > 0 && args[0] == KeeperExec:
		return Keep(args[1:], stderr), true
	}
	return 0, false
}
