// Package sandbox runs a shell command under the same policy that
// [decide.Check] applies to the agent's file tools, enforced by the kernel:
// bubblewrap namespaces and mounts, with Landlock as a second, independent
// layer for writes.
//
// [NewPlan] turns a resolved policy into a [Plan] (plain values: what is
// visible, hidden, writable and protected), expanding glob patterns against
// the filesystem once, when the sandbox starts. [Plan.Args] turns a plan
// into bubblewrap arguments without touching anything. [Run] runs them.
//
// # What it guarantees
//
//   - Reads: denyRead and picket.blocklist matches, and what
//     picket.permissions keep from being read (none, view), are hidden (an empty
//     directory or an empty file nobody may open, mounted over them); under
//     defaultDenyRead only allowRead, allowWrite, the workspace and (unless
//     strictDenyRead) the system locations [decide.SystemReadRules] names
//     are mounted at all.
//   - Writes: only allowWrite, the workspace (workspace-write mode) and a
//     private /tmp are writable; denyWrite matches and every mandatory deny
//     are mounted read-only on top. A mandatory path that does not exist yet
//     gets an empty read-only directory as a placeholder, so it cannot be
//     created. Directories that hold protected paths are mount points, so
//     they cannot be renamed away and recreated.
//   - Landlock, when the kernel has it, limits writes to the writable set
//     again, and scopes abstract unix sockets to the sandbox (signals are
//     kept in by the PID namespace).
//   - The command has no capabilities, its own PID, IPC, UTS, cgroup, user
//     and network namespaces, a fresh /proc, a minimal /dev and a new
//     session (no TIOCSTI injection into the caller's terminal). Its
//     network namespace has loopback only: with a network section in
//     force, the sandbox's first process opens the filtering proxy's ports
//     there ([Plan.Listen]) and hands them to picket before the command
//     starts; picket serves them outside (package egress/proxy). Without
//     one the command has no network at all.
//   - A workspace below /tmp or /run (or reached through a symlink that
//     leads there) is bound from the host over the private directory
//     ([Plan.Through]); the rest of /tmp and /run stays private.
//   - Unix sockets: /run and /var/run are empty, /tmp is private, sockets
//     found in the workspace's and home's walk outside the workspace are
//     covered, and only network.allowUnixSockets are bound through.
//
// # What it does not stop
//
//   - Files created after the sandbox starts are judged by the mounts of
//     their directory only: a new file that only a glob names (a "*.pem"
//     written later) is protected by the file tools, not by this layer.
//     [FileToolsOnly] lists such rules for picket lint.
//   - Glob patterns are expanded over the workspace (whole, up to 4,000,000
//     entries), home and the literal allowRead and allowWrite directories
//     (whole within [DefaultWalkBudget]; what is left is hidden until a
//     later walk reads it, fail closed), and other directories anchored
//     patterns name up to an entry bound ([Budget]); matches past that
//     bound, and below symlinked directories, are not covered.
//     [Plan.Expansion] says what was hidden or cut short. Between
//     commands a keeper process follows the walk with inotify (see
//     keeper.go); where inotify cannot be trusted it stats instead.
//   - Network: an allowed host receives whatever the command sends it
//     (package egress/proxy filters by name and address, not content); a
//     program that ignores the proxy variables gets no network, and UDP
//     (DNS included) never leaves the sandbox.
//   - Path sockets outside /run, /var/run, /tmp, the workspace and home stay
//     reachable unless the kernel has Landlock ABI 9 (connect(2) on path
//     sockets).
//   - picket.writeGuards, and the writes picket.permissions deny, are
//     denied by the file tools only.
//   - Only Linux: on other systems [Run] returns an error naming the
//     platform.
package sandbox
