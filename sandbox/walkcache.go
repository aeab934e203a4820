package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
)

// A cached walk is reused while every directory it read lists the same
// names and types: creating, removing or renaming an entry changes its
// directory's ctime, so a directory whose inode and ctime are unchanged is
// taken as is, and only the others are listed again and compared (the
// placeholders of the last sandbox come and go in the workspace root).
// The ctime, not the mtime: a command can set a directory's mtime back
// (utimensat), but setting it moves the ctime, which only the kernel sets.
// A directory changed within racyWindow of the walk is always listed again:
// a change in the same clock tick as the walk would not move its ctime.
// The cache lives in picket's state dir, which the sandbox cannot write.

const racyWindow = 2 * time.Second

// dirStamp identifies one state of a directory.
type dirStamp struct {
	Path  string `json:"p"`
	Ctime int64  `json:"c"`
	Ino   uint64 `json:"i"`
	Names string `json:"n"` // hash of the entries' names and types
	// Git is whether git took the directory as a git dir when it was
	// stamped (see [gitDirNames]): one the command makes into a repository
	// answers for the config it holds.
	Git bool `json:"g,omitempty"`
}

func stampOf(path string, fi os.FileInfo, ents []fs.DirEntry) dirStamp {
	h := sha256.New()
	names := map[string]bool{}
	for _, e := range ents {
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), e.Type())
		names[e.Name()] = true
	}
	git := filepath.Base(path) == ".git" || gitDirNames(path, func(n string) bool { return names[n] })
	return dirStamp{Path: path, Ctime: ctime(fi).UnixNano(), Ino: inode(fi), Names: hex.EncodeToString(h.Sum(nil)[:12]), Git: git}
}

// fresh reports whether the directory still lists what d recorded.
func (d dirStamp) fresh() bool {
	fi, err := os.Stat(d.Path)
	if err != nil {
		return false
	}
	if d.Ctime != 0 && ctime(fi).UnixNano() == d.Ctime && inode(fi) == d.Ino {
		return true
	}
	f, err := os.Open(d.Path)
	if err != nil {
		return false
	}
	ents, _ := f.ReadDir(-1)
	f.Close()
	return stampOf(d.Path, fi, ents).Names == d.Names
}

type cachedWalk struct {
	Key      string     `json:"key"`
	Hide     []Hidden   `json:"hide"`
	Protect  []string   `json:"protect"`
	Write    []string   `json:"write"`
	Read     []string   `json:"read"`
	Symlinks []string   `json:"symlinks"`
	Stats    Expansion  `json:"stats"`
	Dirs     []dirStamp `json:"dirs"`
}

// cacheKey names a walk by everything its result depends on.
// walkLogic names the walk's way of matching and bounding; a walk cached
// by an earlier picket, which may have missed paths this one finds, is not
// reused.
const walkLogic = 6

func cacheKey(s decide.Spec, root, home string, depth, entries int) string {
	b, _ := json.Marshal([]any{walkLogic, s.AllowRead, s.DenyRead, s.AllowWrite, s.DenyWrite, s.Mandatory, s.Blocklist, s.Permissions,
		s.CaseInsensitive, root, home, depth, entries})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func cacheFile(dir, key string) string { return filepath.Join(dir, "walk-"+key+".json") }

// readWalk reads a cached walk, fresh or not.
func readWalk(file string) (cachedWalk, bool) {
	var c cachedWalk
	b, err := os.ReadFile(file)
	return c, err == nil && json.Unmarshal(b, &c) == nil
}

func loadWalk(dir, key string) (expansion, bool) {
	if dir == "" {
		return expansion{}, false
	}
	c, ok := readWalk(cacheFile(dir, key))
	if !ok || c.Key != key {
		return expansion{}, false
	}
	for _, d := range c.Dirs {
		if !d.fresh() {
			return expansion{}, false
		}
	}
	c.Stats.Cached = true
	return expansion{hide: c.Hide, protect: c.Protect, write: c.Write, read: c.Read, symlinks: c.Symlinks, stats: c.Stats, dirs: c.Dirs,
		walkFile: cacheFile(dir, key)}, true
}

func saveWalk(dir, key string, x *expansion) {
	if dir == "" {
		return
	}
	file := cacheFile(dir, key)
	if !utf8Walk(x) {
		// JSON keeps strings as UTF-8: a name that is not would come back
		// as another (U+FFFD), and the sandbox would mount over a path that
		// does not exist instead of the one the walk found. Such a walk is
		// not kept; nor is the one before it, which no longer holds.
		os.Remove(file)
		return
	}
	recent := time.Now().Add(-racyWindow).UnixNano()
	dirs := append([]dirStamp{}, x.dirs...)
	for i := range dirs {
		if dirs[i].Ctime > recent {
			dirs[i].Ctime = 0 // never trusted as is: listed again each time
		}
	}
	b, err := json.Marshal(cachedWalk{Key: key, Hide: x.hide, Protect: x.protect, Write: x.write, Read: x.read,
		Symlinks: x.symlinks, Stats: x.stats, Dirs: dirs})
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d", file, os.Getpid())
	if os.WriteFile(tmp, b, 0o600) == nil && os.Rename(tmp, file) == nil {
		x.walkFile = file
	}
}

// utf8Walk reports whether every path the walk found is valid UTF-8, so
// that it survives a round trip through JSON.
func utf8Walk(x *expansion) bool {
	for _, h := range x.hide {
		if !utf8.ValidString(h.Path) {
			return false
		}
	}
	for _, list := range [][]string{x.protect, x.write, x.read, x.symlinks} {
		for _, p := range list {
			if !utf8.ValidString(p) {
				return false
			}
		}
	}
	for _, d := range x.dirs {
		if !utf8.ValidString(d.Path) {
			return false
		}
	}
	return true
}
