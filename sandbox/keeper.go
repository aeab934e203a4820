package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/picketdev/picket/decide"
)

// A keeper is a picket process that keeps the walks of one state dir up
// to date between commands (a walk per policy and workspace), so that a
// command does not stat every directory again.
//
// Why it exists: a command must see every change made since the last one,
// and the only way to learn that without a process that stays is a stat
// of every directory the walk read. Measured on the benchmark's machine
// (sandbox/bench: a home of 375,000 entries in 34,000 directories and a
// workspace of 100,000 files; 2 cores), that stat pass alone took 15-60
// ms of CPU per 10,000 directories, and a warm picket run -- true 0.4-1.5 s
// against 10-40 ms for a hand-written bubblewrap: 37x, where the target is
// 4x. The keeper learns of changes from inotify instead, and answers a
// command with the walk's mounts over a unix socket. What would retire
// it: a kernel interface that says which directories of a tree changed
// since a point in time, without a process that stays (fanotify's
// filesystem marks need CAP_SYS_ADMIN).
//
// How it stays right:
//
//   - Every directory it reads is watched before it is read, so a change
//     after the read is an inotify event; events are queued by the kernel
//     within the system call that made the change, and the keeper reads
//     the whole queue before it answers. A directory that got an event is
//     read again; a subdirectory found with another inode than recorded
//     is read whole, as new.
//   - Directories it could not watch (the watch limit, no permission) are
//     stat'ed on every request, as without a keeper. A lost event (queue
//     overflow) or a change to the mount table (a filesystem mounted over
//     a walked directory sends no event) makes it stat every directory
//     on the next request.
//   - Directories on filesystems whose changes inotify may not see
//     (network and FUSE filesystems) are stat'ed on every request.
//   - It answers only processes in its own PID namespace: a sandboxed
//     command (in another one) is refused.
//   - It learns a walk from the one kept on disk the first time a command
//     asks for it, and stats each directory after watching it; it writes
//     the walk back as it changes, for the command that finds no keeper.
//     Walks share one inotify instance and one watch per directory (a
//     keeper per walk held the kernel's per-user watch limit, 192,530
//     here, several times over for one home). It forgets a walk nobody
//     asked for in 10 minutes, leaves with the last, and at once when its
//     socket is gone (its state dir removed).
//
// PICKET_WALK_KEEPER=off runs without one (every command then stats each
// directory).

// KeeperEnv set to "off" makes picket run walk by itself, with no keeper.
const KeeperEnv = "PICKET_WALK_KEEPER"

// KeeperExec is the hidden flag of "picket run" that starts a keeper:
// picket run --walk-keeper STATEDIR.
const KeeperExec = "--walk-keeper"

// The keeper's socket and lock in the state dir.
const (
	keeperSock = "walk.sock"
	keeperLock = "walk.lock"
)

// keeperIdle is how long a keeper waits for a request before it leaves.
const keeperIdle = 10 * time.Minute

// keeperWait is how long a command waits for a keeper's answer before it
// walks by itself.
const keeperWait = 30 * time.Second

// walkSpec is what a walk depends on, kept beside it so that a keeper
// walks as the command would.
type walkSpec struct {
	Root, Home      string
	CaseInsensitive bool
	AllowRead       []decide.Rule
	DenyRead        []decide.Rule
	AllowWrite      []decide.Rule
	DenyWrite       []decide.Rule
	Mandatory       []decide.Rule
	Blocklist       []decide.Rule
	Permissions     []decide.Permission
	SystemEntries   int
	Entries         int
}

func specOf(s decide.Spec, root, home string, set decide.SandboxSettings) walkSpec {
	return walkSpec{Root: root, Home: home, CaseInsensitive: s.CaseInsensitive, AllowRead: s.AllowRead, DenyRead: s.DenyRead,
		AllowWrite: s.AllowWrite, DenyWrite: s.DenyWrite, Mandatory: s.Mandatory, Blocklist: s.Blocklist, Permissions: s.Permissions,
		SystemEntries: set.ExpandMaxEntries, Entries: set.ExpandMaxEntries}
}

