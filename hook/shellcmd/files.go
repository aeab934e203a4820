package shellcmd

import (
	"path"
	"regexp"
	"strings"
	"sync"

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

var fileRunners = map[string]runner{}

func init() {
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
		if p.unknown || awkIO().MatchString(p.s) {
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

// awkIO finds awk programs that do file or process I/O themselves:
// getline, system(), and print or printf redirected to a file or pipe.
// (Compiled on first use: the hook starts for every call.)
var awkIO = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`getline|system\s*\(|\b(print|printf)\b[^;}\n]*(>|\|)|close\s*\(|fflush\s*\(\s*"`)
})

func (a *analyzer) sed(st, env *state, name string, args []word, stdin input) {
	var scripts []word
	inPlace := false
	var ops []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		s := w.s
		switch {
		case w.unknown || !strings.HasPrefix(s, "-") || s == "-":
			ops = append(ops, w)
		case s == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case s == "-e" || s == "--expression" || s == "-f" || s == "--file" || s == "-l" || s == "--line-length":
			if i+1 >= len(args) {
				a.fail("sed %s is missing its value", s)
				return
			}
			i++
			switch s {
			case "-e", "--expression":
				scripts = append(scripts, args[i])
			case "-f", "--file":
				a.path(st, args[i], decide.Read, false, name)
				scripts = append(scripts, known(""))
			}
		case strings.HasPrefix(s, "--expression="):
			scripts = append(scripts, known(strings.TrimPrefix(s, "--expression=")))
		case strings.HasPrefix(s, "--file="):
			a.path(st, known(strings.TrimPrefix(s, "--file=")), decide.Read, false, name)
			scripts = append(scripts, known(""))
		case strings.HasPrefix(s, "--in-place"):
			inPlace = true
		case strings.HasPrefix(s, "--"):
		default:
			// A bundle: -n, -E, -i[SUFFIX], -e SCRIPT, -f FILE, -s ...
			for j := 1; j < len(s); j++ {
				c := s[j]
				if c == 'i' {
					inPlace = true
					break // the rest is the suffix
				}
				if c == 'e' || c == 'f' || c == 'l' {
					v := s[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							a.fail("sed -%c is missing its value", c)
							return
						}
						i++
						v = args[i].s
						if args[i].unknown {
							scripts = append(scripts, word{unknown: true})
							break
						}
					}
					switch c {
					case 'e':
						scripts = append(scripts, known(v))
					case 'f':
						a.path(st, known(v), decide.Read, false, name)
						scripts = append(scripts, known(""))
					}
					break
				}
			}
		}
	}
	if len(scripts) == 0 {
		if len(ops) == 0 {
			return
		}
		scripts, ops = ops[:1], ops[1:]
	}
	for _, sc := range scripts {
		if sc.unknown || sedIO().MatchString(sc.s) {
			a.fail("sed's script reads, writes or runs something by itself (r, R, w, W, e)")
			return
		}
	}
	acc := decide.Read
	if inPlace {
		acc = decide.Write
	}
	for _, w := range ops {
		a.path(st, w, acc, false, name)
	}
}

