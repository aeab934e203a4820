package decide

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxLinks is how many symlinks one resolution may follow, as Linux's
// MAXSYMLINKS; past it the kernel answers ELOOP and so do we.
const maxLinks = 40

// pathMax and nameMax mirror Linux's PATH_MAX and NAME_MAX.
const (
	pathMax = 4096
	nameMax = 255
)

// Canonicalize returns the absolute spelling of p (anchored on cwd, with "~"
// and "~/..." expanded to home) and the path the kernel would reach through
// it: every symlink followed, ".." applied to the already-resolved prefix.
//
// When a component does not exist, the rest is appended with "." dropped and
// ".." folded, since nothing below a missing name can be a symlink. A path
// ending in a dangling symlink resolves to the path its target names, which
// is what a write would create.
//
// Any failure other than a missing component is returned as a
// *fs.PathError wrapping the errno (syscall.ELOOP, EACCES, ENAMETOOLONG,
// ENOTDIR, EINVAL for a NUL byte), so callers can classify it with
// errors.Is. Canonicalize never answers a path it could not resolve.
func Canonicalize(p, cwd, home string) (abs, resolved string, err error) {
	abs, err = absolute(p, cwd, home)
	if err != nil {
		return abs, "", err
	}
	if selfPrivate(abs) {
		return abs, "", &fs.PathError{Op: "canonicalize", Path: abs, Err: errSelfProcess}
	}
	if r, ok := kernelResolve(abs); ok && !ownProc(r) {
		// The kernel followed no magic link; another process's environ
		// or mem is still refused here.
		if selfPrivate(r) {
			return abs, "", &fs.PathError{Op: "canonicalize", Path: abs, Err: errSelfProcess}
		}
		return abs, r, nil
	}
	resolved, err = resolve(abs, os.Lstat)
	if err != nil {
		return abs, "", &fs.PathError{Op: "canonicalize", Path: abs, Err: err}
	}
	if selfPrivate(resolved) {
		return abs, "", &fs.PathError{Op: "canonicalize", Path: abs, Err: errSelfProcess}
	}
	return abs, resolved, nil
}

// Lexical returns p's absolute spelling with ".." applied by text, and
// whether that differs from the path the kernel reaches through p. A ".."
// after a symlink means the link target's parent to the kernel, but the
// link's own parent to a tool that cleans the path first (Node's
// path.resolve, Python's abspath, Claude Code's Grep and Glob do), so a
// path holding one names two places, and picket judges both.
func Lexical(p, cwd, home string) (string, bool) {
	abs, err := absolute(p, cwd, home)
	if err != nil || !hasDotDot(abs) {
		return "", false
	}
	return filepath.Clean(abs), true
}

func hasDotDot(p string) bool {
	for p != "" {
		var name string
		name, p, _ = strings.Cut(p, "/")
		if name == ".." {
			return true
		}
	}
	return false
}

// errSelfProcess is a path to the calling process's own state: its
// working directory, root, executable, open files or environment, under
// /proc/self, /proc/thread-self or /dev/fd (or /dev/stdin and the like,
// which lead there). Those name the process that opens them, which is the
// agent, while picket would resolve them in its own process and judge
// another file. What /proc/self holds for the whole namespace
// (/proc/self/mounts, which /etc/mtab and /proc/mounts lead to, or net/)
// is the same from either process and resolves as usual.
var errSelfProcess = errors.New("it leads to a process's own files (/proc/self/cwd, /dev/fd, any process's cwd, root, fd, environ or mem, ...): they are the agent's, not picket's, or another program's view of the filesystem or its secrets")

// selfPrivate reports whether p is, or is below, a part of a process's
// own state (see errSelfProcess): the calling process's, spelled through
// /proc/self or /proc/thread-self (the walk keeps those spellings instead
// of following them to picket's own pid), or any process's, spelled with
// its pid. A pid is refused alike whichever process it is, picket's own
// included, so the answer does not depend on which process decides (the
// hook, or the sidecar, whose pid an agent can find out).
func selfPrivate(p string) bool {
	switch {
	case strings.HasPrefix(p, "/dev/"):
		for _, s := range []string{"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"} {
			if p == s || strings.HasPrefix(p, s) && p[len(s)] == '/' {
				return true
			}
		}
		return false
	case !strings.HasPrefix(p, "/proc/"):
		return false
	}
	rest := p[len("/proc/"):]
	first, rest, _ := strings.Cut(rest, "/")
	self := first == "self" || first == "thread-self"
	if !self && !isPID(first) {
		return false
	}
	if t, r, ok := strings.Cut(rest, "/"); ok && t == "task" {
		_, rest, _ = strings.Cut(r, "/") // task/<tid>/... is that thread's view
	}
	name, _, _ := strings.Cut(rest, "/")
	// Another process's are refused too: its environment and memory are
	// its secrets, and its links name paths in its own view, which may
	// not be picket's (another mount namespace, where /proc/<pid>/root/x
	// is not /x; a deleted file; a pipe). Reading the link would judge
	// another file than the one a tool opens through it.
	return processPrivate[name]
}

