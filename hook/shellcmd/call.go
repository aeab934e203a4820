package shellcmd

import (
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/patch"
)

// call runs one simple command: assignments, then the command its words
// expand to.
func (a *analyzer) call(st *state, x *syntax.CallExpr, stdin input) {
	for _, w := range x.Args {
		a.substs(st, w)
	}
	if len(x.Args) == 0 {
		for _, as := range x.Assigns {
			a.assign(st, as, false)
		}
		return
	}
	// FOO=x cmd: FOO is set for cmd only, after its words are expanded.
	env := st.copy()
	for _, as := range x.Assigns {
		a.assign(env, as, true)
	}
	var argv []word
	for _, w := range x.Args {
		argv = append(argv, a.fields(st, w)...)
	}
	if a.err != nil || len(argv) == 0 {
		return
	}
	a.run(st, env, argv, stdin)
}

// run runs argv in st; env is st plus the command's own assignments (what
// a child process or nested shell sees).
func (a *analyzer) run(st, env *state, argv []word, stdin input) {
	if a.err != nil || len(argv) == 0 {
		return
	}
	a.record(argv)
	if argv[0].unknown {
		a.fail("the command's name is not known before it runs (a variable or a command's output)")
		return
	}
	name := argv[0].s
	args := argv[1:]
	if f, ok := st.funcs[name]; ok && !strings.Contains(name, "/") {
		a.function(st, f, argv)
		return
	}
	base := filepath.Base(name)
	if r, ok := lookup(base); ok {
		r(a, st, env, base, args, stdin)
		return
	}
	a.generic(st, base, args)
}

func (a *analyzer) record(argv []word) {
	c := Command{Args: make([]string, len(argv)), Unknown: make([]bool, len(argv))}
	for i, w := range argv {
		c.Args[i], c.Unknown[i] = w.s, w.unknown
	}
	a.cmds = append(a.cmds, c)
}

// function walks a shell function's body with the call's arguments.
func (a *analyzer) function(st *state, body *syntax.Stmt, argv []word) {
	if !a.deeper(st) {
		return
	}
	defer func() { st.depth-- }()
	saved := st.pos
	st.pos = nil
	pos := []string{saved0(saved)}
	for _, w := range argv[1:] {
		if w.unknown {
			pos = nil
			break
		}
		pos = append(pos, w.s)
	}
	if pos != nil {
		st.pos = pos
	}
	a.stmt(st, body)
	st.pos = saved
}

func saved0(pos []string) string {
	if len(pos) > 0 {
		return pos[0]
	}
	return "bash"
}

// runner interprets one command's arguments.
type runner func(a *analyzer, st, env *state, name string, args []word, stdin input)

// runners and fileRunners are the tables of commands picket reads, built
// on first use: every picket hook process starts with this package, and
// only the shell-line judge (Codex, Copilot) needs them (0.06 ms of
// package initialisation otherwise).
var (
	runners, fileRunners map[string]runner
	tables               sync.Once
)

