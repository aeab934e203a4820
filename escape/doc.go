// Package escape makes text from policy files, paths and agent input safe to
// print on a terminal. It is the one escaping rule of picket: the audit log's
// lines, the grant prompt, check, show, validate, lint and the hook's
// messages all print through it, so a name is spelled the same way
// everywhere.
//
// # Guarantees
//
// A rune is shown as itself only when it is printable ASCII, or, beyond
// ASCII, a printable letter, digit or punctuation mark that is not default
// ignorable. Everything else is written as a Go escape: control characters
// (\n, \x1b, \u009b), invalid UTF-8 bytes (\xff), format characters such as
// bidi overrides (\u202e) and zero-width spaces (\u200b), non-ASCII spaces
// (\u00a0, \u3000), blank symbols (\u2800), combining marks (\u0301),
// emoji and other symbols (\U0001f44d), and the letters Unicode marks as
// default ignorable, which terminals draw as blanks (\u3164, \u115f,
// \u1160, \uffa0). So the output cannot move the cursor, recolour the
// terminal, end the line, or hide text behind runes that draw nothing, and
// terminals count its columns as a layout does.
//
// [Text] escapes a line of prose and keeps its spaces; [Field] quotes one
// value (a path, a pattern) so that it cannot pose as two columns.
//
// # Limits
//
// Escaping says nothing about meaning: letters of different scripts that
// look alike (Latin "a", Cyrillic "а") are both shown as letters, and
// right-to-left letters may still be reordered by a terminal that
// implements bidi. Wide letters (CJK) take two columns.
package escape
