package shellcmd

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one field of an expanded word.
type word struct {
	s string
	// unknown: the value depends on something picket cannot know (a
	// variable it cannot expand, a command substitution's output).
	unknown bool
	// proc: a process substitution's /dev/fd path, not a file.
	proc bool
	// recursive: stands for every path below s (find's "{}").
	recursive bool
}

func known(s string) word { return word{s: s} }

// variable is what picket knows of a shell variable.
type variable struct {
	v       expand.Variable
	unknown bool // assigned, but from something picket cannot know
}

// globOpts are the shell options that change pathname expansion.
type globOpts struct {
	dotglob, globstar, nullglob, nocaseglob, extglob, failglob bool
}

// state is what the shell knows at one point of the command line. It is
// copied for subshells, pipelines and branches.
type state struct {
	dirs  []string            // the directories the command may run in
	vars  map[string]variable // set or unset by the script, or from Env
	pos   []string            // positional parameters; nil when unknown
	funcs map[string]*syntax.Stmt
	opts  globOpts
	depth int
}

func (st *state) copy() *state {
	c := *st
	c.dirs = append([]string(nil), st.dirs...)
	c.vars = maps.Clone(st.vars)
	c.funcs = maps.Clone(st.funcs)
	return &c
}

// merge folds the state of another path through the script into st: the
// directories either may be in, and each variable known only where both
// agree.
func (st *state) merge(o *state) {
	for _, d := range o.dirs {
		st.addDir(d)
	}
	for k, v := range o.vars {
		if w, ok := st.vars[k]; !ok || !sameVar(v, w) {
			st.vars[k] = variable{unknown: true}
		}
	}
	for k := range st.vars {
		if _, ok := o.vars[k]; !ok {
			st.vars[k] = variable{unknown: true}
		}
	}
	for k, f := range o.funcs {
		st.funcs[k] = f
	}
	st.opts = mergeOpts(st.opts, o.opts)
	if !equalStrings(st.pos, o.pos) {
		st.pos = nil
	}
}

// mergeOpts keeps every option either path turns on: a glob then matches
// more, never less.
func mergeOpts(a, b globOpts) globOpts {
	return globOpts{a.dotglob || b.dotglob, a.globstar || b.globstar, a.nullglob || b.nullglob,
		a.nocaseglob || b.nocaseglob, a.extglob || b.extglob, a.failglob || b.failglob}
}

func sameVar(a, b variable) bool {
	if a.unknown || b.unknown {
		return false
	}
	return a.v.Set == b.v.Set && a.v.Kind == b.v.Kind && a.v.Str == b.v.Str &&
		equalStrings(a.v.List, b.v.List) && maps.Equal(a.v.Map, b.v.Map) && a.v.Exported == b.v.Exported
}

