package gemini

import (
	"errors"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Gemini CLI 0.61 resolves a tool's path argument in steps picket must
// take too, or it judges another file than the one read:
//
//   - the file tools (read_file, write_file, replace) drop NUL bytes, then
//     take "@x" for "x" when no file "@x" exists (resolveDefensiveToolPath);
//   - every tool joins a relative path to the workspace with Node's
//     path.resolve, which drops "." and ".." by text;
//   - the file tools, glob and grep_search then decode the whole path with
//     decodeURIComponent (resolveToRealPath), so "%2Eenv" is ".env" and
//     "%2E%2E" is "..", resolve it again and follow its links;
//   - list_directory and the shell's dir_path are only joined.
//
// picket judges every spelling one of these readings gives, the one
// Gemini CLI takes first: a file that appears between the hook and the
// call cannot turn the call into one picket did not judge.

// errNUL denies a path holding a NUL byte, which Gemini CLI drops from
// some readings and fails on in others.
var errNUL = errors.New("the path holds a NUL byte")

// jsResolve is Node's path.resolve(dir, p) on POSIX: p joined to dir
// unless absolute, then cleaned by text.
func jsResolve(dir, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	return path.Clean(p)
}

// decodeURIComponent is JavaScript's: every %XX is a byte, and the bytes
// must spell UTF-8 (no overlong form, no surrogate). ok is false where
// JavaScript throws a URIError; Gemini CLI then keeps the path as it was.
func decodeURIComponent(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		c, ok := hexByte(s, i)
		if !ok {
			return "", false
		}
		i += 3
		n := 1
		switch {
		case c < 0x80:
		case c&0xe0 == 0xc0:
			n = 2
		case c&0xf0 == 0xe0:
			n = 3
		case c&0xf8 == 0xf0:
			n = 4
		default:
			return "", false
		}
		seq := []byte{c}
		for k := 1; k < n; k++ {
			c, ok := hexByte(s, i)
			if !ok || c&0xc0 != 0x80 {
				return "", false
			}
			seq = append(seq, c)
			i += 3
		}
		if !utf8.Valid(seq) {
			return "", false
		}
		b.Write(seq)
	}
	return b.String(), true
}

// hexByte reads "%XX" at s[i:].
func hexByte(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	hi, ok1 := unhex(s[i+1])
	lo, ok2 := unhex(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// realPathSpellings are the paths resolveToRealPath gives for the
// absolute path p: decoded when it decodes, and as it is (Gemini CLI
// falls back on it where resolving fails). The first is the one it takes.
func realPathSpellings(p string) ([]string, error) {
	out := []string{p}
	if d, ok := decodeURIComponent(p); ok && d != p {
		if strings.ContainsRune(d, 0) {
			return nil, errNUL
		}
		out = []string{path.Clean(d), p}
	}
	return out, nil
}

// exists is Node's fs.existsSync: the path, links followed, is there.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// defensive is resolveDefensiveToolPath: p as it is when that names a
// file, else without a leading "@" (and the slashes after it) when the
// first name after it, with the "@", names none.
func defensive(root, p string) string {
	if exists(jsResolve(root, p)) || len(p) < 2 || p[0] != '@' {
		return p
	}
	stripped := strings.TrimLeft(p[1:], `/\`)
	if p[1] == '/' || p[1] == '\\' {
		if stripped == "" {
			return p
		}
		return stripped
	}
	first, _, _ := strings.Cut(strings.ReplaceAll(stripped, `\`, "/"), "/")
	if first == "" || exists(jsResolve(root, "@"+first)) {
		return p
	}
	return stripped
}

// filePaths are the paths a file tool (read_file, write_file) reads for
// the argument p, relative to root, the one Gemini CLI takes first: p
// with and without its "@", each decoded and as written.
func filePaths(root, p string) ([]string, error) {
	if strings.ContainsRune(p, 0) {
		return nil, errNUL
	}
	readings := []string{defensive(root, p), p}
	if len(p) > 1 && p[0] == '@' {
		readings = append(readings, strings.TrimLeft(p[1:], `/\`))
	}
	var out []string
	for _, q := range readings {
		if q == "" {
			continue
		}
		s, err := realPathSpellings(jsResolve(root, q))
		if err != nil {
			return nil, err
		}
		for _, x := range s {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out, nil
}

// searchPaths are the directories glob and grep_search search for
// dir_path (root itself for ""), the one Gemini CLI takes first.
func searchPaths(root, dir string) ([]string, error) {
	if strings.ContainsRune(dir, 0) {
		return nil, errNUL
	}
	if dir == "" {
		dir = "."
	}
	return realPathSpellings(jsResolve(root, dir))
}
