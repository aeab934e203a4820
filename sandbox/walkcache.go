package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/picketdev/picket/decide"
)

// A walk is kept in picket's state dir (which the sandbox cannot write),
// one file per policy, workspace and home, as one record per directory:
// its device, inode and ctime when read, and the entries of it the
// sandbox mounts something on. The next walk stats each directory and
// reads again only those whose inode or ctime changed (creating, removing
// or renaming an entry changes its directory's ctime; a directory moved
// or copied in has another inode), and what they newly hold. Measured on
// the benchmark's tree (sandbox/bench: 480,000 entries, 34,000
// directories), reading every directory takes 1.2-3 s and a stat of each
// 60-250 ms; a walk kept in JSON took 90 ms to load, this format 8 ms.
// What would retire it: a kernel interface that says which directories
// of a tree changed since a point in time.
//
// The ctime, not the mtime: a command can set a directory's mtime back
// (utimensat), but setting it moves the ctime, which only the kernel
// sets. A directory changed within racyWindow of the walk is always read
// again: a change in the same clock tick as the walk would not move its
// ctime.
const racyWindow = 2 * time.Second

// walkLogic names the walk's way of matching; a walk kept by an earlier
// picket, which may have missed paths this one finds, is not reused.
const walkLogic = 7

// walkMagic starts a kept walk's file.
const walkMagic = "picket-walk\x00"

// dirStamp is one directory as the walk read it, for the quarantine.
type dirStamp struct {
	Path string
	Ino  uint64
	// Git is whether git took the directory as a git dir when it was
	// stamped (see [gitDirNames]): one the command makes into a repository
	// answers for the config it holds.
	Git bool
	// Kids are the subdirectories the walk read in it, when the stamp
	// comes from a keeper's list of changed directories (the others are
	// not in the list).
	Kids []string
}

// walkCache is an earlier walk: its records, with an index of each
// record's children.
type walkCache struct {
	key  string
	told bool // the hidden, unwalked trees were reported
	recs []dirRec
	kids [][]int32
}

func (c *walkCache) index() {
	c.kids = make([][]int32, len(c.recs))
	for i := range c.recs {
		if p := c.recs[i].Parent; p >= 0 {
			c.kids[p] = append(c.kids[p], int32(i))
		}
	}
}

func (c *walkCache) children(i int32) []int32 { return c.kids[i] }

func (c *walkCache) childMap(i int32) map[string]int32 {
	m := make(map[string]int32, len(c.kids[i]))
	for _, k := range c.kids[i] {
		m[baseOf(c.recs[k].Path)] = k
	}
	return m
}

// rootRec is the earlier walk's record of a root, or -1.
func (c *walkCache) rootRec(path string) int32 {
	for i := range c.recs {
		if c.recs[i].Parent < 0 && c.recs[i].Path == path {
			return int32(i)
		}
	}
	return -1
}

// fresh reports whether a directory still has the inode and ctime it had
// when read.
func (c *walkCache) fresh(r *dirRec) bool {
	if r.Ctime == 0 {
		return false
	}
	dev, ino, ct, ok := statDir(r.Path)
	return ok && dev == r.Dev && ino == r.Ino && ct == r.Ctime
}

