package shellcmd

import (
	"path"
	"strings"

	"github.com/picketdev/picket/decide"
)

// opt is one option of a command line, with its value when it takes one.
type opt struct {
	name string // "-x" or "--name"
	val  word
	has  bool
}

// options splits args GNU style: options anywhere until "--", short ones
// bundled, values attached or in the next word. short holds the short
// options that take a value, long the long ones.
func options(args []word, short string, long []string) (opts []opt, operands []word, ok bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.unknown {
			operands = append(operands, w)
			continue
		}
		s := w.s
		switch {
		case s == "--":
			return opts, append(operands, args[i+1:]...), true
		case s == "-" || !strings.HasPrefix(s, "-"):
			operands = append(operands, w)
		case strings.HasPrefix(s, "--"):
			n, v, eq := strings.Cut(s[2:], "=")
			o := opt{name: "--" + n}
			switch {
			case eq:
				o.val, o.has = known(v), true
			case contains(long, n):
				if i+1 >= len(args) {
					return nil, nil, false
				}
				i++
				o.val, o.has = args[i], true
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(s); j++ {
				o := opt{name: "-" + s[j:j+1]}
				if strings.IndexByte(short, s[j]) >= 0 {
					if j+1 < len(s) {
						o.val, o.has = known(s[j+1:]), true
					} else {
						if i+1 >= len(args) {
							return nil, nil, false
						}
						i++
						o.val, o.has = args[i], true
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		}
	}
	return opts, operands, true
}

func has(opts []opt, names ...string) bool {
	for _, o := range opts {
		if contains(names, o.name) {
			return true
		}
	}
	return false
}

// values returns the values of the named options.
func values(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		if o.has && contains(names, o.name) {
			out = append(out, o.val)
		}
	}
	return out
}

// spec describes a command whose operands are files.
type spec struct {
	short, long string        // options that take a value (long: space separated)
	acc         decide.Access // what it does to its operands
	pattern     string        // options that give the pattern; without one, the first operand is it
	patternLong string        // long options that give the pattern
	noPattern   string        // options that mean there is no pattern (rg --files)
	rec         string        // options that make it recursive ("-r --recursive")
	alwaysRec   bool          // recursive whatever the options (rg, tree)
	dot         bool          // no operand means "." when recursive
	listDot     bool          // no operand means "." (ls)
	reads       string        // options whose value is read ("-f --file")
	writes      string        // options whose value is written ("-o --output")
	withPattern bool          // the first operand is a pattern, script or program
}

func (a *analyzer) files(st *state, name string, args []word, sp spec) {
	opts, ops, ok := options(args, sp.short, strings.Fields(sp.long))
	if !ok {
		a.fail("%s: an option is missing its value", name)
		return
	}
	a.optionPaths(st, name, opts, sp.reads, sp.writes)
	if sp.withPattern && !has(opts, strings.Fields(sp.pattern+" "+sp.patternLong)...) && !has(opts, strings.Fields(sp.noPattern)...) {
		if len(ops) == 0 {
			return
		}
		ops = ops[1:]
	}
	rec := sp.alwaysRec || has(opts, strings.Fields(sp.rec)...)
	if len(ops) == 0 && (sp.dot && rec || sp.listDot) {
		ops = []word{known(".")}
	}
	for _, w := range ops {
		a.path(st, w, sp.acc, rec, name)
	}
}

// optionPaths judges the values of options that read or write a file.
func (a *analyzer) optionPaths(st *state, name string, opts []opt, reads, writes string) {
	for _, w := range values(opts, strings.Fields(reads)...) {
		a.path(st, w, decide.Read, false, name)
	}
	for _, w := range values(opts, strings.Fields(writes)...) {
		a.path(st, w, decide.Write, false, name)
	}
}

func filesRunner(sp spec) runner {
	return func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		a.files(st, name, args, sp)
	}
}

func initFileRunners() {
	fileRunners = map[string]runner{}
	readers := spec{acc: decide.Read}
	for _, n := range strings.Fields(`cat tac less more most nl wc od hexdump strings base64 base32 md5sum
		sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum file cmp comm paste
		column fold fmt rev expand unexpand zcat gzcat bzcat xzcat zstdcat lzcat zless zmore
		bat view xmllint pdftotext lp lpr cut join`) {
		fileRunners[n] = filesRunner(readers)
	}
	fileRunners["head"] = filesRunner(spec{acc: decide.Read, short: "nc", long: "lines bytes"})
	fileRunners["tail"] = filesRunner(spec{acc: decide.Read, short: "ncs", long: "lines bytes sleep-interval pid max-unchanged-stats"})
	fileRunners["cut"] = filesRunner(spec{acc: decide.Read, short: "bcdf", long: "bytes characters delimiter fields output-delimiter"})
	fileRunners["sort"] = filesRunner(spec{acc: decide.Read, short: "kotTS", long: "key output field-separator temporary-directory buffer-size parallel batch-size sort compress-program files0-from random-source",
		writes: "-o --output", reads: "--files0-from --random-source"})
	fileRunners["uniq"] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		_, ops, ok := options(args, "fsw", []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"})
		if !ok {
			a.fail("uniq: an option is missing its value")
			return
		}
		for i, w := range ops {
			acc := decide.Read
			if i == 1 {
				acc = decide.Write
			}
			a.path(st, w, acc, false, name)
		}
	}
	fileRunners["xxd"] = fileRunners["uniq"]
	fileRunners["iconv"] = filesRunner(spec{acc: decide.Read, short: "fto", long: "from-code to-code output", writes: "-o --output"})
	fileRunners["tr"] = (*analyzer).noPaths
	grep := spec{acc: decide.Read, short: "efmABCdD", long: "regexp file max-count after-context before-context context directories devices include exclude exclude-dir exclude-from label binary-files",
		pattern: "-e -f", patternLong: "--regexp --file", rec: "-r -R --recursive --dereference-recursive", dot: true,
		reads: "-f --file --exclude-from", withPattern: true}
	for _, n := range strings.Fields("grep egrep fgrep zgrep") {
		fileRunners[n] = filesRunner(grep)
	}
	rgrep := grep
	rgrep.alwaysRec = true
	fileRunners["rgrep"] = filesRunner(rgrep)
	rg := spec{acc: decide.Read, short: "efgtTmABCjMEdr", long: "regexp file glob iglob type type-not type-add type-clear max-count after-context before-context context threads max-columns encoding max-depth replace pre pre-glob ignore-file sort sortr color colors path-separator max-filesize dfa-size-limit regex-size-limit engine field-context-separator field-match-separator context-separator hostname-bin hyperlink-format",
		pattern: "-e -f", patternLong: "--regexp --file", noPattern: "--files --type-list", alwaysRec: true, dot: true,
		reads: "-f --file --ignore-file", withPattern: true}
	fileRunners["rg"] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		opts, _, _ := options(args, rg.short, strings.Fields(rg.long))
		if has(opts, "--pre") {
			a.fail("rg --pre runs a program on every file")
			return
		}
		s := rg
		if has(opts, "--files") {
			s.acc = decide.List
		}
		a.files(st, name, args, s)
	}
	for _, n := range strings.Fields("ag ack ack-grep") {
		fileRunners[n] = filesRunner(spec{acc: decide.Read, short: "GgAB", long: "file-search-regex after before context depth", alwaysRec: true, dot: true, withPattern: true})
	}
	fileRunners["ls"] = filesRunner(spec{acc: decide.List, short: "wTI", long: "width tabsize ignore hide format time-style color block-size sort time quoting-style indicator-style", rec: "-R --recursive", listDot: true})
	fileRunners["dir"] = fileRunners["ls"]
	fileRunners["stat"] = filesRunner(spec{acc: decide.List, short: "c", long: "format printf"})
	for _, n := range strings.Fields("readlink realpath") {
		fileRunners[n] = filesRunner(spec{acc: decide.List})
	}
	fileRunners["tree"] = filesRunner(spec{acc: decide.List, short: "LPIoH", long: "filelimit timefmt charset", alwaysRec: true, dot: true, writes: "-o"})
	fileRunners["du"] = filesRunner(spec{acc: decide.List, short: "dtBX", long: "max-depth threshold block-size exclude-from time-style files0-from", alwaysRec: true, dot: true, reads: "-X --exclude-from --files0-from"})
	fileRunners["diff"] = filesRunner(spec{acc: decide.Read, short: "CUFIxXS", long: "context unified ignore-matching-lines exclude exclude-from starting-file label from-file to-file", rec: "-r --recursive", reads: "-X --exclude-from --from-file --to-file"})
	fileRunners["jq"] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		var rest []word
		for i := 0; i < len(args); i++ {
			switch args[i].s {
			case "--arg", "--argjson":
				i += 2
				continue
			case "--slurpfile", "--rawfile":
				if i+2 < len(args) {
					a.path(st, args[i+2], decide.Read, false, name)
				}
				i += 2
				continue
			case "--indent", "-L":
				i++
				continue
			case "--args", "--jsonargs":
				args = args[:i]
				continue
			}
			rest = append(rest, args[i])
		}
		a.files(st, name, rest, spec{acc: decide.Read, short: "f", long: "from-file", reads: "-f --from-file", pattern: "-f", patternLong: "--from-file", withPattern: true})
	}
	fileRunners["yq"] = filesRunner(spec{acc: decide.Read, withPattern: true, short: "Iop", long: "indent output-format input-format"})
	fileRunners["awk"] = (*analyzer).awk
	for _, n := range strings.Fields("gawk mawk nawk") {
		fileRunners[n] = (*analyzer).awk
	}
	fileRunners["sed"] = (*analyzer).sed
	fileRunners["tee"] = filesRunner(spec{acc: decide.Write, long: "output-error"})
	for _, n := range strings.Fields("rm") {
		fileRunners[n] = filesRunner(spec{acc: decide.Write, long: "interactive", rec: "-r -R --recursive"})
	}
	for _, n := range strings.Fields("rmdir unlink mkfifo") {
		fileRunners[n] = filesRunner(spec{acc: decide.Write, short: "m", long: "mode"})
	}
	fileRunners["mkdir"] = filesRunner(spec{acc: decide.Write, short: "m", long: "mode context"})
	fileRunners["shred"] = filesRunner(spec{acc: decide.Write, short: "ns", long: "iterations size random-source remove", reads: "--random-source"})
	fileRunners["touch"] = filesRunner(spec{acc: decide.Write, short: "rdtD", long: "reference date time", reads: "-r --reference"})
	fileRunners["truncate"] = filesRunner(spec{acc: decide.Write, short: "sr", long: "size reference", reads: "-r --reference"})
	fileRunners["chmod"] = (*analyzer).chmod
	fileRunners["chown"] = (*analyzer).chmod
	fileRunners["chgrp"] = (*analyzer).chmod
	fileRunners["chattr"] = (*analyzer).chmod
	fileRunners["setfacl"] = filesRunner(spec{acc: decide.Write, short: "mMxX", long: "modify modify-file remove remove-file set set-file", rec: "-R --recursive", reads: "-M -X --modify-file --remove-file --set-file"})
	fileRunners["cp"] = (*analyzer).copyLike
	fileRunners["mv"] = (*analyzer).copyLike
	fileRunners["install"] = (*analyzer).copyLike
	fileRunners["ln"] = (*analyzer).copyLike
	fileRunners["rsync"] = (*analyzer).rsync
	fileRunners["scp"] = (*analyzer).rsync
	fileRunners["dd"] = (*analyzer).dd
	fileRunners["tar"] = (*analyzer).tar
	fileRunners["zip"] = (*analyzer).zip
	fileRunners["unzip"] = (*analyzer).unzip
	for _, n := range strings.Fields("gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 lzma compress") {
		fileRunners[n] = (*analyzer).compress
	}
	fileRunners["curl"] = (*analyzer).curl
	fileRunners["wget"] = (*analyzer).wget
	fileRunners["git"] = (*analyzer).git
	fileRunners["split"] = filesRunner(spec{acc: decide.Read, short: "abCdlnt", long: "suffix-length additional-suffix bytes line-bytes lines number separator filter"})
	fileRunners["ssh"] = func(a *analyzer, st, env *state, name string, args []word, stdin input) {
		opts, _, _ := options(args, "BbcDEeFIiJLlmOoPpQRSWw", nil)
		for _, w := range values(opts, "-F", "-i") {
			a.path(st, w, decide.Read, false, name)
		}
	}
}

