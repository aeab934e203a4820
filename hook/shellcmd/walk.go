package shellcmd

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/picketdev/picket/decide"
)

// analyzer walks one command line.
type analyzer struct {
	env        Env
	fs         FS
	maxEntries int
	entries    int
	overBudget bool // globbing read past maxEntries
	steps      int  // statements walked
	arith      bool // a script walked uses arithmetic (see checkFile)
	out        []Target
	seen       map[targetKey]bool
	cmds       []Command
	written    map[string]bool // cleaned absolute paths written so far
	err        error
}

func newAnalyzer(env Env) *analyzer {
	a := &analyzer{env: env, fs: env.FS, maxEntries: env.MaxEntries, seen: map[targetKey]bool{}, written: map[string]bool{}}
	if a.fs == nil {
		a.fs = OS
	}
	if a.maxEntries <= 0 {
		a.maxEntries = DefaultMaxEntries
	}
	return a
}

// topState is the state the command line starts in: the given
// environment, exported, and no positional parameters (bash -c CMD).
func (a *analyzer) topState() *state {
	st := &state{dirs: []string{a.env.Cwd}, vars: map[string]variable{}, pos: []string{"bash"}, funcs: map[string]*syntax.Stmt{}}
	for k, v := range a.env.Vars {
		st.vars[k] = variable{v: expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}}
	}
	if _, ok := st.vars["HOME"]; !ok && a.env.Home != "" {
		st.vars["HOME"] = variable{v: expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: a.env.Home}}
	}
	delete(st.vars, "PWD")
	return st
}

func (a *analyzer) fail(format string, args ...any) {
	if a.err == nil {
		a.err = unanalysable(format, args...)
	}
}

// deeper enters a nested shell, function or trap; false past maxDepth.
func (a *analyzer) deeper(st *state) bool {
	if st.depth >= maxDepth {
		a.fail("it nests shells, functions or loops more than %d deep", maxDepth)
		return false
	}
	st.depth++
	return true
}

func (a *analyzer) stmts(st *state, list []*syntax.Stmt) {
	for _, s := range list {
		if a.err != nil {
			return
		}
		a.stmt(st, s)
	}
}

func (a *analyzer) stmt(st *state, s *syntax.Stmt) {
	// Functions, loops and nested shells can multiply the work: bound it.
	if a.steps++; a.steps > maxSteps {
		a.fail("it runs more than %d commands as picket unrolls it", maxSteps)
		return
	}
	if s.Background || s.Coprocess {
		st = st.copy() // a background job is a subshell
	}
	stdin := a.redirects(st, s.Redirs, cmdName(s.Cmd))
	if s.Cmd != nil {
		a.command(st, s.Cmd, stdin)
	}
	a.checkVars(st)
}

// checkVars fails when arithmetic could evaluate a variable that holds
// shell code (see checkFile).
func (a *analyzer) checkVars(st *state) {
	if !a.arith || a.err != nil {
		return
	}
	for k, v := range st.vars {
		if !v.unknown && (holdsCode(v.v.Str) || slices.ContainsFunc(v.v.List, holdsCode)) {
			a.fail("$%s holds shell code, which bash's arithmetic would run", k)
			return
		}
	}
}

// cmdName names a command for its targets.
func cmdName(c syntax.Command) string {
	if ce, ok := c.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
		if l := ce.Args[0].Lit(); l != "" {
			return filepath.Base(l)
		}
	}
	return "redirection"
}

// input is what a command reads on standard input when picket knows it
// (a here-document or here-string), for shells and apply_patch.
type input struct {
	text  string
	known bool
	set   bool // stdin is redirected at all
}

func (a *analyzer) redirects(st *state, rs []*syntax.Redirect, cmd string) input {
	var in input
	for _, r := range rs {
		a.substs(st, r.Word)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			a.substs(st, r.Hdoc)
			in = input{set: true}
			if quotedDelim(r.Word) {
				in.text, in.known = hdocLiteral(r.Hdoc), true
			} else {
				in.text, in.known = a.document(st, r.Hdoc)
			}
			continue
		case syntax.WordHdoc:
			s, ok := a.literal(st, r.Word)
			in = input{text: s + "\n", known: ok, set: true}
			continue
		}
		ws := a.fields(st, r.Word)
		if len(ws) != 1 && a.err == nil {
			a.fail("a redirection's word %q expands to %d words", wordText(r.Word), len(ws))
			return in
		}
		for _, w := range ws {
			switch r.Op {
			case syntax.RdrIn:
				a.path(st, w, decide.Read, false, "redirection")
				in = input{set: true}
			case syntax.RdrInOut:
				a.path(st, w, decide.Write, false, "redirection")
				in = input{set: true}
			case syntax.DplIn, syntax.DplOut:
				if w.unknown || !isFD(w.s) {
					acc := decide.Write
					if r.Op == syntax.DplIn {
						acc = decide.Read
						in = input{set: true}
					}
					a.path(st, w, acc, false, "redirection")
				}
			default: // >, >>, >|, &>, &>>
				a.path(st, w, decide.Write, false, "redirection")
			}
		}
	}
	return in
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	_, ok := digits(s)
	return ok
}

