package shellcmd

import (
	"regexp"
	"strings"
	"sync"

	"github.com/picketdev/picket/decide"
)

func (a *analyzer) awk(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "fvF", []string{"file", "assign", "field-separator", "include", "load", "source"})
	if !ok {
		a.fail("%s: an option is missing its value", name)
		return
	}
	progs := values(opts, "--source")
	for _, w := range values(opts, "-f", "--file", "--include", "-i") {
		a.path(st, w, decide.Read, false, name)
	}
	if !has(opts, "-f", "--file") && len(ops) > 0 {
		progs = append(progs, ops[0])
		ops = ops[1:]
	}
	for _, p := range progs {
		if p.unknown || awkIO(p.s) {
			a.fail("%s's program reads, writes or runs something by itself", name)
			return
		}
	}
	for _, w := range ops {
		if !w.unknown && validName(strings.SplitN(w.s, "=", 2)[0]) && strings.Contains(w.s, "=") {
			continue // a variable assignment
		}
		a.path(st, w, decide.Read, false, name)
	}
}

// awkIO reports an awk program that does file or process I/O itself:
// getline from a file or a command, system(), and print or printf
// redirected to a file or a pipe. String literals are left out first, so
// print "a -> b" is not a redirection. It errs towards yes.
func awkIO(prog string) bool {
	return awkIOPattern().MatchString(awkString().ReplaceAllString(prog, `""`))
}

// (Compiled on first use: the hook starts for every call.)
var (
	awkString    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\\]|\\.)*"`) })
	awkIOPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`getline[^;}\n]*<|\|&?\s*getline|system\s*\(|\b(print|printf)\b[^;}\n]*(>|\|)|close\s*\(|fflush\s*\(\s*"`)
	})
)

func (a *analyzer) sed(st, env *state, name string, args []word, stdin input) {
	sa, ok := a.sedArgs(st, args)
	if !ok {
		return
	}
	if len(sa.scripts) == 0 {
		if len(sa.files) == 0 {
			return
		}
		sa.scripts, sa.files = sa.files[:1], sa.files[1:]
	}
	for _, sc := range sa.scripts {
		if sc.unknown || sedIO(sc.s) {
			a.fail("sed's script reads, writes or runs something by itself (r, R, w, W, e)")
			return
		}
	}
	acc := decide.Read
	if sa.inPlace {
		acc = decide.Write
	}
	for _, w := range sa.files {
		a.path(st, w, acc, false, name)
	}
}

// sedArgs is sed's command line: its scripts (a script file read by -f
// stands as ""), whether it edits in place, and its files.
type sedArgs struct {
	scripts, files []word
	inPlace        bool
}

func (a *analyzer) sedArgs(st *state, args []word) (sedArgs, bool) {
	var sa sedArgs
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w.unknown || w.s == "-" || !strings.HasPrefix(w.s, "-"):
			sa.files = append(sa.files, w)
		case w.s == "--":
			sa.files = append(sa.files, args[i+1:]...)
			return sa, true
		case strings.HasPrefix(w.s, "--"):
			n, v, eq := strings.Cut(w.s[2:], "=")
			if n == "in-place" {
				sa.inPlace = true
				continue
			}
			if n != "expression" && n != "file" && n != "line-length" {
				continue
			}
			val := known(v)
			if !eq {
				if i+1 >= len(args) {
					a.fail("sed --%s is missing its value", n)
					return sa, false
				}
				i++
				val = args[i]
			}
			a.sedValue(st, &sa, n[0], val)
		default:
			var ok bool
			if i, ok = a.sedBundle(st, &sa, args, i); !ok {
				return sa, false
			}
		}
	}
	return sa, true
}

// sedBundle reads a bundle of short options (-n, -E, -i[SUFFIX], -e
// SCRIPT, -f FILE, -l N, -s ...) at args[i]; it returns the index of the
// last word it took.
func (a *analyzer) sedBundle(st *state, sa *sedArgs, args []word, i int) (int, bool) {
	s := args[i].s
	for j := 1; j < len(s); j++ {
		switch c := s[j]; c {
		case 'i':
			sa.inPlace = true
			return i, true // the rest is the backup suffix
		case 'e', 'f', 'l':
			val := known(s[j+1:])
			if val.s == "" {
				if i+1 >= len(args) {
					a.fail("sed -%c is missing its value", c)
					return i, false
				}
				i++
				val = args[i]
			}
			a.sedValue(st, sa, c, val)
			return i, true
		}
	}
	return i, true
}

// sedValue takes the value of -e (a script), -f (a script file) or -l.
func (a *analyzer) sedValue(st *state, sa *sedArgs, opt byte, v word) {
	switch opt {
	case 'e':
		sa.scripts = append(sa.scripts, v)
	case 'f':
		a.path(st, v, decide.Read, false, "sed")
		sa.scripts = append(sa.scripts, known(""))
	}
}

// sedCmdIO finds the sed commands that read or write a named file or run
// a command: r, R, w, W and e, at the start, after a separator or after an
// address.
var sedCmdIO = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[;{}\n]|[0-9$/]!?)\s*[rRwWe](\s|$)`)
})

// sedIO reports a sed script that reads, writes or runs something by
// itself: one of the commands sedCmdIO finds, or an s command with the w
// or e flag. It errs towards yes.
func sedIO(script string) bool {
	return sedCmdIO().MatchString(script) || sedSubstIO(script)
}

// sedSubstIO finds s commands (s/re/text/flags, any delimiter) whose
// flags hold w (write a file) or e (run the pattern space).
func sedSubstIO(script string) bool {
	for i := 0; i+1 < len(script); i++ {
		if script[i] != 's' {
			continue
		}
		d := script[i+1]
		if d == '\\' || d == '\n' || d == ' ' || d == '\t' || isAlnum(d) {
			continue
		}
		end, ok := skipDelimited(script, i+2, d, 2)
		if !ok {
			continue
		}
		for j := end; j < len(script) && script[j] != ';' && script[j] != '\n' && script[j] != '}'; j++ {
			if c := script[j]; c == 'w' || c == 'e' || c == 'W' {
				return true
			}
		}
	}
	return false
}

// skipDelimited skips n fields that each end at an unescaped d, from
// start; it returns where the last one ended.
func skipDelimited(s string, start int, d byte, n int) (int, bool) {
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case d:
			if n--; n == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
