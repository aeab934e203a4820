package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// TempDirToken, as the whole first component of a pattern ("$TMPDIR",
// "$TMPDIR/**"), names the system temp dir: [Env.TempDir], which
// [SystemTempDir] reads from $TMPDIR. It is replaced when the policy
// loads, so check, the hooks, serve and the shell sandbox all see the one
// directory, and picket show prints it. Elsewhere in a pattern "$" is a
// plain character.
const TempDirToken = "$TMPDIR"

// DefaultTempDir is the system temp dir when $TMPDIR is unset, as Go's
// os.TempDir reads it, or when picket does not take its value.
const DefaultTempDir = "/tmp"

// TempDir is the system temp dir as picket reads it.
type TempDir struct {
	Dir string `json:"dir"` // absolute and resolved: what "$TMPDIR" names
	// Ignored is $TMPDIR as it was set when picket did not take it (Dir is
	// then /tmp), and Why says why; both "" otherwise.
	Ignored string `json:"ignored,omitempty"`
	Why     string `json:"why,omitempty"`
}

// systemTrees hold the system's own files: a TMPDIR in them is not a temp
// dir, whoever owns it (as root, everything is yours). The exceptions are
// the shared temp dirs inside them and the per-user runtime dirs. macOS
// keeps /etc, /var and /tmp in /private (/var is a symlink to
// /private/var) and gives each user a temp dir below /var/folders: its
// TMPDIR, /var/folders/xx/…/T/, resolves to /private/var/folders/xx/…/T
// and is taken.
var (
	systemTrees = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
		"/boot", "/proc", "/sys", "/dev", "/opt", "/var", "/run", "/snap",
		"/private", "/System", "/Library"}
	// A trailing "/" takes only what is below: /run/user itself holds
	// every user's runtime dir, /private/var/folders every user's temp
	// dir.
	systemTreeExceptions = []string{"/var/tmp", "/dev/shm", "/run/user/",
		"/private/tmp", "/private/var/tmp", "/private/var/folders/"}
)

// systemTreeOf is the system tree the resolved directory r is in, or ""
// when it is in none (or in one of the exceptions).
func systemTreeOf(r string) string {
	if belowAny(r, systemTreeExceptions) {
		return ""
	}
	for _, t := range systemTrees {
		if isBelowOrSame(r, t) {
			return t
		}
	}
	return ""
}

// SystemTempDir reads the system temp dir from tmpdir, the value of
// $TMPDIR, the way Go's os.TempDir does ("" is /tmp), but strictly: it
// takes the value only when, with its symlinks resolved, it is an existing
// directory owned by uid (or a sticky one, shared like /tmp), and it is
// neither "/", a directory directly below "/" other than /tmp, home or a
// directory above it, nor in a system tree (/etc, /usr, /bin, /sbin,
// /lib*, /boot, /proc, /sys, /dev, /opt, /var, /run, /snap, and macOS'
// /private, /System, /Library; /var/tmp, /dev/shm, what is below
// /run/user, /private/tmp, /private/var/tmp and what is below
// /private/var/folders are fine). Any other value (relative, missing,
// another user's, a file) is ignored, with the reason, and the temp dir is
// /tmp: an odd or hostile TMPDIR never makes more of the machine writable
// than an unset one. home is the user's home directory ("" skips that
// test); it looks at the filesystem but changes nothing.
func SystemTempDir(tmpdir, home string, uid int) TempDir {
	if tmpdir == "" {
		return TempDir{Dir: DefaultTempDir}
	}
	ignore := func(format string, args ...any) TempDir {
		return TempDir{Dir: DefaultTempDir, Ignored: tmpdir, Why: fmt.Sprintf(format, args...)}
	}
	if !filepath.IsAbs(tmpdir) {
		return ignore("it is not an absolute path")
	}
	_, r, err := Canonicalize(tmpdir, "/", "/")
	if err != nil {
		return ignore("it cannot be resolved: %v", err)
	}
	fi, err := os.Stat(r)
	switch {
	case err != nil:
		return ignore("%s does not exist", r)
	case !fi.IsDir():
		return ignore("%s is not a directory", r)
	case r == "/":
		return ignore("it is the root directory")
	case r == DefaultTempDir:
		return TempDir{Dir: r} // what an unset TMPDIR gives
	}
	if home != "" {
		if _, h, err := Canonicalize(home, "/", "/"); err == nil && isBelowOrSame(h, r) {
			return ignore("%s is your home directory or a directory above it", r)
		}
	}
	if filepath.Dir(r) == "/" && r != DefaultTempDir {
		return ignore("%s is a top-level directory", r)
	}
	if t := systemTreeOf(r); t != "" {
		return ignore("%s is in %s, a system directory", r, t)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid && fi.Mode()&os.ModeSticky == 0 {
		return ignore("%s belongs to another user (uid %s)", r, strconv.FormatUint(uint64(st.Uid), 10))
	}
	return TempDir{Dir: r}
}

// String says what the temp dir is, for picket show.
func (t TempDir) String() string {
	if t.Ignored != "" {
		return fmt.Sprintf("%s (TMPDIR=%q is ignored: %s)", t.Dir, t.Ignored, t.Why)
	}
	return t.Dir
}

// expandTempDir replaces TempDirToken at the start of p with dir ("" is
// /tmp).
func expandTempDir(p, dir string) string {
	rest, ok := strings.CutPrefix(p, TempDirToken)
	if !ok || rest != "" && rest[0] != '/' {
		return p
	}
	if dir == "" {
		dir = DefaultTempDir
	}
	return dir + rest
}

// ExpandTempDir is what p says once loaded, with dir as the system temp
// dir: TempDirToken at its start replaced, anything else unchanged.
func ExpandTempDir(p, dir string) string { return expandTempDir(p, dir) }

func expandTempDirs(ps []string, dir string) []string {
	var out []string
	for i, p := range ps {
		if q := expandTempDir(p, dir); q != p {
			if out == nil {
				out = slices.Clone(ps)
			}
			out[i] = q
		}
	}
	if out == nil {
		return ps
	}
	return out
}

// isBelowOrSame reports whether p is dir or below it.
func isBelowOrSame(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// belowAny reports whether p is one of dirs or below it; a dir written
// with a trailing "/" takes only what is below it.
func belowAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if below, ok := strings.CutSuffix(d, "/"); ok {
			if strings.HasPrefix(p, below+"/") {
				return true
			}
		} else if isBelowOrSame(p, d) {
			return true
		}
	}
	return false
}