func initRunners() {
	runners = map[string]runner{}
	for _, n := range strings.Fields(`echo printf true false : exit return kill sleep shift wait jobs bg fg
		type which umask ulimit date seq yes basename dirname whoami id uname pwd hostname
		history help logout times caller disown suspend compgen complete compopt dirs expr
		getconf nproc tput clear stty tty env_parallel alias unalias break continue printenv
		logger notify-send uptime free ps pgrep pkill killall`) {
		runners[n] = (*analyzer).noPaths
	}
	runners["hash"] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		for _, w := range args {
			if w.unknown || strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "p") {
				a.fail("hash -p makes a command name run another program")
				return
			}
		}
	}
	for _, n := range strings.Fields("eval enable") {
		runners[n] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
			a.fail("%s runs text as shell code, which picket does not analyse", name)
		}
	}
	for _, n := range strings.Fields("bash sh dash zsh ksh mksh yash rbash") {
		runners[n] = (*analyzer).shell
	}
	for n, r := range map[string]runner{
		"cd": (*analyzer).cd, "pushd": (*analyzer).cd, "popd": (*analyzer).popd,
		"source": (*analyzer).source, ".": (*analyzer).source,
		"read": (*analyzer).readVars, "mapfile": (*analyzer).readVars, "readarray": (*analyzer).readVars,
		"getopts": (*analyzer).readVars, "unset": (*analyzer).unset, "shopt": (*analyzer).shopt,
		"set": (*analyzer).set, "trap": (*analyzer).trap, "let": (*analyzer).let,
		"test": (*analyzer).test, "[": (*analyzer).test, "[[": (*analyzer).test,
		"exec": (*analyzer).exec, "command": (*analyzer).commandBuiltin, "builtin": (*analyzer).builtin,
		"env": (*analyzer).envCmd, "sudo": (*analyzer).sudo, "doas": (*analyzer).sudo,
		"nice": wrapper("n", "adjustment"), "nohup": wrapper("", ""), "setsid": wrapper("", ""),
		"time": wrapper("fo", "format output"), "stdbuf": wrapper("ioe", "input output error"),
		"ionice": wrapper("cnpPu", "class classdata pid pgid uid"), "timeout": (*analyzer).timeout,
		"chrt": (*analyzer).chrt, "taskset": (*analyzer).taskset, "busybox": (*analyzer).busybox,
		"watch": (*analyzer).watch, "flock": (*analyzer).flock, "su": (*analyzer).su, "runuser": (*analyzer).su,
		"xargs": (*analyzer).xargs, "find": (*analyzer).find, "fish": (*analyzer).foreignShell,
		"csh": (*analyzer).foreignShell, "tcsh": (*analyzer).foreignShell,
		"apply_patch": (*analyzer).applyPatch, "applypatch": (*analyzer).applyPatch,
		"patch": (*analyzer).patchCmd, "declare": (*analyzer).declLike, "typeset": (*analyzer).declLike,
		"local": (*analyzer).declLike, "export": (*analyzer).declLike, "readonly": (*analyzer).declLike,
	} {
		runners[n] = r
	}
}

// lookup finds a command's runner: the shell's own and wrappers first,
// then the file tools.
func lookup(name string) (runner, bool) {
	tables.Do(func() {
		initRunners()
		initFileRunners()
	})
	if r, ok := runners[name]; ok {
		return r, true
	}
	r, ok := fileRunners[name]
	return r, ok
}

func (a *analyzer) noPaths(st, env *state, name string, args []word, stdin input) {
	if name == "printf" {
		for i := 0; i+1 < len(args); i++ {
			if args[i].s == "-v" {
				st.vars[args[i+1].s] = variable{unknown: true}
			}
		}
	}
}

// generic judges an unknown program: every operand, and every option's
// "=value", is read when it names a file.
func (a *analyzer) generic(st *state, name string, args []word) {
	for _, w := range args {
		switch {
		case w.unknown:
			a.path(st, w, decide.Read, false, name)
		case strings.HasPrefix(w.s, "-"):
			if _, v, ok := strings.Cut(w.s, "="); ok {
				a.path(st, known(v), decide.Read, false, name)
			}
		default:
			a.path(st, w, decide.Read, false, name)
			if rest, ok := strings.CutPrefix(w.s, "@"); ok && rest != "" {
				a.path(st, known(rest), decide.Read, false, name) // @file: many tools read it
			}
		}
	}
}

// shell runs bash -c STRING, a script file, or commands from stdin.
func (a *analyzer) shell(st, env *state, name string, args []word, stdin input) {
	sa, ok := a.shellArgs(st, name, args)
	if !ok {
		return
	}
	inner := a.childState(env)
	inner.opts = mergeOpts(env.opts, sa.opts)
	// A non-interactive bash sources $BASH_ENV before anything else.
	if v, ok := inner.vars["BASH_ENV"]; ok && (v.unknown || v.v.Str != "") {
		a.path(st, word{s: v.v.Str, unknown: v.unknown}, decide.Read, false, name+" $BASH_ENV")
		a.fail("%s sources $BASH_ENV, whose commands picket does not see", name)
		return
	}
	rest := sa.rest
	switch {
	case sa.cmd:
		if len(rest) == 0 || rest[0].unknown {
			a.fail("%s -c runs a command picket cannot expand", name)
			return
		}
		inner.pos = positional(name, rest[1:])
		a.script(inner, rest[0].s)
	case !sa.stdin && len(rest) > 0:
		for _, w := range rest {
			a.path(st, w, decide.Read, false, name) // the script, and its arguments
		}
	case stdin.set && stdin.known:
		a.script(inner, stdin.text)
	default:
		a.fail("%s reads its commands from standard input, which picket cannot see", name)
	}
}

