package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteField returns s unchanged when it is printable, single-line text
// without spaces, and Go-quoted otherwise, so a path cannot forge a line or
// an escape sequence on a terminal.
func quoteField(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' || r == '\\'
	}) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
