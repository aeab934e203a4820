package shellcmd

import (
	"strings"

	"github.com/picketdev/picket/decide"
)

// git: only what it plainly reads or writes by name; the repository's own
// files are the sandbox's.
func (a *analyzer) git(st, env *state, name string, args []word, stdin input) {
	dir, i, ok := a.gitGlobal(st, args)
	if !ok || i >= len(args) {
		return
	}
	a.gitSub(dir, args[i].s, args[i+1:])
}

// gitGlobal reads git's options before its subcommand: the directory -C
// names, and the index of the subcommand. Options that point git at other
// configuration or another repository are not analysed.
func (a *analyzer) gitGlobal(st *state, args []word) (*state, int, bool) {
	dir := st
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.unknown {
			a.fail("git gets an option picket cannot expand")
			return nil, 0, false
		}
		n, _, _ := strings.Cut(w.s, "=")
		switch {
		case w.s == "-C" && i+1 < len(args):
			i++
			dir = a.chdir(dir, args[i], "git")
		case w.s == "-c" || n == "--git-dir" || n == "--work-tree" || n == "--namespace" || n == "--exec-path" || n == "--config-env":
			a.fail("git %s is not analysed", n)
			return nil, 0, false
		case !strings.HasPrefix(w.s, "-"):
			return dir, i, true
		}
	}
	return dir, len(args), true
}

func (a *analyzer) gitSub(dir *state, sub string, rest []word) {
	cmd := "git " + sub
	switch sub {
	case "grep":
		opts, ops, _ := options(rest, "efABCm", strings.Fields("regexp file after-context before-context context max-count"))
		if !has(opts, "-e", "-f", "--regexp", "--file") && len(ops) > 0 {
			ops = ops[1:]
		}
		if len(ops) == 0 {
			ops = []word{known(".")}
		}
		for _, w := range ops {
			a.path(dir, w, decide.Read, true, cmd)
		}
	case "rm", "mv", "checkout", "restore", "clean", "reset":
		_, ops, _ := options(rest, "bBmf", strings.Fields("source pathspec-from-file"))
		if len(ops) == 0 && (sub == "clean" || sub == "reset") {
			ops = []word{known(".")}
		}
		for _, w := range ops {
			a.path(dir, w, decide.Write, sub != "mv", cmd)
		}
	case "clone":
		_, ops, _ := options(rest, "obuc", strings.Fields("origin branch upload-pack template config depth reference separate-git-dir jobs filter"))
		if len(ops) >= 2 {
			a.path(dir, ops[1], decide.Write, true, cmd)
		}
	case "apply", "am":
		a.fail("git %s writes the files its patch names, which picket does not read", sub)
	case "config":
		opts, _, _ := options(rest, "f", strings.Fields("file blob type default"))
		if !has(opts, "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--get-urlmatch") {
			a.fail("git config writes configuration that runs programs")
		}
	default:
		a.gitOperands(dir, sub, rest)
	}
}

// gitOperands judges the operands of git's other subcommands as reads
// (git diff --no-index a b, git add f), and REV:path as a read of path
// (git show HEAD:.env).
func (a *analyzer) gitOperands(dir *state, sub string, rest []word) {
	_, ops, _ := options(rest, "mCcFSuOo", strings.Fields("message file author date format pretty template reuse-message output"))
	reads := contains(strings.Fields("diff add show cat-file blame annotate log hash-object stage notes format-patch"), sub)
	for _, w := range ops {
		if w.unknown && !reads {
			continue // a branch or remote name (git push origin $(...))
		}
		a.path(dir, w, decide.Read, false, "git "+sub)
		if _, p, ok := strings.Cut(w.s, ":"); ok && !w.unknown && p != "" {
			a.path(dir, known(strings.TrimPrefix(p, "./")), decide.Read, false, "git "+sub)
		}
	}
}
