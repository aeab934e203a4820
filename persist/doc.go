// Package persist writes a person's "persist" answer into the project's
// fence policy file: it appends one resolved path to filesystem.allowRead or
// filesystem.allowWrite of <root>/fence.jsonc (else <root>/fence.json), or
// creates <root>/fence.jsonc when neither exists. The entry is the path as
// [decide.ExactPattern] quotes it: a file named "*" is written "[*]", so
// the grant names that path and not its directory, and "/srv/notes.txt"
// "/srv/notes.tx[t]", so that it names nothing below the path either. It never edits the user's
// global config or a fence file in a subdirectory: [Target] only ever names a
// file directly in the project root.
//
// # Guarantees
//
//   - The edit is made on the JWCC syntax tree ([github.com/tailscale/hujson]),
//     not by re-encoding: every comment, blank line, key order and the file's
//     indentation survive, and bytes outside the patched member are unchanged.
//     A path that is already listed is not added twice ([Result.AlreadyPresent]).
//   - Nothing is written unless the edited document parses and passes
//     [Options.Validate] (picket's schema check, wired in by the caller),
//     and nothing anywhere but [Options.File], the file the person
//     confirmed: when [Target] names another by the time of the write,
//     Grant returns an error wrapping [ErrChanged].
//   - The write is atomic: <file>.tmp in the same directory, fsync, rename (or
//     a no-clobber link for a new file), fsync of the directory. A writer
//     killed at any point leaves either the old file or the new one, never a
//     mix; a stale <file>.tmp is removed by the next writer.
//   - The previous content is kept as <file>.bak.<UTC timestamp>, with a
//     timestamp that sorts by name; only the newest three are kept.
//   - Concurrent [Grant] calls, from goroutines or from separate processes,
//     lose nothing: each holds an exclusive flock(2) on the directory of the
//     file it writes (the project root, or where a symlinked policy file
//     leads, so projects sharing one file share the lock) for its whole
//     read-edit-write, and names the target again under it. Locking the
//     directory rather than a <file>.lock beside it leaves no lock file in
//     the project for a person to commit or delete (the rename replaces the
//     file's inode, so the file itself cannot carry the lock).
//   - An edit by something that does not take that lock (an editor, git) is
//     detected: when the file's size, mtime or inode moved between the read
//     and the rename, Grant returns an error wrapping [ErrChanged] and writes
//     nothing; the caller asks the person to retry.
//
// # Refusals
//
// Grant refuses, with an error that names the file and with nothing written:
// a policy file that resolves (through symlinks) into /etc or any of
// [Options.Refuse], or through a symlink into [Options.InstallDir]; a
// dangling symlink; malformed JSONC; an edit that would make the file
// larger than a policy file may be (1 MiB); a top-level value
// that is not an object, or a filesystem/allowRead/allowWrite of the wrong
// type; a path that is not absolute and clean or not valid UTF-8 (JSON could
// not spell it exactly); an edit that fails [Options.Validate]; and any
// permission error, which keeps its errno so callers can test
// errors.Is(err, fs.ErrPermission). That includes a policy file this
// process may not write (access(2) with W_OK: another user's, or
// read-only), which the rename, needing only its directory, would
// otherwise replace.
//
// # Limits
//
// The directory lock is advisory: it orders picket's own writers only.
// Detecting an outside edit by size, mtime and inode cannot see a change that
// keeps all three (same size, within the filesystem's timestamp granularity,
// written in place). [ProjectRoot] looks for a .git entry lexically upward,
// as `git rev-parse --show-toplevel` would for an ordinary checkout; it does
// not honour GIT_DIR or GIT_WORK_TREE. A symlinked policy file is followed and
// the file it points at is edited (the link is kept); [Check] names that
// resolved target before the person is asked, and [Options.Resolved] holds
// the write to it. Backups hold the
// old policy in plain text beside it.
package persist
