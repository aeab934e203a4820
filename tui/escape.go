package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with everything that could move the cursor, change the
// terminal's state or hide text replaced by a visible backslash escape:
// control characters (\n, \t, \x1b, \x7f, C1 controls as \u0085), invalid
// UTF-8 bytes (\xff), and runes that are not printable, such as bidi
// overrides (\u202e), zero-width spaces and non-ASCII spaces. Of the
// printable runes beyond ASCII only letters, digits and punctuation are
// shown as they are: symbols and marks are escaped too (\U0001f3fd), since
// terminals disagree with the layout's count of their columns (a skin-tone
// modifier is none to the layout and two to tmux), and a long run of them
// wrapped the prompt until the resolved path scrolled out of view. A
// backslash is doubled, so an escaped byte cannot be confused with a path
// that spells the escape literally. The result is valid UTF-8 with no
// control characters.
//
// Every field the prompt shows goes through Escape.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == ' ' || r < utf8.RuneSelf && strconv.IsPrint(r):
			b.WriteRune(r)
		case r < utf8.RuneSelf:
			b.WriteString(escapeASCII(r))
		case strconv.IsPrint(r) && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsPunct(r)):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// escapeASCII spells an ASCII control character the way Go source does.
func escapeASCII(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return fmt.Sprintf(`\x%02x`, r)
}
