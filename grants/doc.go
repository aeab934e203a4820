// Package grants keeps the answers a person gave at picket's prompt for the
// rest of an agent session: session grants, the per-turn denial count behind
// batch prompts, and recent answers for coalescing identical requests.
//
// A [Grant] is an access ("read", "write", ...) to one exact resolved path;
// there are no globs, so a grant never covers more than the person saw.
//
// # Storage
//
// Each session's state is one JSON file, <Dir>/<session>.json (mode 0600,
// Dir 0700), shared by the many short hook processes of that session. Every
// change takes an exclusive flock(2) on <Dir>/<session>.lock, reads the file,
// and replaces it atomically (write <session>.json.tmp, fsync, rename), so
// concurrent writers lose nothing and readers ([Store.Has], [Store.List],
// [Store.Coalesce]) need no lock: they see the old file or the new one.
//
// Session ids come from agents and are not trusted as file names: an id made
// of [a-z0-9._-] (not starting with a dot) is used as is; any other id
// (slashes, "..", NUL, upper case, which would collide on a case-insensitive
// file system) is stored under "~" plus its lower-case base32 encoding, so no
// id can name a file outside Dir or another session's file. Empty ids and ids
// longer than [MaxSessionID] bytes are rejected.
//
// # Failing closed
//
// A session file that does not decode, or that names another session, is an
// error: [Store.Has] returns false with it, and no method overwrites it; the
// caller denies and may [Store.End] the session. Nothing here ever turns an
// error into an allow.
//
// State another user could have written is not trusted ([ErrUntrusted]): a
// session file is read only when it is a regular file owned by the
// effective uid and not writable by group or others, opened without
// following a symlink or blocking on a FIFO, in a Dir that is not a
// symlink, owned by us and not writable by group or others. Anything else is
// ignored with a warning ([Store.Warn]) and the call is judged as if the
// session held no grant.
//
// # Limits
//
// The lock is advisory and the files belong to the user: any process of that
// user, the agent included, can write a grant into its own session file. The
// package keeps concurrent picket processes consistent; it is not a boundary
// against the user's own processes (the policy file and the state directory
// are for picket's mandatory denies to protect). Prune goes by modification
// time, so a session touched within maxAge survives however old its grants.
package grants
