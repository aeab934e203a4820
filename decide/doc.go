// Package decide answers one question for every caller of picket: may this
// access to this path happen, and if not, which rule says no?
//
// It holds the whole policy core: finding and merging fence.jsonc files
// ([Load]), canonicalizing paths as the kernel resolves them
// ([Canonicalize]), compiling patterns into an index ([Compile]) and the pure
// decision function ([Decide]). [Check] ties them together. The hook, the
// sidecar, the prompts and the shell sandbox all call this package, so a path
// is judged the same way everywhere.
//
// # Layers
//
// A request passes named layers in a fixed order; the first failure wins and
// is named in the [Decision]:
//
//  1. mandatory: writes to policy files, picket's state, agent configuration
//     that runs as code, git hooks and shell start-up files. Never grantable.
//  2. mode: read-only denies every write; full skips the boundary layer.
//  3. boundary: defaultDenyRead and the allowRead/allowWrite lists; a path
//     that cannot be canonicalized is denied here too.
//  4. blocklist: denyRead, denyWrite, picket.blocklist and the
//     picket.permissions levels.
//  5. write-guard: size and extension limits on writes.
//
// # Matching
//
// Deny rules are tested against both spellings of a path (as requested, and
// resolved) and also match when they match any ancestor directory of the
// path, the way hiding a directory in a sandbox hides all it holds. Allow
// rules are tested against the resolved path only, with plain glob meaning: a
// pattern without glob characters covers that path and everything below it,
// and "dir/**" covers dir itself.
//
// # Limits
//
// The decision is about names, not about file contents, and it is made
// before the agent's tool runs: a process that swaps a directory for a
// symlink between the check and the use (a TOCTOU race), or a hard link made
// outside picket's view, is not caught here. The shell sandbox is the layer
// that holds at the kernel.
//
// Decide, Compile and the types here do not depend on any terminal, audit or
// UI package, so multi-tenant servers can embed them.
package decide
