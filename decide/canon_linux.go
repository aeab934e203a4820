package decide

import (
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelResolve asks the kernel to resolve an existing path: open it with
// O_PATH (following every symlink, applying ".." after them, as any access
// will) and read back the name the descriptor refers to. Three syscalls at
// any depth, against one lstat per component for the walk. It reports false
// for anything else (a missing component, a dangling link, no /proc, a file
// deleted meanwhile), and the caller walks instead, which also classifies
// the error.
func kernelResolve(abs string) (string, bool) {
	// Most paths go through no symlink at all: openat2 refusing every
	// symlink proves that in one call, and then the kernel's answer is the
	// lexically clean path.
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, abs, &how)
	switch {
	case err == nil:
		unix.Close(fd)
		return filepath.Clean(abs), true
	case err == unix.ENOENT && !strings.Contains(abs+"/", "/../") && !longName(abs):
		// A missing name was met before any symlink (a symlink would
		// have failed with ELOOP first, dangling ones included): the
		// existing part has no links and nothing exists below the
		// missing name, so without ".." the walk's answer is the clean
		// path too.
		return filepath.Clean(abs), true
	}
	// Follow the links, but not the magic ones (/proc/<pid>/cwd, fd/N): one
	// of those may name the calling process, which [Canonicalize] must see,
	// so a path through one is walked link by link instead.
	how.Resolve = unix.RESOLVE_NO_MAGICLINKS
	fd, err = unix.Openat2(unix.AT_FDCWD, abs, &how)
	if err == unix.ENOENT {
		return kernelResolveNew(abs)
	}
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	return fdPath(fd)
}

// fdPath reads back the absolute name of what an open descriptor refers to.
func fdPath(fd int) (string, bool) {
	buf := make([]byte, pathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) {
		return "", false
	}
	r := string(buf[:n])
	if !strings.HasPrefix(r, "/") || strings.HasSuffix(r, " (deleted)") {
		return "", false
	}
	return r, true
}

// kernelResolveNew handles the common missing path: a new name in an
// existing directory. It applies only when the last name is a plain name
// with no entry at all (not a dangling symlink, whose target the walk
// judges) and its directory resolves.
func kernelResolveNew(abs string) (string, bool) {
	i := strings.LastIndexByte(abs, '/')
	dir, name := abs[:i], abs[i+1:]
	if i <= 0 || name == "" || name == "." || name == ".." || len(name) > nameMax {
		return "", false
	}
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != unix.ENOENT {
		return "", false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	r, ok := fdPath(fd)
	if !ok {
		return "", false
	}
	return join(r, name), true
}

// longName reports whether a component of p is longer than NAME_MAX, which
// the walk reports as ENAMETOOLONG even in a missing tail.
func longName(p string) bool {
	for _, name := range strings.Split(p, "/") {
		if len(name) > nameMax {
			return true
		}
	}
	return false
}

// searchable reports whether this process may look names up in dir
// (search permission, for its effective ids), as the kernel checks for
// every component of a path, "." and ".." included.
func searchable(dir string) error {
	if dir == "/" {
		return nil
	}
	err := unix.Faccessat(unix.AT_FDCWD, dir, unix.X_OK, unix.AT_EACCESS)
	if err == unix.EACCES {
		return err
	}
	return nil // anything else is for the next lookup to say
}