// cacheKey names a walk by everything its result depends on.
func cacheKey(s decide.Spec, root, home string, roots []walkRoot) string {
	b, _ := json.Marshal([]any{walkLogic, s.AllowRead, s.DenyRead, s.AllowWrite, s.DenyWrite, s.Mandatory, s.Blocklist, s.Permissions,
		s.CaseInsensitive, root, home, roots})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func cacheFile(dir, key string) string { return filepath.Join(dir, "walk-"+key+".bin") }

// loadCache reads the walk kept under key, or nil.
func loadCache(dir, key string) *walkCache {
	if dir == "" {
		return nil
	}
	c, err := readCache(cacheFile(dir, key))
	if err != nil || c.key != key {
		return nil
	}
	c.index()
	return c
}

// readCache reads a kept walk.
func readCache(file string) (*walkCache, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	d := decoder{b: b}
	if !bytes.HasPrefix(b, []byte(walkMagic)) {
		return nil, errors.New("not a kept walk")
	}
	d.b = d.b[len(walkMagic):]
	c := &walkCache{key: d.str()}
	c.told = d.byte() != 0
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		return nil, errors.New("bad kept walk")
	}
	c.recs = make([]dirRec, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		var r dirRec
		r.Parent = int32(d.uint()) - 1
		name := d.str()
		if r.Parent >= int32(len(c.recs)) {
			return nil, errors.New("bad kept walk")
		}
		r.Path = name
		if r.Parent >= 0 {
			r.Path = join(c.recs[r.Parent].Path, name)
		}
		r.Root, r.Flags, r.Done = uint8(d.uint()), d.byte(), d.byte()
		r.Dev, r.Ino, r.Ctime = d.uint(), d.uint(), d.int()
		nf := d.uint()
		if nf > uint64(len(d.b)) {
			return nil, errors.New("bad kept walk")
		}
		for k := uint64(0); k < nf; k++ {
			r.Found = append(r.Found, found{Name: d.str(), Kinds: d.byte(), Dir: d.byte() != 0, Target: d.str()})
		}
		r.from = -1
		c.recs = append(c.recs, r)
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
}

// saveCache keeps a walk, replacing the file at once (a concurrent picket
// reads the old walk or the new one). A directory whose ctime is within
// racyWindow of now is kept without it, so it is read again.
func saveCache(dir, key string, told bool, recs []dirRec) string {
	if dir == "" {
		return ""
	}
	recent := ctimeCeiling().Add(-racyWindow).UnixNano()
	b := append([]byte(walkMagic), 0)[:len(walkMagic)]
	b = appendStr(b, key)
	b = append(b, boolByte(told))
	b = binary.AppendUvarint(b, uint64(len(recs)))
	for _, r := range recs {
		b = binary.AppendUvarint(b, uint64(r.Parent+1))
		name := r.Path
		if r.Parent >= 0 {
			name = baseOf(r.Path)
		}
		b = appendStr(b, name)
		b = binary.AppendUvarint(b, uint64(r.Root))
		b = append(b, r.Flags, r.Done)
		ct := r.Ctime
		if ct > recent {
			ct = 0 // never trusted as is: read again each time
		}
		b = binary.AppendUvarint(b, r.Dev)
		b = binary.AppendUvarint(b, r.Ino)
		b = binary.AppendVarint(b, ct)
		b = binary.AppendUvarint(b, uint64(len(r.Found)))
		for _, f := range r.Found {
			b = appendStr(b, f.Name)
			b = append(b, f.Kinds, boolByte(f.Dir))
			b = appendStr(b, f.Target)
		}
	}
	file := cacheFile(dir, key)
	if os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	tmp := fmt.Sprintf("%s.%d", file, os.Getpid())
	if os.WriteFile(tmp, b, 0o600) != nil || os.Rename(tmp, file) != nil {
		os.Remove(tmp)
		return ""
	}
	return file
}

// readStamps reads the directories of a kept walk, for a quarantine left
// pending (see [RecoverQuarantine]).
func readStamps(file string) ([]dirStamp, bool) {
	c, err := readCache(file)
	if err != nil {
		return nil, false
	}
	var out []dirStamp
	for _, r := range c.recs {
		if r.Flags&(recPending|recStale|recUnreadable|recGone) == 0 {
			out = append(out, dirStamp{Path: r.Path, Ino: r.Ino, Git: r.Flags&recGit != 0})
		}
	}
	return out, true
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads what saveCache wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errors.New("truncated kept walk")
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// walkKeep is how long a kept walk nobody used stays on disk: every
// policy edit makes a walk of its own.
const walkKeep = 7 * 24 * time.Hour

// pruneWalks removes from dir the kept walks (and their specs) unused for
// walkKeep, those of the format before this one, and the sockets of
// keepers that no longer run. It runs when a walk is kept for the first
// time, which is rare.
func pruneWalks(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	old := time.Now().Add(-walkKeep)
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch ext := filepath.Ext(name); {
		case !strings.HasPrefix(name, "walk-"):
		case ext == ".json":
			os.Remove(p) // the format before the keeper
		case ext == ".bin" || ext == ".spec":
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(old) {
				os.Remove(p)
			}
		case ext == ".sock" || ext == ".lock" && name != keeperLock:
			// A keeper's, when keepers were one per walk, or one that died.
			if !keeperRuns(strings.TrimSuffix(p, ext) + ".lock") {
				os.Remove(p)
			}
		}
	}
}
