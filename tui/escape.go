package tui

import "github.com/picketdev/picket/escape"

// Escape is [escape.Text], picket's one escaping rule, so the prompt spells
// a path exactly as the audit log and picket check do: control characters
// (\n, \x1b, C1 controls as \u0085), invalid UTF-8 bytes (\xff), bidi
// overrides (\u202e), zero-width and non-ASCII spaces, blank letters
// (\u3164) and, beyond ASCII, every symbol and mark (\U0001f3fd) are shown
// as backslash escapes; letters, digits, punctuation and spaces are kept.
// Symbols and marks are escaped because terminals disagree with the
// layout's count of their columns (a skin-tone modifier is none to the
// layout and two to tmux), and a long run of them wrapped the prompt until
// the resolved path scrolled out of view.
//
// Every field the prompt shows goes through Escape.
func Escape(s string) string { return escape.Text(s) }