// shellArgs is a shell's command line: -c, -s, the shopt options -O
// sets, and the words after its options.
type shellArgs struct {
	cmd, stdin bool
	opts       globOpts
	rest       []word
}

// shellArgs reads a shell's options; false when the shell will not run
// anything picket must see (-n) or an option is unknown.
func (a *analyzer) shellArgs(st *state, name string, args []word) (shellArgs, bool) {
	var sa shellArgs
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w.unknown:
			a.fail("%s gets an option picket cannot expand", name)
			return sa, false
		case w.s == "--" || w.s == "-":
			sa.rest = args[i+1:]
			return sa, true
		case w.s == "--rcfile" || w.s == "--init-file":
			if i+1 < len(args) {
				i++
				a.path(st, args[i], decide.Read, false, name)
			}
		case strings.HasPrefix(w.s, "--"):
		case !strings.HasPrefix(w.s, "-") && !strings.HasPrefix(w.s, "+"):
			sa.rest = args[i:]
			return sa, true
		default:
			for _, c := range w.s[1:] {
				switch c {
				case 'c':
					sa.cmd = true
				case 's':
					sa.stdin = true
				case 'n':
					return sa, false // reads its commands without running them
				case 'o', 'O':
					if i+1 < len(args) {
						i++
						if c == 'O' && !setShopt(&sa.opts, args[i].s, w.s[0] == '-') {
							a.fail("%s -O %s changes how picket would read it", name, args[i].s)
							return sa, false
						}
					}
				}
			}
		}
	}
	return sa, true
}

// positional is $0, $1, ... of bash -c CMD [NAME [ARGS...]]; nil when
// one is unknown.
func positional(shell string, args []word) []string {
	if len(args) == 0 {
		return []string{shell}
	}
	var pos []string
	for _, w := range args {
		if w.unknown || w.recursive {
			return nil
		}
		pos = append(pos, w.s)
	}
	return pos
}

// childState is what a child process starts with: the exported variables
// and the working directory.
func (a *analyzer) childState(env *state) *state {
	c := &state{dirs: append([]string(nil), env.dirs...), vars: map[string]variable{}, pos: []string{"bash"},
		funcs: map[string]*syntax.Stmt{}, depth: env.depth}
	for k, v := range env.vars {
		if v.unknown || v.v.Exported {
			c.vars[k] = v
		}
	}
	return c
}

// script analyses shell code run in st (bash -c, a trap, stdin).
func (a *analyzer) script(st *state, src string) {
	if !a.deeper(st) {
		return
	}
	f, err := parse(src)
	if err != nil {
		if a.err == nil {
			a.err = err
		}
		return
	}
	a.checkFile(f)
	a.stmts(st, f.Stmts)
}

func (a *analyzer) foreignShell(st, env *state, name string, args []word, stdin input) {
	a.fail("%s runs commands in a language picket does not analyse", name)
}

