// Package audit keeps picket's audit log: one JSON object per line (NDJSON),
// appended by many short-lived hook processes at once, rotated daily and by
// size, and read back by `picket log`.
//
// # Format
//
// Each line is one [Entry]. Its first member is always "ts", the time in
// RFC 3339 UTC with milliseconds ("2006-01-02T15:04:05.000Z"). "session",
// "agent", "decision", "tool", "access", "path", "resolved", "layer",
// "rule", "pattern" and "source" follow on every line, "" when empty;
// "prompted", "reason", "command", "cwd" and "exit" only when set. Readers
// take a missing member as empty, so lines of older pickets that left empty
// ones out still read. JSON escapes control
// characters, so a path holding "\n" stays on its line. JSON strings cannot
// hold bytes that are not UTF-8: encoding/json logs each as U+FFFD.
//
// # What it guarantees
//
// Processes that append through [Log] share the file safely. Each line
// reaches the file in exactly one write(2) on a descriptor opened with
// O_APPEND, so on a local file system lines from concurrent processes are
// never torn or interleaved. Writers hold a shared flock(2) on "<path>.lock"
// while they open and write; rotation takes it exclusively, so no line is
// written into a file that is being renamed away and none is lost. A
// writer that finds the file due for rotation queues on a second lock,
// "<path>.gate", before it waits for the exclusive one, so writers that
// keep taking the shared lock cannot starve the rotation.
//
// A writer waits at most 3 seconds for these locks (a hung process or a
// person's flock may hold them); then it writes the line, whole, to a
// spill file of its own beside the log, "<path>.spill-<pid>-<time>-<n>.ndjson",
// and [Log.Append] returns a [*SpilledError]. [Log.Close] folds spill
// files into the log, each in one write, when the lock is free at once;
// [Tail] reads those not yet folded, and [Follow] shows a spilled line
// when it is folded. A process that dies between a fold's write and its
// removal of the spill file leaves the line to be folded twice.
//
// The log rotates on the first write of each UTC day (the day in the
// current file's first line is older than today) and before a write would
// take the file past [Options.MaxSizeMB]. lumberjack renames the file to
// "<name>-<UTC time><ext>". Compression and retention run in [Log.Close],
// synchronously, not in lumberjack's background goroutine, which a hook
// process would kill by exiting: rotated files are gzipped and those rotated
// more than [Options.MaxAgeDays] ago are removed.
//
// A failure to write is returned by [Log.Append], never a panic: the caller
// reports it and its decision stands.
//
// # What it does not do
//
//   - It does not protect the log from a process that can write to its
//     directory: such a process can edit, truncate or delete it. picket's
//     policy makes the state directory a mandatory write deny for agents;
//     the log is only as trustworthy as that deny.
//   - It does not sign or chain lines; a forged line is only detectable by
//     its absence from other records.
//   - A short write (a full disk) can leave a partial line; readers skip
//     lines that are not valid JSON.
//   - O_APPEND is not atomic on NFS and some FUSE file systems.
//   - Rotation names have millisecond precision; if the wall clock steps
//     back, a rotation could reuse the name of an older file.
package audit
