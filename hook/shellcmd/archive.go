package shellcmd

import (
	"strings"

	"github.com/picketdev/picket/decide"
)

// tar: c creates (reads its operands, writes the archive), x extracts
// (reads the archive, writes below -C or the working directory), t lists.
func (a *analyzer) tar(st, env *state, name string, args []word, stdin input) {
	args = append([]word(nil), args...)
	if len(args) > 0 && !args[0].unknown && !strings.HasPrefix(args[0].s, "-") {
		args[0] = known("-" + args[0].s) // old style: "czf out.tgz"
	}
	opts, ops, ok := options(args, "fCTXbFgHIKLNVsS", strings.Fields("file directory files-from exclude-from exclude blocking-factor format group owner mode mtime newer newer-mtime after-date info-script new-volume-script label use-compress-program to-command rmt-command rsh-command checkpoint-action transform xform suffix backup strip-components record-size tape-length volno-file index-file level listed-incremental"))
	if !ok {
		a.fail("tar: an option is missing its value")
		return
	}
	if has(opts, "--to-command", "-I", "--use-compress-program", "--rsh-command", "--rmt-command", "--info-script", "-F", "--new-volume-script", "--checkpoint-action") {
		a.fail("tar runs a program picket does not analyse")
		return
	}
	a.optionPaths(st, name, opts, "-T --files-from -X --exclude-from", "--index-file")
	dir := st
	for _, d := range values(opts, "-C", "--directory") {
		dir = a.chdir(dir, d, name)
	}
	archives := values(opts, "-f", "--file")
	switch {
	case has(opts, "-x", "--extract", "--get"):
		for _, f := range archives {
			a.path(st, f, decide.Read, false, name)
		}
		a.path(dir, known("."), decide.Write, true, name)
	case has(opts, "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate"):
		for _, f := range archives {
			a.path(st, f, decide.Write, false, name)
		}
		for _, w := range ops {
			a.path(dir, w, decide.Read, true, name)
		}
	default:
		for _, f := range archives {
			a.path(st, f, decide.Read, false, name)
		}
	}
}

func (a *analyzer) zip(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "bnitxiPe", strings.Fields("temp-path suffixes exclude include password"))
	if !ok || len(ops) == 0 {
		return
	}
	a.path(st, ops[0], decide.Write, false, name)
	rec := has(opts, "-r", "--recurse-paths")
	for _, w := range ops[1:] {
		a.path(st, w, decide.Read, rec, name)
	}
}

func (a *analyzer) unzip(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "dxP", nil)
	if !ok || len(ops) == 0 {
		return
	}
	a.path(st, ops[0], decide.Read, false, name)
	if has(opts, "-l", "-t", "-p", "-Z", "-v", "-z") {
		return
	}
	dest := known(".")
	if d := values(opts, "-d"); len(d) > 0 {
		dest = d[len(d)-1]
	}
	a.path(st, dest, decide.Write, true, name)
}

func (a *analyzer) compress(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "S", []string{"suffix"})
	if !ok {
		return
	}
	acc := decide.Write
	if has(opts, "-c", "--stdout", "-t", "--test", "-l", "--list") {
		acc = decide.Read
	}
	rec := has(opts, "-r", "--recursive")
	for _, w := range ops {
		a.path(st, w, acc, rec, name)
	}
}