func equalStrings(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (st *state) addDir(d string) {
	for _, x := range st.dirs {
		if x == d {
			return
		}
	}
	st.dirs = append(st.dirs, d)
}

// environ is the expand.Environ over a state for one expansion. It
// records whether anything it was asked for is unknown.
type environ struct {
	a       *analyzer
	st      *state
	dir     string
	unknown bool
}

// specialUnknown are the parameters whose value picket never knows.
var specialUnknown = map[string]bool{
	"$": true, "!": true, "?": true, "-": true, "_": true, "RANDOM": true, "SRANDOM": true,
	"SECONDS": true, "LINENO": true, "BASHPID": true, "PPID": true, "EPOCHSECONDS": true,
	"EPOCHREALTIME": true, "BASH_COMMAND": true, "PIPESTATUS": true, "FUNCNAME": true,
	"BASH_SOURCE": true, "BASH_LINENO": true, "SHLVL": true, "UID": true, "EUID": true,
	"GROUPS": true, "HOSTNAME": true, "OSTYPE": true, "MACHTYPE": true, "HOSTTYPE": true,
	"BASH_VERSION": true, "BASH_VERSINFO": true, "BASH": true, "DIRSTACK": true, "COLUMNS": true, "LINES": true,
}

func (e *environ) Get(name string) expand.Variable {
	switch name {
	case "PWD":
		if e.dir != "" {
			return expand.Variable{Set: true, Kind: expand.String, Str: e.dir}
		}
	case "#", "@", "*":
		if e.st.pos == nil {
			e.unknown = true
			return expand.Variable{Set: true, Kind: expand.String, Str: "0"}
		}
		if name == "#" {
			return expand.Variable{Set: true, Kind: expand.String, Str: itoa(len(e.st.pos) - 1)}
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: e.st.pos[1:]}
	case "IFS":
		// expand asks for it before every expansion: unset means the
		// default split, as in bash.
		if v, ok := e.st.vars[name]; !ok || !v.unknown {
			return v.v
		}
	}
	if n, ok := digits(name); ok {
		if e.st.pos == nil {
			e.unknown = true
			return expand.Variable{Set: true, Kind: expand.String, Str: "unknown"}
		}
		if n < len(e.st.pos) {
			return expand.Variable{Set: true, Kind: expand.String, Str: e.st.pos[n]}
		}
		return expand.Variable{}
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		// "~user": never let expand fall back to os/user.
		switch user {
		case "+": // ~+ is $PWD
			return e.Get("PWD")
		case "-": // ~- is $OLDPWD
			return e.Get("OLDPWD")
		}
		if e.a.env.Users != nil {
			if home, ok := e.a.env.Users(user); ok {
				return expand.Variable{Set: true, Kind: expand.String, Str: home}
			}
		}
		e.unknown = true
		return expand.Variable{Set: true, Kind: expand.String, Str: "/unknown-home"}
	}
	if specialUnknown[name] {
		e.unknown = true
		return expand.Variable{Set: true, Kind: expand.String, Str: "0"}
	}
	v, ok := e.st.vars[name]
	switch {
	case ok && v.unknown:
		e.unknown = true
		return expand.Variable{Set: true, Kind: expand.String, Str: "unknown"}
	case ok:
		return v.v
	case e.a.env.Complete:
		return expand.Variable{}
	}
	e.unknown = true
	return expand.Variable{Set: true, Kind: expand.String, Str: "unknown"}
}

func (e *environ) Each(f func(name string, vr expand.Variable) bool) {
	for k, v := range e.st.vars {
		if !v.unknown && !f(k, v.v) {
			return
		}
	}
}

func digits(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func itoa(n int) string {
	if n < 0 {
		n = 0
	}
	const d = "0123456789"
	if n < 10 {
		return d[n : n+1]
	}
	return itoa(n/10) + d[n%10:n%10+1]
}

var (
	errGlobBudget  = errors.New("glob budget")
	errFieldBudget = errors.New("field budget")
	errCmdSubst    = errors.New("command substitution")
)

// config builds the expand.Config for one expansion in dir.
func (a *analyzer) config(st *state, dir string) (*expand.Config, *environ) {
	env := &environ{a: a, st: st, dir: dir}
	cfg := &expand.Config{
		Env: env,
		CmdSubst: func(io.Writer, *syntax.CmdSubst) error {
			env.unknown = true // its commands are walked on their own
			return nil
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) {
			return "/dev/fd/63", nil
		},
		ReadDir2:   a.readDir,
		GlobStar:   st.opts.globstar,
		DotGlob:    st.opts.dotglob || st.vars["GLOBIGNORE"].v.Str != "" || st.vars["GLOBIGNORE"].unknown,
		NoCaseGlob: st.opts.nocaseglob,
		NullGlob:   st.opts.nullglob,
		ExtGlob:    st.opts.extglob,
	}
	return cfg, env
}

// readDir reads a directory for globbing, within the budget. A directory
// that exists but cannot be read globs as empty, as in bash.
func (a *analyzer) readDir(dir string) ([]fs.DirEntry, error) {
	ents, err := a.fs.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, err
		}
		return nil, nil
	}
	a.entries += len(ents)
	if a.entries > a.maxEntries {
		a.overBudget = true // expand may take this error for "not a directory"
		return nil, errGlobBudget
	}
	return ents, nil
}

