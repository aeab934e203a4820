package decide

import "github.com/tailscale/hujson"

// standardize turns a policy document that passed validation (JSON with
// comments and trailing commas, JWCC, as hujson reads it) into standard
// JSON of the same length: each comment and trailing comma becomes
// spaces. It is hujson.Standardize without the syntax tree, which every
// hook call paid for twice (the document and its built-in template: about
// 90 KB of allocations and a tenth of a millisecond). Anything it does not
// expect of JWCC is left to hujson, so the two never disagree
// (FuzzStandardize holds them to the same JSON).
func standardize(src []byte) ([]byte, error) {
	out := make([]byte, len(src))
	copy(out, src)
	comma := -1 // a comma no value has followed yet
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			end := stringEnd(out, i)
			if end < 0 {
				return hujson.Standardize(append([]byte(nil), src...))
			}
			i, comma = end, -1
		case '/':
			end := commentEnd(out, i)
			if end < 0 {
				return hujson.Standardize(append([]byte(nil), src...))
			}
			for j := i; j < end; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i = end - 1
		case ',':
			comma = i
		case ']', '}':
			if comma >= 0 {
				out[comma] = ' '
			}
			comma = -1
		case ' ', '\t', '\n', '\r':
		default:
			comma = -1
		}
	}
	return out, nil
}

// stringEnd returns the index of the quote that closes the string opening
// at b[start], or -1.
func stringEnd(b []byte, start int) int {
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// commentEnd returns the index just past the comment starting at b[start]
// ("//" to the end of the line, its newline kept; "/* */"), or -1 when
// no comment starts there.
func commentEnd(b []byte, start int) int {
	if start+1 >= len(b) {
		return -1
	}
	switch b[start+1] {
	case '/':
		for j := start + 2; j < len(b); j++ {
			if b[j] == '\n' {
				return j
			}
		}
		return len(b)
	case '*':
		for j := start + 2; j+1 < len(b); j++ {
			if b[j] == '*' && b[j+1] == '/' {
				return j + 2
			}
		}
	}
	return -1
}
