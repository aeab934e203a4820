// Package tui is picket's grant prompt: a Bubble Tea program that shows one
// blocked request to the person at the terminal and returns one [Answer].
//
// # Guarantees
//
//   - Deny is the default. Enter, Esc, Ctrl-C, d, the timeout
//     ([Request.TimeoutSeconds]), a terminal that is too small and a terminal
//     that goes away all answer [AnswerDeny] (or [AnswerDenyAll] for a batch).
//     [Run] answers [AnswerDeny] on any error.
//   - The resolved path is shown first, in full: long paths wrap, the tail is
//     never cut. The requested spelling follows when it differs.
//   - Every displayed field goes through [Escape], so control characters,
//     ANSI escapes, invalid UTF-8 and invisible format characters (bidi
//     overrides, zero-width spaces) are shown as backslash escapes and cannot
//     repaint the prompt or forge a line.
//   - Keys pressed in the first [Options.GuardDelay] (500 ms) after the
//     prompt, or the persist confirm, appears are read and discarded, and the
//     options are shown inactive ("(wait…)") until then. Ctrl-C denies at
//     any time.
//   - Persist needs a second, separately guarded y.
//   - [Model.Update] is pure: time reaches it only in messages, so tests
//     drive it without sleeping.
//
// # Limits
//
// The prompt does not stop a person from granting what they should not, and
// it cannot tell keys typed by the person from keys injected into the
// terminal by another process of the same user. The guard only stops keys
// typed before the prompt appeared; a key typed ahead but delivered after it
// still counts. Requests for the mandatory and mode layers are never
// prompted: [Run] denies them without drawing anything.
package tui