// fields expands w as a command argument in each directory the command
// may run in (globs are relative to it): brace, tilde, parameter and
// arithmetic expansion, word splitting, globbing and quote removal.
func (a *analyzer) fields(st *state, w *syntax.Word) []word {
	var out []word
	for _, dir := range st.dirs {
		cfg, env := a.config(st, dir)
		var got []string
		n := 0
		for s, err := range expand.FieldsSeq(cfg, w) {
			if err != nil {
				a.expandErr(err)
				return nil
			}
			if n++; n > MaxFields {
				a.fail("a word expands to more than %d fields", MaxFields)
				return nil
			}
			got = append(got, s)
		}
		if a.overBudget {
			a.expandErr(errGlobBudget)
			return nil
		}
		if t := assignmentTilde(w, env.Get); len(t) > 0 && len(got) == 1 {
			got = t
		}
		proc := hasProcSubst(w)
		for _, s := range got {
			ww := word{s: s, unknown: env.unknown, proc: proc}
			if ww.unknown {
				ww.s = ""
			}
			if !containsWord(out, ww) {
				out = append(out, ww)
			}
		}
		if env.unknown && len(got) == 0 {
			out = append(out, word{unknown: true})
		}
	}
	return out
}

// literal expands w as an assignment's value or a redirection's word
// (no splitting; tilde at the start). ok is false when it is unknown.
func (a *analyzer) literal(st *state, w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	cfg, env := a.config(st, firstDir(st))
	cfg.ReadDir2 = nil
	s, err := expand.Literal(cfg, w)
	if err != nil {
		a.expandErr(err)
		return "", false
	}
	if env.unknown || tildeAfterColon(w) {
		return "", false
	}
	return s, true
}

// document expands a here-document body; ok is false when it is unknown.
func (a *analyzer) document(st *state, w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	cfg, env := a.config(st, firstDir(st))
	cfg.ReadDir2 = nil
	s, err := expand.Document(cfg, w)
	if err != nil {
		a.expandErr(err)
		return "", false
	}
	return s, !env.unknown
}

func firstDir(st *state) string {
	if len(st.dirs) == 1 {
		return st.dirs[0]
	}
	return ""
}

func (a *analyzer) expandErr(err error) {
	switch {
	case errors.Is(err, errGlobBudget):
		a.fail("its globs read more than %d directory entries", a.maxEntries)
	default:
		a.fail("a word cannot be expanded: %v", err)
	}
}

func containsWord(ws []word, w word) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func hasProcSubst(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.ProcSubst); ok {
			return true
		}
	}
	return false
}

// tildeAfterColon reports an assignment value with an unquoted "~" after
// a ":" (PATH=a:~/b), which bash expands and expand.Literal does not.
func tildeAfterColon(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, ":~") {
			return true
		}
	}
	return false
}

// assignmentTilde is bash's expansion of "~" in an argument that reads as
// an assignment (dd if=~/x, make PREFIX=~/y): outside POSIX mode bash
// expands a tilde prefix right after the first "=" there.
func assignmentTilde(w *syntax.Word, get func(string) expand.Variable) []string {
	if len(w.Parts) != 1 {
		return nil
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return nil
	}
	name, rest, ok := strings.Cut(l.Value, "=")
	if !ok || !validName(name) || !strings.HasPrefix(rest, "~") {
		return nil
	}
	user, tail, _ := strings.Cut(rest[1:], "/")
	if strings.ContainsAny(user, ":") {
		return nil
	}
	key := "HOME"
	if user != "" {
		key = "HOME " + user
	}
	home := get(key)
	if !home.IsSet() {
		return nil
	}
	if tail != "" || strings.Contains(rest, "/") {
		return []string{name + "=" + home.Str + "/" + tail}
	}
	return []string{name + "=" + home.Str}
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
