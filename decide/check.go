package decide

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Check canonicalizes path (relative to cwd, "~" on p's home) and decides
// it. A path that cannot be resolved is denied at the boundary layer with
// the error in the reason: never an allow. A path with ".." is decided as
// the kernel reads it and as it reads by text (see [Lexical]); either
// denial wins.
func Check(p Policy, access Access, path, cwd string, size int64) Decision {
	d := check(p, access, path, cwd, size)
	if d.Allow {
		if lex, ok := Lexical(path, cwd, p.spec.Home); ok {
			if dl := check(p, access, lex, cwd, size); !dl.Allow {
				return dl
			}
		}
	}
	return d
}

func check(p Policy, access Access, path, cwd string, size int64) Decision {
	abs, resolved, err := Canonicalize(path, cwd, p.spec.Home)
	if err != nil {
		return CanonicalizeDeny(access, abs, err)
	}
	d := Decide(p, Request{Access: access, Path: abs, Resolved: resolved, Size: size})
	if d.Allow && access == Write && gitFile(abs, resolved) {
		return deny(d, LayerMandatory, RuleMandatory, Rule{Pattern: "**/.git", Source: MandatorySource},
			"a .git file is never written: a worktree's or submodule's points git at the directory whose config and hooks then run", "")
	}
	return d
}

// gitFile reports whether a write names a ".git" entry that is not a
// directory: a gitfile ("gitdir: …"), a symlink, or one a write would
// create.
// Writing a .git directory fails anyway; what is below one is judged by
// the rules. (Check's, not Decide's: it looks at the file, and the shell
// sandbox, which calls Decide for every entry it walks, keeps gitfiles
// read-only itself.)
func gitFile(abs, resolved string) bool {
	if filepath.Base(abs) != ".git" && filepath.Base(resolved) != ".git" {
		return false
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return true // a .git symlink: replaced, it points git elsewhere
	}
	fi, err := os.Lstat(resolved)
	return err != nil || !fi.IsDir()
}

// CanonicalizeDeny is the decision for a path that could not be resolved.
func CanonicalizeDeny(access Access, abs string, err error) Decision {
	d := Decision{Access: access, Path: abs}
	return deny(d, LayerBoundary, RuleCanonicalize, Rule{},
		fmt.Sprintf("the path could not be resolved: %v", err), canonSuggestion(err))
}

func canonSuggestion(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "the path goes through a symlink loop; use a path without it"
	case errors.Is(err, syscall.ENAMETOOLONG):
		return "use a shorter path"
	case errors.Is(err, syscall.ENOTDIR):
		return "a component of the path is a file, not a directory; check the path"
	case errors.Is(err, syscall.EACCES):
		return "a directory on the way cannot be searched; use a path picket can resolve"
	case errors.Is(err, errSelfProcess):
		return "use the file's own path, not one through /proc/self or /dev/fd"
	case errors.Is(err, syscall.EINVAL):
		return "the path holds a NUL byte; use a plain path"
	case errors.As(err, &pe):
		return "check the path"
	}
	return "check the path"
}