// sedIO finds the sed commands that read or write a named file or run a
// command: r, R, w, W, e (after an address), and the s command's w and e
// flags.
var sedIO = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[;{}\n]|[0-9$/]!?)\s*[rRwWe](\s|$)|(^|[;\n])\s*s(.).*?[wWe]\s*\S`)
})

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

func (a *analyzer) rsync(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "eBfTiPFSlcoJ", strings.Fields("rsh rsync-path exclude include exclude-from include-from files-from filter temp-dir partial-dir backup-dir compare-dest copy-dest link-dest chmod chown usermap groupmap log-file log-file-format password-file block-size max-size min-size timeout contimeout port sockopts out-format suffix compress-level skip-compress info debug stop-after stop-at protocol iconv checksum-choice compress-choice write-batch read-batch only-write-batch"))
	if !ok {
		a.fail("%s: an option is missing its value", name)
		return
	}
	if has(opts, "-e", "--rsh", "--rsync-path") && name == "rsync" {
		a.fail("rsync -e runs a program picket does not analyse")
		return
	}
	a.optionPaths(st, name, opts, "--exclude-from --include-from --files-from --password-file --read-batch -F -i", "--log-file --write-batch --only-write-batch")
	rec := name == "rsync" && has(opts, "-a", "--archive", "-r", "--recursive") || name == "scp" && has(opts, "-r")
	var local []word
	for _, w := range ops {
		if !w.unknown && remote(w.s) {
			continue
		}
		local = append(local, w)
	}
	if len(ops) < 2 {
		for _, w := range local {
			a.path(st, w, decide.Read, rec, name)
		}
		return
	}
	destRemote := !ops[len(ops)-1].unknown && remote(ops[len(ops)-1].s)
	for i, w := range ops {
		if !w.unknown && remote(w.s) {
			continue
		}
		acc := decide.Read
		if i == len(ops)-1 && !destRemote {
			acc = decide.Write
			a.path(st, w, acc, true, name)
			continue
		}
		a.path(st, w, acc, rec, name)
	}
}

// remote reports an rsync or scp operand on another host (host:path).
func remote(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
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

func (a *analyzer) curl(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "oTKcbDdFuHXAeEmrwxy", strings.Fields("output upload-file config cookie-jar cookie dump-header data data-binary data-raw data-ascii data-urlencode form form-string user header request user-agent referer cert key cacert capath netrc-file trace trace-ascii stderr output-dir json url proxy max-time connect-timeout write-out range retry"))
	if !ok {
		a.fail("curl: an option is missing its value")
		return
	}
	a.optionPaths(st, name, opts, "-T --upload-file -K --config --cert --key --cacert --netrc-file", "-o --output -c --cookie-jar -D --dump-header --trace --trace-ascii --stderr")
	for _, w := range values(opts, "-b", "--cookie") {
		if !w.unknown && !strings.Contains(w.s, "=") {
			a.path(st, w, decide.Read, false, name)
		}
	}
	for _, w := range values(opts, "-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "-F", "--form", "--json") {
		if w.unknown {
			continue
		}
		if i := strings.IndexAny(w.s, "@<"); i >= 0 {
			f := w.s[i+1:]
			f, _, _ = strings.Cut(f, ";")
			a.path(st, known(f), decide.Read, false, name)
		}
	}
	if has(opts, "-O", "--remote-name", "--remote-name-all") {
		dir := "."
		if d := values(opts, "--output-dir"); len(d) > 0 && !d[0].unknown {
			dir = d[0].s
		}
		for _, u := range ops {
			if u.unknown {
				a.fail("curl -O writes a file named after a URL picket cannot expand")
				return
			}
			a.path(st, known(dir+"/"+urlBase(u.s)), decide.Write, false, name)
		}
	}
}

func urlBase(u string) string {
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	b := path.Base(u)
	if b == "" || b == "/" || b == "." || strings.HasSuffix(u, "/") {
		return "index.html"
	}
	return b
}

func (a *analyzer) wget(st, env *state, name string, args []word, stdin input) {
	opts, ops, ok := options(args, "OoaPiBeUtTwQ", strings.Fields("output-document output-file append-output directory-prefix input-file base execute user-agent tries timeout wait quota post-file body-file post-data body-data method header load-cookies save-cookies certificate private-key ca-certificate"))
	if !ok {
		a.fail("wget: an option is missing its value")
		return
	}
	a.optionPaths(st, name, opts, "-i --input-file --post-file --body-file --load-cookies --certificate --private-key --ca-certificate", "-O --output-document -o --output-file -a --append-output --save-cookies")
	if has(opts, "-O", "--output-document") {
		return
	}
	dir := "."
	if d := values(opts, "-P", "--directory-prefix"); len(d) > 0 && !d[0].unknown {
		dir = d[0].s
	}
	rec := has(opts, "-r", "--recursive", "-m", "--mirror")
	for _, u := range ops {
		if u.unknown {
			a.fail("wget writes a file named after a URL picket cannot expand")
			return
		}
		if rec {
			a.path(st, known(dir), decide.Write, true, name)
			continue
		}
		a.path(st, known(dir+"/"+urlBase(u.s)), decide.Write, false, name)
	}
}

// git: only what it plainly reads or writes by name; the repository's own
// files are the sandbox's.
func (a *analyzer) git(st, env *state, name string, args []word, stdin input) {
	i := 0
	dir := st
	for ; i < len(args); i++ {
		w := args[i]
		if w.unknown {
			a.fail("git gets an option picket cannot expand")
			return
		}
		switch s := w.s; {
		case s == "-C":
			if i+1 < len(args) {
				i++
				dir = a.chdir(dir, args[i], name)
			}
		case s == "-c":
			a.fail("git -c sets configuration picket does not analyse")
			return
		case s == "--git-dir" || s == "--work-tree" || s == "--namespace" || s == "--exec-path":
			a.fail("git %s is not analysed", s)
			return
		case strings.HasPrefix(s, "--git-dir=") || strings.HasPrefix(s, "--work-tree=") || strings.HasPrefix(s, "--exec-path="):
			a.fail("git %s is not analysed", s)
			return
		case strings.HasPrefix(s, "-"):
		default:
			goto sub
		}
	}
	return
sub:
	sub, rest := args[i].s, args[i+1:]
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
			a.path(dir, w, decide.Read, true, "git grep")
		}
	case "rm", "mv", "checkout", "restore", "clean", "reset":
		_, ops, _ := options(rest, "bBmf", strings.Fields("source pathspec-from-file"))
		rec := sub == "clean" || sub == "rm" || sub == "checkout" || sub == "restore" || sub == "reset"
		if len(ops) == 0 && (sub == "clean" || sub == "reset") {
			ops = []word{known(".")}
		}
		for _, w := range ops {
			a.path(dir, w, decide.Write, rec, "git "+sub)
		}
	case "clone":
		_, ops, _ := options(rest, "obuc", strings.Fields("origin branch upload-pack template config depth reference separate-git-dir jobs filter"))
		if len(ops) >= 2 {
			a.path(dir, ops[1], decide.Write, true, "git clone")
		}
	case "apply", "am":
		a.fail("git %s writes the files its patch names, which picket does not read", sub)
	case "config":
		opts, _, _ := options(rest, "f", strings.Fields("file blob type default"))
		if has(opts, "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--get-urlmatch") {
			return
		}
		a.fail("git config writes configuration that runs programs")
	default:
		// Other subcommands: an operand that names a file is read
		// (git diff --no-index a b, git add f), and REV:path names a
		// committed file (git show HEAD:.env).
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
}

// find lists below its starting points; its actions read (-exec),
// delete (-delete) or write (-fprint) what it finds.
func (a *analyzer) find(st, env *state, name string, args []word, stdin input) {
	i := 0
	for ; i < len(args); i++ {
		s := args[i].s
		if s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") {
			continue
		}
		if s == "-D" {
			i++
			continue
		}
		break
	}
	var starts []word
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
	acc := decide.List
	expr := args[i:]
	for j := 0; j < len(expr); j++ {
		w := expr[j]
		if w.unknown {
			continue
		}
		switch w.s {
		case "-delete":
			for _, s := range starts {
				a.path(st, s, decide.Write, true, name)
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if j+1 < len(expr) {
				a.path(st, expr[j+1], decide.Write, false, name)
				j++
			}
		case "-files0-from":
			if j+1 < len(expr) {
				a.path(st, expr[j+1], decide.Read, false, name)
				j++
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(expr) && expr[k].s != ";" && expr[k].s != "+" {
				k++
			}
			cmd := expr[j+1 : k]
			j = k
			if len(cmd) == 0 {
				continue
			}
			if (w.s == "-execdir" || w.s == "-okdir") && !onlyPlaceholders(cmd[1:]) {
				a.fail("find %s runs a command in each directory it finds", w.s)
				return
			}
			acc = decide.Read
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
	}
	for _, s := range starts {
		a.path(st, s, acc, true, name)
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
