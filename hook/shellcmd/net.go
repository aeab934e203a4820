package shellcmd

import (
	"path"
	"strings"

	"github.com/picketdev/picket/decide"
)

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
