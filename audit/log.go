package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Options configures a [Log].
type Options struct {
	Path       string           // the log file; its directory is created 0700, the file 0600
	MaxSizeMB  int              // rotate before a write takes the file past this size; default 50
	MaxAgeDays int              // remove rotated files this many days after their rotation; default 7
	Now        func() time.Time // the clock for ts and rotation; default time.Now
	// Warn, when set, is told of a directory or file of the log that
	// others may read but that another user owns, so Open cannot tighten.
	Warn func(msg string)
	// SharedDir says the log's directory is not picket's own (a
	// picket.audit.path in the person's home, say): Open then leaves its
	// mode alone and tightens only the log and its lock.
	SharedDir bool

	// maxBytes overrides MaxSizeMB so tests can force rotations.
	maxBytes int64
}

// DefaultPath is $XDG_STATE_HOME/picket/audit.log, or
// ~/.local/state/picket/audit.log when XDG_STATE_HOME is unset or relative
// (as the XDG base directory specification requires).
func DefaultPath(home, xdgStateHome string) string {
	if xdgStateHome == "" || !filepath.IsAbs(xdgStateHome) {
		xdgStateHome = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(xdgStateHome, "picket", "audit.log")
}

// Log appends entries to the audit log. Its methods are safe for concurrent
// use, and any number of processes may append to the same path at once.
type Log struct {
	path   string
	max    int64
	maxAge time.Duration
	now    func() time.Time

	mu      sync.Mutex
	lock    *os.File // <path>.lock, flocked around every write
	gate    *os.File // <path>.gate, opened by the first rotating write
	lj      *lumberjack.Logger
	rotated bool // Close must compress and expire rotated files
}

// Open prepares the log at o.Path: it creates the directory (0700) and the
// lock file. The log file itself is created by the first [Log.Append]
// (0600). A directory or file that is already there with a looser mode
// (an older picket, a umask, a person's mkdir) is tightened to those modes
// when the effective user owns it; otherwise o.Warn is told.
func Open(o Options) (*Log, error) {
	if o.Path == "" {
		return nil, errors.New("audit log path is empty")
	}
	l := &Log{path: o.Path, now: o.Now, max: o.maxBytes}
	if l.now == nil {
		l.now = time.Now
	}
	if l.max <= 0 {
		l.max = int64(cmpOr(o.MaxSizeMB, 50)) << 20
	}
	l.maxAge = time.Duration(cmpOr(o.MaxAgeDays, 7)) * 24 * time.Hour
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o700); err != nil {
		return nil, fmt.Errorf("failed to create the audit log directory: %w", err)
	}
	if !o.SharedDir {
		tighten(filepath.Dir(o.Path), 0o700, o.Warn)
	}
	tighten(o.Path, 0o600, o.Warn)
	tighten(o.Path+".lock", 0o600, o.Warn)
	lock, err := openRegular(o.Path+".lock", os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("failed to open the audit log lock: %w", err)
	}
	l.lock = lock
	// lumberjack only renames and recreates the file, under our lock: its
	// own compression and retention run in a goroutine that an exiting hook
	// process would cut short, so Close does them instead.
	l.lj = &lumberjack.Logger{Filename: o.Path}
	return l, nil
}

// tighten sets the mode of p, a directory or regular file, to mode when
// others may read or write it and the effective user owns it, and tells
// warn when another user does (changing it is theirs to do) or the change
// fails: a loose mode is no reason to lose the line. A missing p, or one of
// another type, is left to the write that opens it.
func tighten(p string, mode fs.FileMode, warn func(string)) {
	if warn == nil {
		warn = func(string) {}
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil || !(fi.IsDir() || fi.Mode().IsRegular()) || fi.Mode().Perm()&^mode == 0:
	case !ownedByMe(fi):
		warn(fmt.Sprintf("%s has mode %v and another user owns it, so picket cannot make it %v", p, fi.Mode().Perm(), mode))
	default:
		if err := os.Chmod(p, mode); err != nil {
			warn(fmt.Sprintf("failed to make %s mode %v: %v", p, mode, err))
		}
	}
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Append writes e as one line, filling a zero TS from the clock. It rotates
// the file first when this is the first write of a UTC day or the line would
// take the file past its size limit.
func (l *Log) Append(e Entry) error {
	if l == nil {
		return errors.New("audit log is not open")
	}
	if e.TS.IsZero() {
		e.TS = l.now()
	}
	line, err := e.MarshalJSON()
	if err != nil {
		return fmt.Errorf("failed to encode audit entry: %w", err)
	}
	line = append(line, '\n')

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return errors.New("audit log is closed")
	}
	if err := l.append(line); err != nil {
		return fmt.Errorf("failed to append to %s: %w", l.path, err)
	}
	return nil
}

