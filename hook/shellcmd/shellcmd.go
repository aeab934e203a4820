package shellcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/picketdev/picket/decide"
)

// Env is what a command line runs in: plain values, and the filesystem
// only through FS.
type Env struct {
	// Cwd is the absolute directory the command starts in.
	Cwd string
	// Root is the workspace (absolute): an argument that names a path
	// below it is a target even when the path does not exist yet.
	Root string
	// Home is the user's home, for "~" and an unset $HOME.
	Home string
	// Vars is the environment the shell starts with.
	Vars map[string]string
	// Complete says Vars is all of it: a variable not in Vars is unset
	// and expands to "". Otherwise (the default) such a variable is
	// unknown, as a login shell's start-up files may set it, and a word
	// that uses one is not analysable where it matters.
	Complete bool
	// Users looks up "~name"; nil, or not found, makes "~name" unknown.
	Users func(name string) (home string, ok bool)
	// FS is the filesystem globs expand against and arguments are
	// looked up in. Nil means the real one ([OS]).
	FS FS
	// MaxEntries bounds the directory entries globbing may read, in all;
	// 0 means [DefaultMaxEntries]. Past it the command is not analysable.
	MaxEntries int
}

// FS is the filesystem access Analyze needs. Paths are absolute.
type FS interface {
	ReadDir(dir string) ([]fs.DirEntry, error)
	Lstat(path string) (fs.FileInfo, error)
}

// OS is the real filesystem.
var OS FS = osFS{}

type osFS struct{}

func (osFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (osFS) Lstat(path string) (fs.FileInfo, error)    { return os.Lstat(path) }

// Limits. A command line past one is not analysable.
const (
	// MaxSize bounds the command line, in bytes.
	MaxSize = 256 << 10
	// DefaultMaxEntries bounds the directory entries globs read.
	DefaultMaxEntries = 20000
	// MaxTargets bounds the targets of one command line.
	MaxTargets = 10000
	// MaxFields bounds the fields one word expands to (brace sequences).
	MaxFields = 10000
	// maxDepth bounds nested shells, functions, traps and loops.
	maxDepth = 16
	// maxDirs bounds the working directories a word may be relative to.
	maxDirs = 8
	// maxSteps bounds the statements walked, functions and loops unrolled.
	maxSteps = 4000
)

// Target is one path a command line touches, and how.
type Target struct {
	Access decide.Access
	// Path is absolute: a relative word joined to the directory the
	// command runs in, with ".." and symlinks left for decide.Check.
	Path string
	// Recursive says the command reaches everything below Path (grep -r,
	// rm -r, cp -r, tar, find): the caller judges the tree, as for a
	// recursive file tool.
	Recursive bool
	// Cmd names what touches it: the command's name, or "redirection".
	Cmd string
}

// Command is one simple command as it will run: its words expanded,
// wrappers (env, sudo, nice, ...) included, and again each command a
// wrapper or nested shell runs.
type Command struct {
	Args []string
	// Unknown marks the arguments whose value picket could not know;
	// their Args entry is "".
	Unknown []bool
}

// Result is what a command line touches.
type Result struct {
	Targets  []Target
	Commands []Command
}

// UnanalysableError says why picket cannot tell what a command line
// touches. The caller denies the command.
type UnanalysableError struct {
	Reason string
}

func (e *UnanalysableError) Error() string {
	return "picket cannot tell what this command touches: " + e.Reason
}

// ErrUnanalysable matches every [UnanalysableError] with errors.Is.
var ErrUnanalysable = errors.New("command not analysable")

// Is makes errors.Is(err, ErrUnanalysable) hold.
func (e *UnanalysableError) Is(target error) bool { return target == ErrUnanalysable }

// Analyze splits a bash command line as bash would and returns every path
// it touches (see the package doc for which). Any error is an
// [UnanalysableError]: the caller must deny the command.
func Analyze(command string, env Env) (Result, error) {
	if len(command) > MaxSize {
		return Result{}, unanalysable("the command is %d bytes, over picket's limit of %d", len(command), MaxSize)
	}
	if !filepath.IsAbs(env.Cwd) {
		return Result{}, unanalysable("the working directory %q is not absolute", env.Cwd)
	}
	f, err := parse(command)
	if err != nil {
		return Result{}, err
	}
	return walk(f, env)
}

func walk(f *syntax.File, env Env) (res Result, err error) {
	defer func() {
		// A construct the expander does not handle panics there: that is
		// a command picket cannot analyse, never one it allows.
		if r := recover(); r != nil {
			res, err = Result{}, unanalysable("picket's shell parser failed on it: %v", r)
		}
	}()
	a := newAnalyzer(env)
	st := a.topState()
	a.checkFile(f)
	a.stmts(st, f.Stmts)
	if a.err != nil {
		return Result{}, a.err
	}
	return Result{Targets: a.out, Commands: a.cmds}, nil
}

func parse(src string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, unanalysable("bash would not parse it the way picket can: %v", err)
	}
	return f, nil
}

func unanalysable(format string, args ...any) *UnanalysableError {
	return &UnanalysableError{Reason: fmt.Sprintf(format, args...)}
}