func (a *analyzer) cd(st, env *state, name string, args []word, stdin input) {
	var ops []word
	for _, w := range args {
		if !w.unknown && (w.s == "-L" || w.s == "-P" || w.s == "-e" || w.s == "-@" || w.s == "--") {
			continue
		}
		ops = append(ops, w)
	}
	if len(ops) > 1 {
		a.fail("%s has more than one directory", name)
		return
	}
	target := word{}
	if len(ops) == 0 {
		h := st.vars["HOME"]
		if h.unknown || !h.v.IsSet() {
			a.fail("%s goes to $HOME, which picket does not know", name)
			return
		}
		target = known(h.v.Str)
	} else {
		target = ops[0]
	}
	if target.unknown {
		a.fail("%s goes to a directory picket cannot expand", name)
		return
	}
	if target.s == "-" || strings.HasPrefix(target.s, "+") || strings.HasPrefix(target.s, "-") {
		a.fail("%s %s is not analysed", name, target.s)
		return
	}
	if cp := st.vars["CDPATH"]; (cp.unknown || cp.v.Str != "") && !filepath.IsAbs(target.s) &&
		!strings.HasPrefix(target.s, "./") && !strings.HasPrefix(target.s, "../") && target.s != "." && target.s != ".." {
		a.fail("%s searches $CDPATH", name)
		return
	}
	a.path(st, target, decide.List, false, name)
	var dirs []string
	fails := false
	for _, d := range st.dirs {
		p := a.abs(d, target.s)
		dirs = append(dirs, p)
		if !a.isDir(p) {
			fails = true
		}
	}
	if fails {
		dirs = append(dirs, st.dirs...) // cd may fail and leave it where it was
	}
	old := variable{unknown: true}
	if len(st.dirs) == 1 {
		old = variable{v: expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: st.dirs[0]}}
	}
	st.vars["OLDPWD"] = old
	st.dirs = nil
	for _, d := range dirs {
		st.addDir(d)
	}
	if len(st.dirs) > maxDirs {
		a.fail("the command may run in more than %d directories", maxDirs)
	}
}

// chdir is a command's own -C DIR: it runs there, or not at all.
func (a *analyzer) chdir(st *state, dir word, name string) *state {
	c := st.copy()
	if dir.unknown {
		a.fail("%s -C gets a directory picket cannot expand", name)
		return c
	}
	c.dirs = nil
	for _, d := range st.dirs {
		c.addDir(a.abs(d, dir.s))
	}
	return c
}

func (a *analyzer) popd(st, env *state, name string, args []word, stdin input) {
	a.fail("popd returns to a directory picket does not track")
}

func (a *analyzer) source(st, env *state, name string, args []word, stdin input) {
	if len(args) == 0 {
		return
	}
	a.path(st, args[0], decide.Read, false, name)
	for _, w := range args[1:] {
		a.path(st, w, decide.Read, false, name)
	}
	// What the file does is not seen; it may set anything.
	for k := range st.vars {
		st.vars[k] = variable{unknown: true}
	}
}

func (a *analyzer) readVars(st, env *state, name string, args []word, stdin input) {
	valued := map[string]string{"read": "adeinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}[name]
	var names []string
	for i := 0; i < len(args); i++ {
		s := args[i].s
		if strings.HasPrefix(s, "-") && name != "getopts" {
			if last := s[len(s)-1:]; strings.Contains(valued, last) && len(s) == 2 {
				if last == "a" || last == "v" {
					if i+1 < len(args) {
						names = append(names, args[i+1].s)
					}
				}
				i++
			}
			continue
		}
		names = append(names, s)
	}
	switch {
	case name == "getopts" && len(names) > 1:
		names = names[1:2]
		st.vars["OPTARG"] = variable{unknown: true}
		st.vars["OPTIND"] = variable{unknown: true}
	case len(names) == 0 && name == "read":
		names = []string{"REPLY"}
	case len(names) == 0:
		names = []string{"MAPFILE"}
	case name == "mapfile" || name == "readarray":
		names = names[len(names)-1:]
	}
	for _, n := range names {
		st.vars[n] = variable{unknown: true}
	}
}

func (a *analyzer) unset(st, env *state, name string, args []word, stdin input) {
	fn := false
	for _, w := range args {
		switch {
		case w.unknown:
			a.fail("unset gets a name picket cannot expand")
			return
		case w.s == "-f":
			fn = true
		case w.s == "-v" || w.s == "-n":
		case fn:
			delete(st.funcs, w.s)
		default:
			st.vars[w.s] = variable{v: expand.Variable{}}
		}
	}
}

func setShopt(o *globOpts, name string, on bool) bool {
	switch name {
	case "dotglob":
		o.dotglob = o.dotglob || on
	case "globstar":
		o.globstar = o.globstar || on
	case "nullglob":
		o.nullglob = o.nullglob || on
	case "nocaseglob":
		o.nocaseglob = o.nocaseglob || on
	case "extglob":
		o.extglob = o.extglob || on
	case "failglob":
		o.failglob = o.failglob || on
	case "expand_aliases", "cdable_vars":
		return !on
	}
	return true
}

func (a *analyzer) shopt(st, env *state, name string, args []word, stdin input) {
	on := true
	for _, w := range args {
		switch w.s {
		case "-s":
			on = true
		case "-u":
			on = false
		case "-o", "-p", "-q":
		default:
			if w.unknown || !setShopt(&st.opts, w.s, on) {
				a.fail("shopt %s changes how picket would read the rest", w.s)
				return
			}
		}
	}
}

func (a *analyzer) set(st, env *state, name string, args []word, stdin input) {
	for i, w := range args {
		if w.unknown {
			a.fail("set gets an option picket cannot expand")
			return
		}
		if w.s == "--" || !strings.HasPrefix(w.s, "-") && !strings.HasPrefix(w.s, "+") {
			pos := []string{saved0(st.pos)}
			start := i
			if w.s == "--" {
				start++
			}
			for _, p := range args[start:] {
				if p.unknown {
					st.pos = nil
					return
				}
				pos = append(pos, p.s)
			}
			st.pos = pos
			return
		}
		if strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "a") && w.s != "-o" {
			// allexport: later assignments are exported
			for k, v := range st.vars {
				if !v.unknown {
					v.v.Exported = true
					st.vars[k] = v
				}
			}
		}
	}
}

