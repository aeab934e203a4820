package escape

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every rune that [Shown] rejects, and every invalid
// byte, replaced by its Go escape; spaces and backslashes are kept. It is
// for prose that already quotes its values (an error message, a lint
// warning): Text of text without anything to escape is that text, so
// Text(Text(s)) == Text(s) and a value quoted with [Field] or %q passes
// unchanged.
func Text(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r != ' ' && !Shown(r) })
	if i < 0 {
		return s
	}
	b := []byte(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		b = appendRune(b, s[i:i+size], r, size)
		i += size
	}
	return string(b)
}

// Field returns s unchanged when every rune is [Shown] and s holds no space,
// quote or backslash; otherwise it returns s as a Go string literal in
// which everything [Text] would escape is escaped, so strconv.Unquote gives
// back s. A path quoted by Field cannot pose as two columns, end a line or
// carry an escape sequence. Field("") is "".
func Field(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == ' ' || r == '"' || r == '\\' || !Shown(r) }) {
		return s
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = appendRune(b, s[i:i+size], r, size)
		}
		i += size
	}
	return string(append(b, '"'))
}

// Shown reports whether r is printed as itself: printable ASCII other than
// space, or a printable letter, digit or punctuation mark beyond ASCII that
// is not default ignorable.
func Shown(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7f
	}
	return r != utf8.RuneError && strconv.IsPrint(r) &&
		(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsPunct(r)) &&
		!unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// appendRune appends raw, one rune r of size bytes, as itself when it is
// shown or a space, and as its escape otherwise.
func appendRune(b []byte, raw string, r rune, size int) []byte {
	switch {
	case r == utf8.RuneError && size == 1:
		return append(b, `\x`+hex(int(raw[0]), 2)...)
	case r == ' ' || Shown(r):
		return append(b, raw...)
	case r < utf8.RuneSelf:
		return append(b, escapeASCII(r)...)
	case r <= 0xffff:
		return append(b, `\u`+hex(int(r), 4)...)
	}
	return append(b, `\U`+hex(int(r), 8)...)
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
	return `\x` + hex(int(r), 2)
}

// hex is n in lowercase hexadecimal, zero-padded to width digits.
func hex(n, width int) string {
	s := strconv.FormatInt(int64(n), 16)
	return strings.Repeat("0", width-len(s)) + s
}
