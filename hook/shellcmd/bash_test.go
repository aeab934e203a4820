package shellcmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bashTests are run by the real bash with every program replaced by a
// stub that logs its working directory and argv: what bash ran must be
// among what Analyze said it would run, and every file cat was given must
// be among the targets. Only lines that write nowhere outside the test's
// tree belong here.
var bashTests = []string{
	"cat .env",
	`cat ".e"'nv'`,
	`cat \.env`,
	"cat .e\\\nnv",
	`cat $'\x2eenv' $'\056env'`,
	`cat "my dir/x y.txt" my\ dir/x\ y.txt`,
	`cat 'line` + "\n" + `break'`,
	"cat ~/.bashrc ~ $HOME/.ssh/id_rsa ${HOME}/.bashrc",
	`cat "${HOME:-/x}/.bashrc" "~/.bashrc"`,
	"X=.env; cat $X",
	"X=~/.ssh; cat $X/id_rsa",
	"X=a.txt; X=.env cat $X",
	"cat $EMPTY.env",
	"unset X; cat ${X}a.txt",
	`a=(.env a.txt); cat "${a[@]}"`,
	"IFS=/; x=a/.env; cat $x",
	`cat "$PWD"/.env`,
	"cat *.txt",
	"cat *",
	"cat .e*",
	"shopt -s dotglob; cat *.env",
	"cat src/*",
	"cat *.nomatch",
	"shopt -s nullglob; cat *.nomatch a.txt",
	"shopt -s globstar; cat **/*.md",
	"cat {a,b}.txt .{e,x}nv",
	"cat '*.txt'",
	"cd src && cat main.go",
	"{ cd src; cat main.go; }; cat a.txt",
	"(cd src && cat main.go); cat a.txt",
	"cd nowhere; cat a.txt",
	"cd ..; cd w; cat a.txt",
	"cd; cat .bashrc",
	"cd ~ && cat .ssh/id_rsa",
	"cd src && cat *.go",
	"for f in a.txt .env; do cat \"$f\"; done",
	"for f in *.txt; do cat $f; done",
	"case x in x) cat .env;; *) ls;; esac",
	`f() { cat "$1"; }; f .env`,
	"if true; then cat a.txt; else cat b.txt; fi",
	"true && cat a.txt || cat b.txt",
	"cat a.txt | grep x | wc -l",
	"echo $(cat .env) `cat a.txt`",
	"diff <(cat .env) a.txt",
	"cat <<EOF\n$(cat .env)\nEOF",
	"cat <<< \"$(cat ~/.ssh/id_rsa)\"",
	"trap 'cat .env' EXIT",
	"time cat a.txt",
	"! cat a.txt",
	"bash -c 'cat .env'",
	`bash -c 'cat "$1"' x .env`,
	"export F=.env; bash -c 'cat $F'",
	`sh -c "cd src && cat main.go"`,
	"bash <<'EOF'\ncat .env\nEOF",
	"nice -n 10 cat .env",
	"timeout 5 cat .env",
	"nohup cat .env",
	"command cat .env",
	"exec cat .env",
	"env FOO=1 cat .env",
	"dd if=~/.bashrc of=out",
	"ls -la src; grep -r SECRET .; sed -n 1p .env",
	"echo x > out.txt; cat out.txt",
	"find src -type f -exec cat {} +",
	"case x in x) cat .env;& y) cat a.txt;; esac",
	`function f { cat "$@"; }; f .env b.txt`,
	"cat <<-EOF\n\t$(cat .env)\n\tEOF",
	"x=(a.txt b.txt); cat ${x[1]} ${#x[@]}",
	`cat ${HOME/#\/*/$HOME}/.bashrc`,
	"y=.e; cat ${y}nv ${y%e}a.txt",
	"cat ~+/a.txt 2>/dev/null; cat a.txt",
	"for ((i=0; i<2; i++)); do cat a.txt; done",
	"while false; do cat b.txt; done; cat a.txt",
	"set -- .env a.txt; cat \"$@\" $#",
	"cat $'a.txt' $\"b.txt\"",
	"echo 'cat .env' >/dev/null; cat a.txt # cat b.txt",
	"cat a.txt&&cat b.txt||cat .env",
	"cat a.txt;cat b.txt",
	"coproc cat .env",
	"cat a.txt |& cat",
	"{ cat .env; } 2>&1 | cat",
	"cd src; cd ..; cat a.txt",
	"pushd src >/dev/null && cat main.go",
	"cd src && cat ~-/a.txt ~+/main.go",
}

func TestAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is missing")
		}
		t.Skip("no bash")
	}
	root := t.TempDir()
	ws, home, stubs := filepath.Join(root, "w"), filepath.Join(root, "h"), filepath.Join(root, "stubs")
	for _, f := range []string{"w/.env", "w/a.txt", "w/b.txt", "w/notes.md", "w/src/main.go", "w/src/util.go", "w/src/.hidden",
		"w/my dir/x y.txt", "w/line\nbreak", "w/docs/guide.md", "w/docs/api/index.md", "h/.ssh/id_rsa", "h/.bashrc"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs := filepath.Join(root, "logs")
	// Each stub writes a file of its own (processes run side by side):
	// its directory, then its argv, NUL separated.
	stub := "#!/bin/sh\nprintf '%s\\0' \"$PWD\" \"${0##*/}\" \"$@\" > " + logs + "/$$\n"
	if err := os.MkdirAll(stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cat", "ls", "grep", "wc", "diff", "dd", "sed", "head", "find"} {
		if err := os.WriteFile(filepath.Join(stubs, n), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// bash, sh, env, nice, timeout, nohup stay real: they must run the
	// stubs.
	realPath := stubs + ":/usr/bin:/bin"
	vars := map[string]string{"HOME": home, "PATH": realPath, "EMPTY": ""}
	for _, cmd := range bashTests {
		os.RemoveAll(logs)
		if err := os.Mkdir(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(ws, "out.txt"))
		c := exec.Command(bash, "-c", cmd)
		c.Dir = ws
		c.Env = []string{"HOME=" + home, "PATH=" + realPath, "EMPTY=", "PWD=" + ws}
		var stderr bytes.Buffer
		c.Stderr = &stderr
		_ = c.Run() // some lines fail on purpose (cd nowhere)
		res, err := Analyze(cmd, Env{Cwd: ws, Root: ws, Home: home, Vars: vars, Complete: true})
		if err != nil {
			t.Errorf("Analyze(%q): %v", cmd, err)
			continue
		}
		var ran [][]string
		ents, _ := os.ReadDir(logs)
		for _, e := range ents {
			rec, _ := os.ReadFile(filepath.Join(logs, e.Name()))
			ran = append(ran, strings.Split(strings.TrimSuffix(string(rec), "\x00"), "\x00"))
		}
		if len(ran) == 0 {
			t.Errorf("bash ran no stub for %q (stderr %q)", cmd, stderr.String())
		}
		for _, r := range ran {
			dir, argv := r[0], r[1:]
			if !hasCommand(res.Commands, argv) {
				t.Errorf("%q: bash ran %q, which Analyze does not list (it lists %q)", cmd, argv, commandLines(res.Commands))
			}
			if argv[0] != "cat" {
				continue
			}
			for _, op := range argv[1:] {
				p := op
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				if !hasTarget(res.Targets, p) {
					t.Errorf("%q: bash ran cat on %q in %s, which is not among the targets %q", cmd, op, dir, show(res.Targets))
				}
			}
		}
	}
}

func hasCommand(cmds []Command, argv []string) bool {
	for _, c := range cmds {
		args := append([]string(nil), c.Args...)
		if len(args) > 0 {
			args[0] = filepath.Base(args[0])
		}
		if slices.Equal(args, argv) {
			return true
		}
	}
	return false
}

func commandLines(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, strings.Join(c.Args, " "))
	}
	return out
}

// hasTarget reports whether p, cleaned, is a target or lies below a
// recursive one.
func hasTarget(ts []Target, p string) bool {
	p = filepath.Clean(p)
	for _, t := range ts {
		c := filepath.Clean(t.Path)
		if c == p || t.Recursive && strings.HasPrefix(p, c+"/") {
			return true
		}
	}
	return false
}
