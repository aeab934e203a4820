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
// # Merging
//
// [Load] merges a chain base first: lists are appended without duplicates
// (a child cannot remove an inherited entry), booleans are OR'd, scalars
// take the child's value when it sets one. picket.caseInsensitive is a
// boolean whose "auto" means "probe the workspace's filesystem": true in any
// file wins, "auto" in any file (or in none) contributes the probe, false
// holds only when every file that sets it says false.
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
// # Embedding
//
// Decide, Compile and the types here do not depend on any terminal, audit or
// UI package, so multi-tenant servers can embed them. What to know when
// doing so:
//
//   - Filesystem: [Canonicalize] and [Check] resolve paths in the calling
//     process's mount namespace with its credentials; [Compile] and the
//     first [Decide] that needs a rule list lstat that list's literal
//     directories once; [Load] reads policy files. [Decide] on a built
//     Policy reads nothing else. Policies and sessions share nothing.
//   - Mandatory denies: a [Spec] holds only what it is given. Build its
//     Mandatory with [MandatoryRules] (as [Load] does), or .git/hooks,
//     fence.jsonc and agent settings stay writable.
//   - Env: [Load] needs an absolute Cwd and a Home; [EnvFromOS] fills what
//     the process's own environment says (its HOME, its executable), which
//     is the server's, not a tenant's: build a tenant's Env yourself.
//   - extends: [Load] follows a policy's "extends" to any file the process
//     can read, another tenant's included. Load tenants' policies with
//     [Env.ConfigFile] set, from files you control, or check the chain
//     ([Loaded.Chain]) before use.
//   - Cost: literal directories, "**/name" and "**/*.ext" rules and the
//     blocklist's plain names and extensions are looked up in an index, at
//     a cost that does not grow with their number; every other glob is
//     tried in turn. Globs with two or more stars are matched in time
//     linear in the path times the pattern's length: a tenant's policy of
//     thousand-character patterns costs accordingly, so bound what you
//     accept.
package decide