func quotedDelim(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(p.(*syntax.Lit).Value, `\`) {
				return true
			}
		}
	}
	return false
}

func hdocLiteral(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var sb strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			sb.WriteString(l.Value)
		}
	}
	return sb.String()
}

func wordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, w)
	return sb.String()
}

// substs walks the command and process substitutions inside a node, each
// in a subshell of st.
func (a *analyzer) substs(st *state, n syntax.Node) {
	if n == nil || isNilNode(n) {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			a.stmts(st.copy(), x.Stmts)
			return false
		case *syntax.ProcSubst:
			a.stmts(st.copy(), x.Stmts)
			return false
		}
		return a.err == nil
	})
}

func isNilNode(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.Word:
		return x == nil
	case syntax.ArithmExpr:
		return x == nil
	case syntax.TestExpr:
		return x == nil
	}
	return false
}

func (a *analyzer) command(st *state, c syntax.Command, stdin input) {
	switch x := c.(type) {
	case *syntax.CallExpr:
		a.call(st, x, stdin)
	case *syntax.Block:
		a.stmts(st, x.Stmts)
	case *syntax.Subshell:
		a.stmts(st.copy(), x.Stmts)
	case *syntax.BinaryCmd:
		a.binary(st, x)
	case *syntax.IfClause:
		a.ifClause(st, x)
	case *syntax.WhileClause:
		a.loop(st, func(s *state) { a.stmts(s, x.Cond); a.stmts(s, x.Do) })
	case *syntax.ForClause:
		a.forClause(st, x)
	case *syntax.CaseClause:
		a.substs(st, x.Word)
		before := st.copy()
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				a.substs(st, p)
			}
			b := before.copy()
			a.stmts(b, it.Stmts)
			st.merge(b)
		}
	case *syntax.FuncDecl:
		st.funcs[x.Name.Value] = x.Body
	case *syntax.ArithmCmd:
		a.substs(st, x.X)
		a.arithmAssigns(st, x.X)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			a.substs(st, e)
			a.arithmAssigns(st, e)
		}
	case *syntax.TestClause:
		a.substs(st, x.X)
		a.testPaths(st, x.X)
	case *syntax.DeclClause:
		a.decl(st, x)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			a.stmt(st, x.Stmt)
		}
	case *syntax.CoprocClause:
		a.stmt(st.copy(), x.Stmt)
	default:
		a.fail("it uses a construct picket does not analyse (%T)", c)
	}
}

func (a *analyzer) binary(st *state, x *syntax.BinaryCmd) {
	switch x.Op {
	case syntax.Pipe, syntax.PipeAll:
		// Each side runs in a subshell.
		a.stmt(st.copy(), x.X)
		a.stmt(st.copy(), x.Y)
	default: // && and ||: Y runs or not, after X (whose walk already
		// holds its failures: a cd that may fail keeps the old directory)
		a.stmt(st, x.X)
		after := st.copy()
		a.stmt(st, x.Y)
		st.merge(after)
	}
}

func (a *analyzer) ifClause(st *state, x *syntax.IfClause) {
	a.stmts(st, x.Cond)
	before := st.copy()
	a.stmts(st, x.Then)
	if x.Else != nil {
		e := before.copy()
		a.ifClause(e, x.Else)
		st.merge(e)
	} else {
		st.merge(before)
	}
}

// loop walks a loop body until what it knows stops changing: each pass
// may start where the last one left off.
func (a *analyzer) loop(st *state, body func(*state)) {
	if !a.deeper(st) {
		return
	}
	defer func() { st.depth-- }()
	for range 4 {
		s := st.copy()
		body(s)
		if a.err != nil {
			return
		}
		before := len(st.dirs)
		was := st.copy()
		st.merge(s)
		if len(st.dirs) > maxDirs {
			a.fail("a loop changes directory to more than %d places", maxDirs)
			return
		}
		if len(st.dirs) == before && sameVars(was, st) {
			return
		}
	}
	a.fail("a loop keeps changing its directory or variables")
}

func sameVars(a, b *state) bool {
	if len(a.vars) != len(b.vars) {
		return false
	}
	for k, v := range a.vars {
		w, ok := b.vars[k]
		if !ok || v.unknown != w.unknown || !v.unknown && !sameVar(v, w) {
			return false
		}
	}
	return true
}

// maxLoopItems bounds the items a for loop is walked once for each.
const maxLoopItems = 64

func (a *analyzer) forClause(st *state, x *syntax.ForClause) {
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		var items []word
		if l.InPos.IsValid() {
			for _, w := range l.Items {
				a.substs(st, w)
				items = append(items, a.fields(st, w)...)
			}
		} else if st.pos != nil {
			for _, p := range st.pos[1:] {
				items = append(items, known(p))
			}
		} else {
			items = []word{{unknown: true}}
		}
		if len(items) > maxLoopItems {
			items = []word{{unknown: true}}
		}
		name := l.Name.Value
		a.loop(st, func(s *state) {
			for _, it := range items {
				b := s.copy()
				b.setVar(name, it)
				a.stmts(b, x.Do)
				s.merge(b)
			}
		})
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				a.substs(st, e)
				a.arithmAssigns(st, e)
			}
		}
		a.loop(st, func(s *state) { a.stmts(s, x.Do) })
	}
}

func (st *state) setVar(name string, w word) {
	if w.unknown {
		st.vars[name] = variable{unknown: true}
		return
	}
	old := st.vars[name].v
	st.vars[name] = variable{v: expand.Variable{Set: true, Kind: expand.String, Str: w.s, Exported: old.Exported}}
}

// arithmAssigns makes every variable an arithmetic expression assigns
// unknown.
func (a *analyzer) arithmAssigns(st *state, e syntax.ArithmExpr) {
	syntax.Walk(e, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if x.Op >= syntax.Assgn && x.Op <= syntax.ShrAssgn {
				if w, ok := x.X.(*syntax.Word); ok {
					if l := w.Lit(); l != "" {
						st.vars[l] = variable{unknown: true}
					}
				}
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				if w, ok := x.X.(*syntax.Word); ok {
					if l := w.Lit(); l != "" {
						st.vars[l] = variable{unknown: true}
					}
				}
			}
		}
		return true
	})
}

// testPaths lists the operands of [[ ... ]] that test files.
func (a *analyzer) testPaths(st *state, e syntax.TestExpr) {
	syntax.Walk(e, func(n syntax.Node) bool {
		if u, ok := n.(*syntax.UnaryTest); ok && u.Op >= syntax.TsExists && u.Op <= syntax.TsSocket {
			if w, ok := u.X.(*syntax.Word); ok {
				for _, f := range a.fields(st, w) {
					a.path(st, f, decide.List, false, "[[")
				}
			}
		}
		return a.err == nil
	})
}

func (a *analyzer) decl(st *state, x *syntax.DeclClause) {
	export := x.Variant.Value == "export"
	for _, as := range x.Args {
		if as.Name == nil {
			// An option word: -x exports, -n makes a name reference.
			if s, ok := a.literal(st, as.Value); ok && strings.HasPrefix(s, "-") {
				if strings.Contains(s, "x") {
					export = true
				}
				if strings.ContainsAny(s, "nA") {
					a.fail("%s %s is not analysed", x.Variant.Value, s)
				}
			}
			continue
		}
		if as.Naked {
			if v, ok := st.vars[as.Name.Value]; ok && export && !v.unknown {
				v.v.Exported = true
				st.vars[as.Name.Value] = v
			}
			continue
		}
		a.assign(st, as, export)
	}
}

// assign applies one assignment to st.
func (a *analyzer) assign(st *state, as *syntax.Assign, export bool) {
	a.substs(st, as.Value)
	name := as.Name.Value
	if as.Array != nil || as.Index != nil || as.Append {
		if as.Array != nil {
			for _, el := range as.Array.Elems {
				a.substs(st, el.Value)
			}
		}
		v, ok := a.array(st, as)
		if !ok {
			st.vars[name] = variable{unknown: true}
			return
		}
		v.Exported = export || st.vars[name].v.Exported
		st.vars[name] = variable{v: v}
		return
	}
	s, ok := a.literal(st, as.Value)
	if !ok {
		st.vars[name] = variable{unknown: true}
		return
	}
	st.vars[name] = variable{v: expand.Variable{Set: true, Kind: expand.String, Str: s, Exported: export || st.vars[name].v.Exported}}
}

// array evaluates a plain indexed array assignment, a=(x y z).
func (a *analyzer) array(st *state, as *syntax.Assign) (expand.Variable, bool) {
	if as.Array == nil || as.Index != nil || as.Append {
		return expand.Variable{}, false
	}
	var list []string
	for _, el := range as.Array.Elems {
		if el.Index != nil || el.Value == nil {
			return expand.Variable{}, false
		}
		for _, w := range a.fields(st, el.Value) {
			if w.unknown {
				return expand.Variable{}, false
			}
			list = append(list, w.s)
		}
	}
	return expand.Variable{Set: true, Kind: expand.Indexed, List: list}, true
}

// path reports one word as a target of every directory the command may
// run in. A read or list of a path that neither exists, nor lies in the
// workspace, nor was written earlier in the command line, is left out: it
// names no file (a pattern, a message, a URL).
func (a *analyzer) path(st *state, w word, acc decide.Access, rec bool, cmd string) {
	if w.proc || a.err != nil {
		return
	}
	if w.unknown {
		a.fail("%s gets an argument picket cannot expand (a variable it does not know, or a command's output)", cmd)
		return
	}
	if w.s == "" || w.s == "-" && acc != decide.Write {
		return
	}
	rec = rec || w.recursive
	for _, dir := range st.dirs {
		p := w.s
		if !filepath.IsAbs(p) {
			p = strings.TrimSuffix(dir, "/") + "/" + p
		}
		if acc != decide.Write && !a.names(p) {
			continue
		}
		a.add(Target{Access: acc, Path: p, Recursive: rec, Cmd: cmd})
		if acc == decide.Write {
			a.written[filepath.Clean(p)] = true
		}
	}
}

// names reports whether p names a file picket must judge.
func (a *analyzer) names(p string) bool {
	c := filepath.Clean(p)
	if a.env.Root != "" && (c == a.env.Root || strings.HasPrefix(c, strings.TrimSuffix(a.env.Root, "/")+"/")) {
		return true
	}
	for d := c; ; d = filepath.Dir(d) {
		if a.written[d] {
			return true
		}
		if d == "/" || d == "." {
			break
		}
	}
	_, err := a.fs.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// targetKey is a target without the command that names it: the same
// access twice is judged once.
type targetKey struct {
	acc  decide.Access
	path string
	rec  bool
}

func (a *analyzer) add(t Target) {
	k := targetKey{t.Access, t.Path, t.Recursive}
	if a.seen[k] {
		return
	}
	if len(a.out) >= MaxTargets {
		a.fail("it names more than %d paths", MaxTargets)
		return
	}
	a.seen[k] = true
	a.out = append(a.out, t)
}

// isDir reports whether p is an existing directory (following links).
func (a *analyzer) isDir(p string) bool {
	_, err := a.fs.ReadDir(p)
	return err == nil
}

func (a *analyzer) abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return strings.TrimSuffix(dir, "/") + "/" + p
}

// checkFile looks at a parsed script before it is walked: bash runs code
// picket would not see through ${x@P} (prompt expansion runs command
// substitutions in x's value) and through arithmetic, which evaluates a
// variable's value as an expression, array subscripts and their command
// substitutions included (x='a[$(cmd)]'; echo $((x))).
func (a *analyzer) checkFile(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(x.Exp.Word.Lit(), "P") {
				a.fail("${...@P} runs the command substitutions a variable holds")
				return false
			}
			if x.Index != nil || x.Slice != nil {
				a.arith = true
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			a.arith = true
		case *syntax.BinaryTest:
			if x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr {
				a.arith = true
			}
		case *syntax.Assign:
			if x.Index != nil {
				a.arith = true
			}
		case *syntax.DeclClause:
			a.arith = true // declare -i evaluates assignments
		case *syntax.Lit:
			switch x.Value {
			case "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "let", "declare", "typeset", "local", "export", "readonly":
				a.arith = true
			}
		}
		return a.err == nil
	})
}

// holdsCode reports a value arithmetic would run code from.
func holdsCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`")
}