func (a *analyzer) trap(st, env *state, name string, args []word, stdin input) {
	if len(args) < 2 || args[0].s == "-" || strings.HasPrefix(args[0].s, "-") {
		return
	}
	if args[0].unknown {
		a.fail("trap runs a command picket cannot expand")
		return
	}
	a.script(st.copy(), args[0].s)
}

func (a *analyzer) let(st, env *state, name string, args []word, stdin input) {
	for _, w := range args {
		if n, _, ok := strings.Cut(w.s, "="); ok {
			st.vars[strings.TrimRight(n, "+-*/%&|^<>")] = variable{unknown: true}
		}
	}
}

func (a *analyzer) test(st, env *state, name string, args []word, stdin input) {
	for i, w := range args {
		if i > 0 && !args[i-1].unknown && isFileTest(args[i-1].s) {
			a.path(st, w, decide.List, false, name)
		}
	}
}

func isFileTest(s string) bool {
	return len(s) == 2 && s[0] == '-' && strings.ContainsRune("abcdefghkpLrsStuwxOGN", rune(s[1]))
}

func (a *analyzer) declLike(st, env *state, name string, args []word, stdin input) {
	export := name == "export"
	for _, w := range args {
		if w.unknown {
			a.fail("%s gets a word picket cannot expand", name)
			return
		}
		if strings.HasPrefix(w.s, "-") {
			if strings.Contains(w.s, "x") {
				export = true
			}
			continue
		}
		n, v, ok := strings.Cut(w.s, "=")
		if !ok {
			if old, had := st.vars[n]; had && export && !old.unknown {
				old.v.Exported = true
				st.vars[n] = old
			}
			continue
		}
		st.vars[n] = variable{v: expand.Variable{Set: true, Kind: expand.String, Str: v, Exported: export}}
	}
}

// exec replaces the shell with a command; without one, its redirections
// (already judged) apply to the shell.
func (a *analyzer) exec(st, env *state, name string, args []word, stdin input) {
	i := 0
	for ; i < len(args); i++ {
		s := args[i].s
		if s == "-a" {
			i++
			continue
		}
		if s == "--" {
			i++
			break
		}
		if !strings.HasPrefix(s, "-") || args[i].unknown {
			break
		}
	}
	a.run(st, env, args[i:], stdin)
}

func (a *analyzer) commandBuiltin(st, env *state, name string, args []word, stdin input) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].s, "-") && !args[i].unknown; i++ {
		if strings.ContainsAny(args[i].s, "vV") {
			return // only looks the command up
		}
		if args[i].s == "--" {
			i++
			break
		}
	}
	a.run(st, env, args[i:], stdin)
}

