// Package patch reads the paths an apply_patch envelope writes: the patch
// text Codex's and Copilot's apply_patch tools (and opencode's, for some
// models) pass to the hook.
//
// The envelope is Codex's:
//
//	*** Begin Patch
//	*** Add File: P        then lines starting with "+"
//	*** Delete File: P
//	*** Update File: P     then optionally "*** Move to: Q", then chunks:
//	@@ [context]           then lines starting with " ", "-" or "+",
//	                       optionally ended by "*** End of File"
//	*** End Patch
//
// [Parse] follows Codex's parser (codex-rs/apply-patch, parser.rs, in its
// lenient mode) line for line: the whole text is trimmed, lines are split on
// "\n" with a trailing "\r" dropped, marker lines are matched after trimming
// white space, a blank line between chunks is skipped, and a heredoc wrapper
// ("<<EOF", "<<'EOF'" or "<<\"EOF\"" on the first line, a last line ending
// in "EOF") is taken off.
//
// # What it guarantees
//
//   - Every path a patch Codex would apply writes is among the targets: each
//     added, updated and deleted path, and both ends of a move.
//   - A patch Codex would reject, or one picket cannot read with certainty,
//     is an error, never an empty list: the caller denies it. A patch with
//     no hunk at all is an error too (Codex applies nothing and says so).
//   - The other apply_patch implementations read the same text a little
//     differently (opencode matches a header without the space after the
//     colon and trims paths with JavaScript's white space; others may keep a
//     path's trailing spaces, or split lines at U+2028). So beyond Codex's
//     reading, every line of an accepted patch that starts, after white
//     space, with "*** Add File:", "*** Delete File:", "*** Update File:" or
//     "*** Move to:" adds its path as written, trimmed as Rust trims and as
//     JavaScript trims; lines are also split at every Unicode line break
//     for this. Such a line inside an update chunk (a context line " *** Add
//     File: x" of a file that documents the format) therefore adds x too:
//     a patch may be denied for a path it does not write, never allowed for
//     one it does.
//
// # What it does not do
//
// Paths come back as written: relative ones are the caller's to resolve
// against the session's project root (Codex resolves them against the
// call's working directory, and folds ".." by text; decide.Check judges
// both readings). Resolve them with [Target.Abs]: a path that starts with
// "~" is relative to every apply_patch tool, while decide.Check would read
// it as the home. It does not read the filesystem, check that an updated
// file exists or that a chunk applies: a patch that would fail to apply is
// still judged by its paths. It does not stop the content a patch writes
// (a script added under an allowed path runs as any file would), and it
// knows nothing of patches applied by other means (git apply, patch(1),
// a shell heredoc): those are the shell layer's.
package patch