// errRotate is appendShared's report that the file must rotate first.
var errRotate = errors.New("the audit log must rotate first")

// append writes line under the shared lock, which is all the common path
// takes; a line that finds the file due for rotation goes through the gate
// (see [Log.appendRotating]). The locks it waits for share one deadline,
// lockWait away; a line that does not get them by then goes to a spill
// file (see [Log.spill]), so a hung lock holder costs the wait and never
// the line.
func (l *Log) append(line []byte) error {
	deadline := time.Now().Add(lockWait)
	err := l.appendShared(line, deadline)
	if errors.Is(err, errRotate) {
		err = l.appendRotating(line, deadline)
	}
	var held *heldError
	if errors.As(err, &held) {
		return l.spill(line, err)
	}
	return err
}

func (l *Log) appendShared(line []byte, deadline time.Time) (err error) {
	if err := lockShared(l.lock, deadline); err != nil {
		return err
	}
	defer unlockInto(l.lock, &err)
	done, err := l.write(line, false)
	if err == nil && !done {
		return errRotate
	}
	return l.takeBack(err, deadline)
}

// appendRotating appends a line that found the file due for rotation. It
// holds the gate, "<path>.gate", exclusively while it waits for the log's
// lock: every writer that finds the file due queues on the gate instead of
// polling for the log's lock itself, so the shared locks drain (each writer
// finds the file due in turn) and the one exclusive taker is not starved by
// others' overlapping shared locks. Under the gate it checks again under
// the shared lock, since the writer before it may have rotated already.
// flock's upgrade is not atomic, so the exclusive attempt checks again too.
func (l *Log) appendRotating(line []byte, deadline time.Time) (err error) {
	if l.gate == nil {
		// A gate that cannot be opened (a symlink planted there) costs
		// fairness, not the line.
		l.gate, _ = openRegular(l.path+".gate", os.O_RDWR|os.O_CREATE)
	}
	if l.gate != nil {
		if err := lockExclusive(l.gate, deadline); err != nil {
			return err
		}
		defer unlockInto(l.gate, &err)
	}
	if err := lockShared(l.lock, deadline); err != nil {
		return err
	}
	defer unlockInto(l.lock, &err)
	done, err := l.write(line, false)
	if err == nil && !done {
		if err := lockExclusive(l.lock, deadline); err != nil {
			return err
		}
		_, err = l.write(line, true)
	}
	return l.takeBack(err, deadline)
}

// unlockInto releases f, reporting a failure in *err unless it holds one.
func unlockInto(f *os.File, err *error) {
	if uerr := unlock(f); *err == nil {
		*err = uerr
	}
}

// takeBack repairs the log after a short write (see [Log.repair]), under
// the exclusive lock, and returns err with what the repair could not do.
func (l *Log) takeBack(err error, deadline time.Time) error {
	var short *shortWriteError
	if !errors.As(err, &short) || len(short.wrote) == 0 {
		return err
	}
	if lerr := lockExclusive(l.lock, deadline); lerr != nil {
		return err
	}
	if rerr := l.repair(short.wrote); rerr != nil {
		return fmt.Errorf("%w; and the part written stays: %v", err, rerr)
	}
	return err
}

// write appends line unless the file must rotate first; it rotates only when
// exclusive (the caller holds the lock exclusively) and otherwise reports
// done=false.
func (l *Log) write(line []byte, exclusive bool) (done bool, err error) {
	f, err := openRegular(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return false, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if l.mustRotate(f, int64(len(line))) {
		if !exclusive {
			return false, nil
		}
		if err := l.rotate(); err != nil {
			return false, err
		}
		f.Close()
		if f, err = openRegular(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE); err != nil {
			return false, err
		}
	}
	return true, writeOnce(f, line)
}

// openRegular opens p, which must be a regular file and not a symlink: a
// link would send the line wherever it points (a policy's audit path
// linked to ~/.zshenv would create it), a FIFO would swallow it.
func openRegular(p string, flag int) (*os.File, error) {
	f, err := os.OpenFile(p, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symlink: picket writes its audit log only to a regular file", p)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: picket writes its audit log only to a regular file", p)
	}
	return f, nil
}