func (a *analyzer) builtin(st, env *state, name string, args []word, stdin input) {
	if len(args) == 0 {
		return
	}
	if r, ok := lookup(args[0].s); ok && !args[0].unknown {
		r(a, st, env, args[0].s, args[1:], stdin)
		return
	}
	a.fail("builtin %s is not analysed", args[0].s)
}

// envCmd is env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... CMD.
func (a *analyzer) envCmd(st, env *state, name string, args []word, stdin input) {
	child := env.copy()
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if w.unknown {
			a.fail("env gets a word picket cannot expand")
			return
		}
		s := w.s
		switch {
		case s == "-i" || s == "--ignore-environment" || s == "-":
			child.vars = map[string]variable{}
		case s == "-u" || s == "--unset":
			if i+1 < len(args) {
				i++
				delete(child.vars, args[i].s)
			}
		case strings.HasPrefix(s, "--unset="):
			delete(child.vars, strings.TrimPrefix(s, "--unset="))
		case s == "-C" || s == "--chdir" || strings.HasPrefix(s, "--chdir="):
			dir := strings.TrimPrefix(s, "--chdir=")
			if s == "-C" || s == "--chdir" {
				if i+1 >= len(args) {
					return
				}
				i++
				dir = args[i].s
			}
			child = a.chdir(child, known(dir), name)
			st = a.chdir(st, known(dir), name)
		case s == "-S" || strings.HasPrefix(s, "--split-string") || strings.HasPrefix(s, "-S"):
			a.fail("env -S splits a string picket does not analyse")
			return
		case s == "--":
			i++
			goto done
		case strings.HasPrefix(s, "-"):
			// -0, -v, --debug ...
		case strings.Contains(s, "="):
			n, v, _ := strings.Cut(s, "=")
			child.vars[n] = variable{v: expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}}
		default:
			goto done
		}
	}
done:
	if i >= len(args) {
		return // prints the environment
	}
	for ; i < len(args) && !args[i].unknown && strings.Contains(args[i].s, "=") && !strings.Contains(strings.SplitN(args[i].s, "=", 2)[0], "/"); i++ {
		n, v, _ := strings.Cut(args[i].s, "=")
		child.vars[n] = variable{v: expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}}
	}
	a.run(st, child, args[i:], stdin)
}

// wrapper makes the runner of a command that runs the rest of its
// arguments: short options that take a value, and long ones.
func wrapper(short, long string) runner {
	longs := strings.Fields(long)
	return func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		i := skipOptions(args, short, longs)
		if i < 0 {
			a.fail("%s gets an option picket cannot expand", name)
			return
		}
		a.run(st, env, args[i:], stdin)
	}
}

// skipOptions returns the index of the first operand, or -1 when an
// option is unknown.
func skipOptions(args []word, short string, longs []string) int {
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if w.unknown {
			return -1
		}
		s := w.s
		if s == "--" {
			return i + 1
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			return i
		}
		if strings.HasPrefix(s, "--") {
			n := strings.TrimPrefix(s, "--")
			if !strings.Contains(n, "=") && contains(longs, n) {
				i++
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			if strings.IndexByte(short, s[j]) >= 0 {
				if j == len(s)-1 {
					i++
				}
				break
			}
		}
	}
	return i
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (a *analyzer) sudo(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "ugCDhpgrtTU", strings.Fields("user group close-from chdir host prompt role type command-timeout other-user"))
	if i < 0 {
		a.fail("%s gets an option picket cannot expand", name)
		return
	}
	for _, w := range args[:i] {
		if w.s == "-e" || w.s == "--edit" {
			for _, f := range args[i:] {
				a.path(st, f, decide.Write, false, name)
			}
			return
		}
		if w.s == "-D" || strings.HasPrefix(w.s, "--chdir") {
			a.fail("%s --chdir is not analysed", name)
			return
		}
	}
	a.run(st, a.childState(env), args[i:], stdin)
}

func (a *analyzer) timeout(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "sk", []string{"signal", "kill-after"})
	if i < 0 || i >= len(args) {
		return
	}
	a.run(st, env, args[i+1:], stdin) // args[i] is the duration
}

func (a *analyzer) chrt(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "T", []string{"sched-runtime", "sched-deadline", "sched-period"})
	if i < 0 || i >= len(args) {
		return
	}
	a.run(st, env, args[i+1:], stdin) // the priority
}

