package persist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// backupLayout names backups so that they sort by name in time order.
const backupLayout = "20060102T150405.000Z"

// keepBackups is how many backups of the policy file are kept.
const keepBackups = 3

// writer replaces one file atomically, keeping a backup of what it held.
type writer struct {
	file   string      // the resolved file to replace or create
	before fs.FileInfo // its metadata when read; nil when it did not exist
	old    []byte      // its content when read
	now    func() time.Time
	hook   func(tmp string)
}

// commit writes out to w.file and returns the backup's path, if any.
func (w writer) commit(out []byte) (backup string, err error) {
	tmp := w.file + ".tmp"
	if err := writeNew(tmp, out, w.mode()); err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if w.hook != nil {
		w.hook(tmp)
	}
	if w.before == nil {
		return "", w.create(tmp)
	}
	// The rename needs the directory only, so it would replace a file this
	// process may not write (another user's, or read-only) without a word.
	// Checked once tmp is written, so that a directory it may not write is
	// reported as such; a file gone meanwhile is left to unchanged.
	if err := mayWrite(w.file, w.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if backup, err = w.backup(); err != nil {
		return "", err
	}
	if err := w.unchanged(); err != nil {
		os.Remove(backup)
		return "", err
	}
	if err := os.Rename(tmp, w.file); err != nil {
		os.Remove(backup)
		return "", fmt.Errorf("failed to write %s: %w", w.file, err)
	}
	if err := syncDir(filepath.Dir(w.file)); err != nil {
		return backup, err
	}
	return backup, w.prune()
}

func (w writer) mode() fs.FileMode {
	if w.before != nil {
		return w.before.Mode().Perm()
	}
	return 0o644
}

// create links tmp to the new file, so that a file created meanwhile by
// someone else is not clobbered, and drops tmp.
func (w writer) create(tmp string) error {
	err := os.Link(tmp, w.file)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w", w.file, ErrChanged)
	}
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", w.file, err)
	}
	if err := os.Remove(tmp); err != nil {
		return fmt.Errorf("failed to remove %s: %w", tmp, err)
	}
	return syncDir(filepath.Dir(w.file))
}

// unchanged reports ErrChanged when the file is no longer the one read: its
// inode, size or mtime moved.
func (w writer) unchanged() error {
	fi, err := os.Stat(w.file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s %w", w.file, ErrChanged)
		}
		return fmt.Errorf("failed to read %s: %w", w.file, err)
	}
	if !os.SameFile(fi, w.before) || fi.Size() != w.before.Size() || !fi.ModTime().Equal(w.before.ModTime()) {
		return fmt.Errorf("%s %w", w.file, ErrChanged)
	}
	return nil
}

// writeNew writes data to a fresh file at name and syncs it. A leftover file
// or symlink at name (a writer killed before its rename, or a planted link)
// is removed first, and O_EXCL|O_NOFOLLOW keep the write from following one.
func writeNew(name string, data []byte, mode fs.FileMode) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("failed to remove stale %s: %w", name, err)
	}
	return writeExcl(name, data, mode)
}

func writeExcl(name string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("failed to sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("failed to sync %s: %w", dir, err)
	}
	return nil
}

// backup writes the old content to <file>.bak.<timestamp>. The timestamp is
// the clock's, moved past the newest existing backup so that names stay
// unique and sort in the order they were made even if the clock stalls or
// steps back.
func (w writer) backup() (string, error) {
	existing, err := backups(w.file)
	if err != nil {
		return "", err
	}
	at := w.now().UTC().Truncate(time.Millisecond)
	if n := len(existing); n > 0 && !at.After(existing[n-1].at) {
		at = existing[n-1].at.Add(time.Millisecond)
	}
	name := w.file + ".bak." + at.Format(backupLayout)
	if err := writeExcl(name, w.old, w.mode()); err != nil {
		return "", err
	}
	return name, nil
}

// prune deletes all but the newest keepBackups backups.
func (w writer) prune() error {
	existing, err := backups(w.file)
	if err != nil {
		return err
	}
	for len(existing) > keepBackups {
		if err := os.Remove(existing[0].name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("failed to remove old backup %s: %w", existing[0].name, err)
		}
		existing = existing[1:]
	}
	return nil
}

type backupFile struct {
	name string
	at   time.Time
}

// backups lists file's backups, oldest first. Names that merely look alike
// are left alone.
func backups(file string) ([]backupFile, error) {
	dir, prefix := filepath.Dir(file), filepath.Base(file)+".bak."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to list backups of %s: %w", file, err)
	}
	var out []backupFile
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		at, err := time.Parse(backupLayout, stamp)
		if err != nil || at.Format(backupLayout) != stamp {
			continue
		}
		out = append(out, backupFile{filepath.Join(dir, e.Name()), at})
	}
	slices.SortFunc(out, func(a, b backupFile) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