// shortWriteError is a write the disk cut short (ENOSPC, a quota): wrote
// is the part of the line that landed.
type shortWriteError struct {
	path  string
	wrote []byte
	want  int
}

func (e *shortWriteError) Error() string {
	return fmt.Sprintf("short write to %s (%d of %d bytes): %v", e.path, len(e.wrote), e.want, io.ErrShortWrite)
}

func (e *shortWriteError) Unwrap() error { return io.ErrShortWrite }

// repair takes back the part of a line a short write left at the end of
// the log, under the exclusive lock (no writer is between), so the next
// line does not start glued to it; if others wrote after it, it ends the
// fragment with a newline instead. The line itself is lost either way.
func (l *Log) repair(part []byte) error {
	f, err := openRegular(l.path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	tail := make([]byte, len(part))
	if size >= int64(len(part)) {
		if _, err := f.ReadAt(tail, size-int64(len(part))); err == nil && bytes.Equal(tail, part) {
			return f.Truncate(size - int64(len(part)))
		}
	}
	last := make([]byte, 1)
	if size > 0 {
		if _, err := f.ReadAt(last, size-1); err == nil && last[0] != '\n' {
			return writeOnce(f, []byte("\n"))
		}
	}
	return nil
}

// mustRotate reports whether f, the current file, must be rotated before
// adding n bytes. An empty file never rotates, so an oversized line is still
// written. An unreadable size or day never forces a rotation: losing the
// line to a failed rotation is worse than a late one.
func (l *Log) mustRotate(f *os.File, n int64) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	if fi.Size()+n > l.max {
		return true
	}
	today := l.now().UTC().Format(time.DateOnly)
	return fileDay(f, fi) < today
}

// fileDay is the UTC day of the file's first line, which every writer agrees
// on without shared state (f is opened read-write for this); a first line
// that cannot be read falls back to the modification time.
func fileDay(f *os.File, fi os.FileInfo) string {
	const prefix = `{"ts":"`
	buf := make([]byte, len(prefix)+len(time.DateOnly))
	if _, err := f.ReadAt(buf, 0); err == nil || errors.Is(err, io.EOF) {
		if day, ok := parseDay(buf, prefix); ok {
			return day
		}
	}
	return fi.ModTime().UTC().Format(time.DateOnly)
}

func parseDay(buf []byte, prefix string) (string, bool) {
	if len(buf) < len(prefix)+len(time.DateOnly) || string(buf[:len(prefix)]) != prefix {
		return "", false
	}
	day := string(buf[len(prefix):])
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return "", false
	}
	return day, true
}

// rotate moves the current file aside through lumberjack. The caller holds
// the lock exclusively, so no writer has the file open.
func (l *Log) rotate() error {
	// lumberjack names backups by the millisecond; two rotations within
	// one would overwrite the first backup, so wait for a free name.
	for i := 0; i < 100 && backupExists(l.path, time.Now()); i++ {
		time.Sleep(time.Millisecond)
	}
	if err := l.lj.Rotate(); err != nil {
		return fmt.Errorf("failed to rotate: %w", err)
	}
	l.rotated = true
	return l.lj.Close()
}

// Close folds spill files into the log (see [Log.spill]) when the log's
// lock is free at once, releases the lock files and, if this Log rotated
// the file, compresses rotated files and removes those past their age.
// Call it after the hook has answered: compressing a large file takes a
// moment.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil
	}
	var err error
	err = l.fold()
	if l.rotated {
		err = errors.Join(err, mill(l.path, l.now().Add(-l.maxAge)))
	}
	if l.gate != nil {
		err = errors.Join(err, l.gate.Close())
		l.gate = nil
	}
	err = errors.Join(err, l.lock.Close())
	l.lock = nil
	return err
}