func isPID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ownProc reports whether the kernel's answer r lies in this process's
// /proc/<pid> directory, which only the /proc/self and /proc/thread-self
// links lead to unspelled: such a path is walked, so that it keeps their
// spelling.
func ownProc(r string) bool {
	rest, ok := strings.CutPrefix(r, "/proc/"+selfPID)
	return ok && (rest == "" || rest[0] == '/')
}

var selfPID = strconv.Itoa(os.Getpid())

// selfLink reports whether the symlink next, whose target is target, is
// procfs's /proc/self ("<pid>") or /proc/thread-self ("<pid>/task/<tid>").
// The walk keeps them as they are spelled (see [selfPrivate]).
func selfLink(next, target string) bool {
	switch next {
	case "/proc/self":
		return isPID(target)
	case "/proc/thread-self":
		pid, rest, _ := strings.Cut(target, "/task/")
		return isPID(pid) && isPID(rest)
	}
	return false
}

// processPrivate are the entries of a /proc/<pid> directory that name a
// process's own view of the filesystem (its links) or hold its secrets.
var processPrivate = map[string]bool{"cwd": true, "root": true, "exe": true, "fd": true, "fdinfo": true,
	"map_files": true, "environ": true, "mem": true}

// absolute expands "~" and anchors a relative path on cwd, lexically. It does
// not clean the path: ".." must be applied after symlinks are resolved.
func absolute(p, cwd, home string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return p, &fs.PathError{Op: "canonicalize", Path: p, Err: syscall.EINVAL}
	}
	switch {
	case p == "":
		return p, &fs.PathError{Op: "canonicalize", Path: p, Err: syscall.ENOENT}
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	}
	if !strings.HasPrefix(p, "/") {
		if !strings.HasPrefix(cwd, "/") {
			return p, &fs.PathError{Op: "canonicalize", Path: p, Err: errors.New("working directory is not absolute")}
		}
		p = strings.TrimSuffix(cwd, "/") + "/" + p
	}
	if len(p) >= pathMax {
		return p, &fs.PathError{Op: "canonicalize", Path: p, Err: syscall.ENAMETOOLONG}
	}
	return p, nil
}

// resolve walks abs from "/" as the kernel does. The resolved prefix never
// holds a symlink, so ".." on it is a plain lexical parent.
func resolve(abs string, lstat func(string) (fs.FileInfo, error)) (string, error) {
	todo := strings.Split(abs, "/")
	resolved := "/"
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "":
			continue
		case ".", "..":
			// The kernel looks "." and ".." up in the directory too, which
			// takes search permission on it, as any other name does.
			if err := searchable(resolved); err != nil {
				return "", err
			}
			switch {
			case name != "..":
			case resolved == "/proc/thread-self":
				// The kernel's parent of <pid>/task/<tid>, still
				// spelled through /proc/self.
				resolved = "/proc/self/task"
			default:
				resolved = filepath.Dir(resolved)
			}
			continue
		}
		if len(name) > nameMax {
			return "", syscall.ENAMETOOLONG
		}
		next := join(resolved, name)
		fi, err := lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			var restart bool
			resolved, todo, restart = missingTail(resolved, name, todo)
			if restart {
				continue
			}
			return resolved, nil
		}
		if err != nil {
			return "", errno(err)
		}
		if selfPrivate(next) {
			return "", errSelfProcess
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			links++
			if links > maxLinks {
				return "", syscall.ELOOP
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", errno(err)
			}
			if selfLink(next, target) {
				resolved = next // the kernel reaches it as a directory
				continue
			}
			if strings.HasPrefix(target, "/") {
				resolved = "/"
			}
			todo = append(strings.Split(target, "/"), todo...)
			continue
		}
		if !fi.IsDir() && len(todo) > 0 {
			return "", syscall.ENOTDIR
		}
		resolved = next
	}
	return resolved, nil
}

// missingTail handles a component that does not exist. Nothing below it
// exists, so the names after it are appended lexically ("." dropped, ".."
// folded) while they stay below it. A ".." that climbs back over the
// missing name returns the walk to resolved, and what follows it is walked
// as it is written: a symlink reached that way is followed, and a ".." after
// it applies to the link's target, as it will once the missing directory is
// made (mkdir -p, or a tool that creates parents).
func missingTail(resolved, missing string, todo []string) (string, []string, bool) {
	depth := 1
	for i, name := range todo {
		switch name {
		case "", ".":
		case "..":
			if depth--; depth == 0 {
				return resolved, todo[i+1:], true
			}
		default:
			depth++
		}
	}
	return join(resolved, strings.Join(foldTail(append([]string{missing}, todo...)), "/")), nil, false
}

// foldTail drops "." and empty names and folds ".." against the names before
// it; a ".." with nothing before it is kept (missingTail passes none).
func foldTail(parts []string) []string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		switch {
		case p == "" || p == ".":
		case p == ".." && len(out) > 0 && out[len(out)-1] != "..":
			out = out[:len(out)-1]
		default:
			out = append(out, p)
		}
	}
	return out
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// errno unwraps the syscall error of an os call, so the caller's single
// *fs.PathError names the whole path instead of one component.
func errno(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