func (a *analyzer) taskset(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "", nil)
	if i < 0 || i >= len(args) {
		return
	}
	a.run(st, env, args[i+1:], stdin) // the mask
}

func (a *analyzer) busybox(st, env *state, name string, args []word, stdin input) {
	a.run(st, env, args, stdin)
}

func (a *analyzer) watch(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "ndq", []string{"interval", "differences", "equexit"})
	if i < 0 {
		a.fail("watch gets an option picket cannot expand")
		return
	}
	a.shellString(st, env, name, args[i:])
}

// shellString runs words joined with spaces as sh -c does (watch, su -c).
func (a *analyzer) shellString(st, env *state, name string, args []word) {
	var parts []string
	for _, w := range args {
		if w.unknown {
			a.fail("%s runs a command picket cannot expand", name)
			return
		}
		parts = append(parts, w.s)
	}
	if len(parts) == 0 {
		return
	}
	a.script(a.childState(env), strings.Join(parts, " "))
}

func (a *analyzer) flock(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "wEc", []string{"timeout", "conflict-exit-code", "command"})
	if i < 0 {
		a.fail("flock gets an option picket cannot expand")
		return
	}
	for j := 0; j < i; j++ {
		if args[j].s == "-c" || args[j].s == "--command" {
			if j+1 < len(args) {
				if i < len(args) {
					a.path(st, args[i], decide.Write, false, name)
				}
				a.shellString(st, env, name, args[j+1:j+2])
				return
			}
		}
	}
	if i >= len(args) {
		return
	}
	a.path(st, args[i], decide.Write, false, name)
	a.run(st, env, args[i+1:], stdin)
}

func (a *analyzer) su(st, env *state, name string, args []word, stdin input) {
	for i, w := range args {
		if (w.s == "-c" || w.s == "--command") && i+1 < len(args) {
			a.shellString(st, env, name, args[i+1:i+2])
			return
		}
		if strings.HasPrefix(w.s, "--command=") {
			a.shellString(st, env, name, []word{known(strings.TrimPrefix(w.s, "--command="))})
			return
		}
	}
	a.fail("%s starts a shell whose commands picket cannot see", name)
}

// xargs appends words it reads from standard input: unknown to picket.
func (a *analyzer) xargs(st, env *state, name string, args []word, stdin input) {
	i := skipOptions(args, "adEeIiLlnPs", strings.Fields("arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var"))
	if i < 0 {
		a.fail("xargs gets an option picket cannot expand")
		return
	}
	for j := 0; j < i; j++ {
		if (args[j].s == "-a" || args[j].s == "--arg-file") && j+1 < len(args) {
			a.path(st, args[j+1], decide.Read, false, name)
		}
	}
	cmd := append([]word(nil), args[i:]...)
	if len(cmd) == 0 {
		cmd = []word{known("echo")}
	}
	for j := range cmd[1:] {
		if strings.Contains(cmd[j+1].s, "{}") {
			cmd[j+1] = word{unknown: true}
		}
	}
	cmd = append(cmd, word{unknown: true})
	a.run(st, env, cmd, input{})
}

// applyPatch is Codex's apply_patch run through the shell: the patch is
// its argument or its standard input.
func (a *analyzer) applyPatch(st, env *state, name string, args []word, stdin input) {
	text := ""
	switch {
	case len(args) == 1 && !args[0].unknown:
		text = args[0].s
	case len(args) == 0 && stdin.set && stdin.known:
		text = stdin.text
	default:
		a.fail("%s gets a patch picket cannot see", name)
		return
	}
	ts, err := patch.Parse(text)
	if err != nil {
		a.fail("%s: %v", name, err)
		return
	}
	for _, t := range ts {
		a.path(st, known(t.Path), decide.Write, false, name)
	}
}

func (a *analyzer) patchCmd(st, env *state, name string, args []word, stdin input) {
	for _, w := range args {
		if w.s == "--dry-run" || w.s == "-C" || w.s == "--check" {
			a.generic(st, name, args)
			return
		}
	}
	a.fail("patch writes the files its diff names, which picket does not read")
}
