package decide

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gobwas/glob/syntax"
)

// matcher matches a whole string against a compiled glob.
type matcher interface{ Match(s string) bool }

// compileGlob compiles a gobwas pattern (picket's syntax after [translate]).
// gobwas's matcher backtracks: with two or more stars its time grows with
// the length of the path to the power of the stars ("**/*a*a*a*b*" against
// a long name of a's took seconds, "**/src/**/test/*fixture*" a second on a
// 558-byte path an agent chose), and the paths are the agent's to choose.
// Such a pattern is matched by the equivalent RE2 expression instead,
// whose time is linear in the path (times the pattern's length, which a
// policy author controls). gobwas stays the parser and the
// judge of syntax, and matches the rest.
func compileGlob(src string) (matcher, error) {
	g, err := compiler.Compile(src)
	if err != nil {
		return nil, err
	}
	if re, ok := globRegexp(src); ok {
		return reMatcher{re}, nil
	}
	return g, nil
}

// reMatcher matches with an RE2 expression: linear in the string.
type reMatcher struct{ re *regexp.Regexp }

func (m reMatcher) Match(s string) bool { return m.re.MatchString(s) }

// globRegexp translates a gobwas pattern with two or more stars into an
// anchored regular expression with the same meaning under picket's
// compiler settings (separator '/', globstar): '*' is [^/]*, '?' is [^/],
// a class is a class (a negated one matches '/' too, as in gobwas), '**'
// is .*, and a '**' that starts a segment and is followed by '/' stands
// for any run of whole segments, (?:.*/)?. ok is false for a pattern with
// fewer stars, with braces (picket escapes them all), or one RE2 cannot
// take or would read otherwise (invalid UTF-8, a literal U+FFFD, which RE2
// matches against any invalid byte): gobwas matches those.
func globRegexp(src string) (re *regexp.Regexp, ok bool) {
	toks, ok := globTokens(src)
	if !ok {
		return nil, false
	}
	stars := 0
	for _, t := range toks {
		if t.Type == syntax.Any || t.Type == syntax.Super {
			stars++
		}
	}
	if stars < 2 {
		return nil, false
	}
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	start := true // at the start of a segment
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Type {
		case syntax.Text:
			if strings.ContainsRune(t.Data, utf8.RuneError) {
				return nil, false // RE2 would take it for any invalid byte
			}
			b.WriteString(regexp.QuoteMeta(t.Data))
			last, _ := utf8.DecodeLastRuneInString(t.Data)
			start = last == '/'
		case syntax.Single:
			b.WriteString(`[^/]`)
			start = false
		case syntax.Any:
			b.WriteString(`[^/]*`)
			start = false
		case syntax.Super:
			if next := i + 1; start && next < len(toks) && toks[next].Type == syntax.Text && strings.HasPrefix(toks[next].Data, "/") {
				b.WriteString(`(?:.*/)?`)
				if toks[next].Data = toks[next].Data[1:]; toks[next].Data == "" {
					i++
				}
				continue // still at a segment start
			}
			b.WriteString(`.*`)
			start = false
		case syntax.RangeOpen:
			class, n, ok := globClass(toks[i+1:])
			if !ok {
				return nil, false
			}
			b.WriteString(class)
			i += n
			start = false
		default:
			return nil, false
		}
	}
	b.WriteString(`\z`)
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// globTokens lexes src, with every run of adjacent stars made one: a run
// holding a '**' is '**' (gobwas reads "***/x" as "**/x"), else '*'.
func globTokens(src string) ([]syntax.Token, bool) {
	lex := syntax.NewLexer(src)
	var toks []syntax.Token
	for {
		t := lex.Next()
		switch t.Type {
		case syntax.EOF:
			return toks, true
		case syntax.Error, syntax.TermsOpen, syntax.TermsClose, syntax.TermSeparator:
			return nil, false
		case syntax.Any, syntax.Super:
			if n := len(toks); n > 0 && (toks[n-1].Type == syntax.Any || toks[n-1].Type == syntax.Super) {
				if t.Type == syntax.Super {
					toks[n-1] = t
				}
				continue
			}
		case syntax.Text:
			if n := len(toks); n > 0 && toks[n-1].Type == syntax.Text {
				toks[n-1].Data += t.Data
				continue
			}
		}
		toks = append(toks, t)
	}
}

// globClass translates the tokens after a '[' up to its ']' into an RE2
// class and says how many tokens it used.
func globClass(toks []syntax.Token) (class string, n int, ok bool) {
	var b strings.Builder
	b.WriteByte('[')
	for n < len(toks) {
		t := toks[n]
		n++
		switch t.Type {
		case syntax.RangeClose:
			b.WriteByte(']')
			return b.String(), n, b.Len() > 2 && b.String() != "[^]"
		case syntax.Not:
			b.WriteByte('^')
		case syntax.RangeLo, syntax.RangeHi:
			r, w := utf8.DecodeRuneInString(t.Data)
			if w != len(t.Data) || r == utf8.RuneError {
				return "", 0, false
			}
			fmt.Fprintf(&b, `\x{%x}`, r)
		case syntax.RangeBetween:
			b.WriteByte('-')
		case syntax.Text:
			for _, r := range t.Data {
				if r == utf8.RuneError {
					return "", 0, false
				}
				fmt.Fprintf(&b, `\x{%x}`, r)
			}
		default:
			return "", 0, false
		}
	}
	return "", 0, false
}
