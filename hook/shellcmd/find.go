package shellcmd

import (
	"strings"

	"github.com/picketdev/picket/decide"
)

// find lists below its starting points; its actions read (-exec),
// delete (-delete) or write (-fprint) what it finds.
func (a *analyzer) find(st, env *state, name string, args []word, stdin input) {
	starts, expr := findStarts(args)
	acc := decide.List
	for j := 0; j < len(expr) && a.err == nil; j++ {
		w := expr[j]
		if w.unknown {
			continue
		}
		switch w.s {
		case "-delete":
			for _, s := range starts {
				a.path(st, s, decide.Write, true, name)
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf", "-files0-from":
			if j+1 < len(expr) {
				j++
				acc := decide.Write
				if w.s == "-files0-from" {
					acc = decide.Read
				}
				a.path(st, expr[j], acc, false, name)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(expr) && expr[k].s != ";" && expr[k].s != "+" {
				k++
			}
			if k > j+1 {
				acc = decide.Read
				a.findExec(st, env, w.s, expr[j+1:k], starts)
			}
			j = k
		}
	}
	for _, s := range starts {
		a.path(st, s, acc, true, name)
	}
}

// findStarts splits find's words into its starting points ("." when none)
// and its expression, skipping the options before them.
func findStarts(args []word) (starts, expr []word) {
	i := 0
	for ; i < len(args); i++ {
		s := args[i].s
		if s == "-D" {
			i++
			continue
		}
		if s != "-H" && s != "-L" && s != "-P" && !strings.HasPrefix(s, "-O") {
			break
		}
	}
	for ; i < len(args); i++ {
		s := args[i].s
		if !args[i].unknown && (strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ",") {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{known(".")}
	}
	return starts, args[i:]
}

// findExec runs an -exec command once for each starting point, its "{}"
// standing for every path below it.
func (a *analyzer) findExec(st, env *state, action string, cmd, starts []word) {
	if (action == "-execdir" || action == "-okdir") && !onlyPlaceholders(cmd[1:]) {
		a.fail("find %s runs a command in each directory it finds", action)
		return
	}
	for _, s := range starts {
		argv := make([]word, len(cmd))
		for n, c := range cmd {
			switch {
			case c.unknown:
				argv[n] = c
			case c.s == "{}":
				argv[n] = word{s: s.s, unknown: s.unknown, recursive: true}
			case strings.Contains(c.s, "{}"):
				argv[n] = word{unknown: true}
			default:
				argv[n] = c
			}
		}
		a.run(st, env, argv, input{})
	}
}

func onlyPlaceholders(ws []word) bool {
	for _, w := range ws {
		if w.unknown || w.s != "{}" && !strings.HasPrefix(w.s, "-") {
			return false
		}
	}
	return true
}