func (a *analyzer) chmod(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "", []string{"reference", "from"})
	if !ok {
		a.fail("%s: an option is missing its value", name)
		return
	}
	for _, w := range values(opts, "--reference") {
		a.path(st, w, decide.Read, false, name)
	}
	// chmod's "-w" or "-x" modes look like options: a mode is the first
	// operand unless --reference gave it.
	if !has(opts, "--reference") {
		if len(ops) == 0 {
			return
		}
		if name == "chmod" && len(args) > 0 && strings.HasPrefix(args[0].s, "-") && !has(opts, "-R", "--recursive", "-v", "-c", "-f") {
			// "chmod -w f": options() took the mode for an option
		} else {
			ops = ops[1:]
		}
	}
	rec := has(opts, "-R", "--recursive")
	for _, w := range ops {
		a.path(st, w, decide.Write, rec, name)
	}
}

// copyLike is cp, mv, install and ln: sources and a destination, or
// -t DIR.
func (a *analyzer) copyLike(st, env *state, name string, args []word, stdin input) {
	short, long := "tS", "target-directory suffix backup"
	switch name {
	case "install":
		short, long = "tSmogZ", "target-directory suffix mode owner group context strip-program"
	case "ln":
		short, long = "tS", "target-directory suffix"
	}
	opts, ops, ok := options(args, short, strings.Fields(long))
	if !ok {
		a.fail("%s: an option is missing its value", name)
		return
	}
	rec := name == "mv" || has(opts, "-r", "-R", "-a", "--recursive", "--archive")
	if name == "install" && has(opts, "-d", "--directory") {
		for _, w := range ops {
			a.path(st, w, decide.Write, false, name)
		}
		return
	}
	var dest word
	targets := values(opts, "-t", "--target-directory")
	intoDir := len(targets) > 0
	switch {
	case intoDir:
		dest = targets[len(targets)-1]
	case len(ops) == 1 && name == "ln":
		dest = known(".")
		intoDir = true
	case len(ops) < 2:
		for _, w := range ops {
			a.path(st, w, decide.Read, false, name)
		}
		return
	default:
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	srcAcc := decide.Read
	if name == "mv" {
		srcAcc = decide.Write // a move removes its source
	}
	for _, w := range ops {
		a.path(st, w, srcAcc, rec && name != "ln", name)
	}
	a.path(st, dest, decide.Write, rec && name != "ln", name)
	if dest.unknown || a.err != nil || has(opts, "-T", "--no-target-directory") {
		return
	}
	// Into an existing directory, each source lands below it.
	for _, d := range st.dirs {
		if !intoDir && !a.isDir(a.abs(d, dest.s)) && len(ops) == 1 {
			continue
		}
		for _, w := range ops {
			if w.unknown {
				continue
			}
			base := path.Base(strings.TrimRight(w.s, "/"))
			a.add(Target{Access: decide.Write, Path: a.abs(d, strings.TrimSuffix(dest.s, "/")+"/"+base), Recursive: rec && name != "ln", Cmd: name})
		}
	}
}

func (a *analyzer) dd(st, env *state, name string, args []word, stdin input) {
	for _, w := range args {
		if w.unknown {
			a.fail("dd gets an operand picket cannot expand")
			return
		}
		switch k, v, _ := strings.Cut(w.s, "="); k {
		case "if":
			a.path(st, known(v), decide.Read, false, name)
		case "of":
			a.path(st, known(v), decide.Write, false, name)
		}
	}
}
