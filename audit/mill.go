package audit

import (
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// backupTimeFormat is lumberjack's layout for the rotation time in a rotated
// file's name, in UTC.
const backupTimeFormat = "2006-01-02T15-04-05.000"

// backup is one rotated file.
type backup struct {
	path    string    // full path, ending in .gz when compressed
	rotated time.Time // from the name
	gz      bool
}

// splitName returns the parts lumberjack puts around a backup's timestamp:
// "dir/audit.log" gives "dir/audit-" and ".log".
func splitName(path string) (prefix, ext string) {
	ext = filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-", ext
}

func backupName(path string, t time.Time) string {
	prefix, ext := splitName(path)
	return prefix + t.UTC().Format(backupTimeFormat) + ext
}

func backupExists(path string, t time.Time) bool {
	name := backupName(path, t)
	for _, n := range []string{name, name + ".gz"} {
		if _, err := os.Lstat(n); err == nil {
			return true
		}
	}
	return false
}

// backups lists the rotated files of path, oldest first. When a file exists
// both plain and compressed, the compression has not finished (or the plain
// file is about to be removed) and only the plain one is listed.
func backups(path string) ([]backup, error) {
	names, err := filepath.Glob(globEscape(strings.TrimSuffix(path, filepath.Ext(path))) + "-*")
	if err != nil {
		return nil, err
	}
	prefix, ext := splitName(path)
	plain := map[string]bool{}
	var out []backup
	for _, n := range names {
		b, ok := parseBackup(n, prefix, ext)
		if !ok {
			continue
		}
		if !b.gz {
			plain[n] = true
		}
		out = append(out, b)
	}
	out = slices.DeleteFunc(out, func(b backup) bool {
		return b.gz && plain[strings.TrimSuffix(b.path, ".gz")]
	})
	slices.SortFunc(out, func(a, b backup) int { return a.rotated.Compare(b.rotated) })
	return out, nil
}

func parseBackup(name, prefix, ext string) (backup, bool) {
	b := backup{path: name}
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return b, false
	}
	if r, ok := strings.CutSuffix(rest, ext+".gz"); ok {
		rest, b.gz = r, true
	} else if rest, ok = strings.CutSuffix(rest, ext); !ok {
		return b, false
	}
	t, err := time.Parse(backupTimeFormat, rest)
	if err != nil {
		return b, false
	}
	b.rotated = t
	return b, true
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mill removes rotated files rotated before cutoff and compresses the rest.
// Several processes may mill at once: each claims a file with a flock on it
// before compressing, and the .gz appears by rename, whole.
func mill(path string, cutoff time.Time) error {
	bs, err := backups(path)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range bs {
		switch {
		case b.rotated.Before(cutoff):
			errs = append(errs, removeExpired(b.path))
		case !b.gz:
			errs = append(errs, compress(b.path))
		}
	}
	return errors.Join(errs...)
}

func removeExpired(name string) error {
	var errs []error
	for _, n := range []string{name, strings.TrimSuffix(name, ".gz") + ".gz.tmp"} {
		if err := os.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// compress writes name.gz through name.gz.tmp and removes name. A process
// that dies midway leaves name in place, and the next mill starts over.
func compress(name string) (err error) {
	src, err := openRead(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // another process finished it
	}
	if err != nil {
		return err
	}
	defer src.Close()
	ok, err := tryLockExclusive(src)
	if err != nil || !ok {
		return err // another process is compressing it
	}
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil // finished between our open and our lock
	}
	tmp := name + ".gz.tmp"
	if err := gzipFile(src, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name+".gz"); err != nil {
		return err
	}
	return os.Remove(name)
}

func gzipFile(src *os.File, dst string) (err error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, src); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return out.Sync()
}