func (w walkSpec) spec() decide.Spec {
	return decide.Spec{Root: w.Root, Home: w.Home, CaseInsensitive: w.CaseInsensitive, AllowRead: w.AllowRead, DenyRead: w.DenyRead,
		AllowWrite: w.AllowWrite, DenyWrite: w.DenyWrite, Mandatory: w.Mandatory, Blocklist: w.Blocklist, Permissions: w.Permissions}
}

func (w walkSpec) limits(budget time.Duration) limits {
	lim := limits{entries: w.Entries, system: w.SystemEntries}
	if lim.system <= 0 {
		lim.system = DefaultSystemEntries
	}
	if budget > 0 {
		lim.deadline = time.Now().Add(budget)
	}
	return lim
}

func specFile(dir, key string) string { return filepath.Join(dir, "walk-"+key+".spec") }

// writeSpec keeps the spec of the walk under key, once.
func writeSpec(dir, key string, w walkSpec) error {
	file := specFile(dir, key)
	if _, err := os.Stat(file); err == nil {
		return nil
	}
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d", file, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// readSpec reads the spec kept under key and checks that it is the one
// the key names.
func readSpec(dir, key string) (walkSpec, walkSetup, error) {
	var w walkSpec
	b, err := os.ReadFile(specFile(dir, key))
	if err != nil {
		return w, walkSetup{}, err
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return w, walkSetup{}, err
	}
	ws, err := setUp(w.spec(), w.Root, w.Home)
	if err != nil {
		return w, walkSetup{}, err
	}
	if ws.key != key {
		return w, walkSetup{}, fmt.Errorf("the kept spec is not the walk %s", key)
	}
	return w, ws, nil
}

// keeperProto names the keeper's protocol and way of walking: a keeper
// of another picket build leaves when asked, so a new one starts.
const keeperProto = walkLogic

// keeperRequest is one question to a keeper, one JSON line.
type keeperRequest struct {
	Proto int    `json:"proto"`
	Key   string `json:"key"`
	// Op is "plan" (the walk's mounts now) or "changed" (the directories
	// changed since generation Since, below Under).
	Op     string        `json:"op"`
	Links  bool          `json:"links,omitempty"` // the plan needs the symlinks (an empty root)
	Budget time.Duration `json:"budget,omitempty"`
	ID     string        `json:"id,omitempty"` // op "changed": the keeper that answered the plan
	Since  uint64        `json:"since,omitempty"`
	Under  []string      `json:"under,omitempty"`
}

// keeperReply is a keeper's answer, one JSON line.
type keeperReply struct {
	Err      string    `json:"err,omitempty"`
	ID       string    `json:"id"`
	Gen      uint64    `json:"gen"`
	Hide     []Hidden  `json:"hide,omitempty"`
	Protect  []string  `json:"protect,omitempty"`
	Write    []string  `json:"write,omitempty"`
	Read     []string  `json:"read,omitempty"`
	Symlinks []Link    `json:"symlinks,omitempty"`
	Stats    Expansion `json:"stats"`
	Told     bool      `json:"told,omitempty"`
	// Changed are the directories an op "changed" asks for, with the
	// subdirectories the walk knows in each.
	Changed []changedDir `json:"changed,omitempty"`
}

// changedDir is a directory that changed, as the quarantine needs it.
type changedDir struct {
	Path string   `json:"p"`
	Ino  uint64   `json:"i,omitempty"`
	Git  bool     `json:"g,omitempty"`
	Kids []string `json:"k,omitempty"`
}

// keeperRef is how a plan reaches the keeper that made it.
type keeperRef struct {
	dir, key, id string
	gen          uint64
}

// fromReply is the walk's part of an expansion, as a keeper answered it.
func fromReply(r keeperReply) expansion {
	return expansion{hide: r.Hide, protect: r.Protect, write: r.Write, read: r.Read, symlinks: r.Symlinks, stats: r.Stats}
}

// changedStamps are a keeper's changed directories as the quarantine
// takes them.
func changedStamps(cs []changedDir) []dirStamp {
	out := make([]dirStamp, len(cs))
	for i, c := range cs {
		out[i] = dirStamp{Path: c.Path, Ino: c.Ino, Git: c.Git, Kids: c.Kids}
	}
	return out
}
