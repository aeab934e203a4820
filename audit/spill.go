package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// spillGlob matches the spill files of the log at path.
func spillGlob(path string) string { return globEscape(path) + ".spill-*.ndjson" }

// maxSpill is the most of a spill file a fold reads: a spill holds one
// line, far shorter.
const maxSpill = 16 << 20

// SpilledError is [Log.Append]'s error when the log's locks were not had
// within the wait: the line is kept whole in File, beside the log, and
// the next writer's [Log.Close] folds it into the log. [Tail] reads spill
// files too.
type SpilledError struct {
	File string        // the spill file holding the line
	Wait time.Duration // how long Append waited for the lock
	Err  error         // the lock that was held
}

func (e *SpilledError) Error() string {
	return fmt.Sprintf("%v: waited %v; kept the line in %s, which the next write folds into the log", e.Err, e.Wait, e.File)
}

func (e *SpilledError) Unwrap() error { return e.Err }

// spill keeps a line that could not get the log's lock in time in a file of
// its own beside the log, "<path>.spill-<pid>-<time>-<n>.ndjson".
func (l *Log) spill(line []byte, cause error) error {
	stamp := fmt.Sprintf("%s.spill-%d-%s", l.path, os.Getpid(), time.Now().UTC().Format("20060102T150405.000000000"))
	for i := 0; i < 100; i++ {
		name := fmt.Sprintf("%s-%d.ndjson", stamp, i)
		err := writeNew(name, line)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w; and failed to keep the line in %s: %v", cause, name, err)
		}
		l.markSpill()
		return &SpilledError{File: name, Wait: lockWait, Err: cause}
	}
	return fmt.Errorf("%w; and every spill file name was taken", cause)
}

// writeNew creates name holding b, whole: it writes b in one write to
// name.tmp, created exclusively, and links that to name (which fails if
// name exists), so a fold never sees a spill file half written.
func writeNew(name string, b []byte) error {
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = writeOnce(f, b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp, name)
}

// markSpill tells writers that a spill file waits: the lock file, empty
// otherwise, gets a byte, which a writer sees with one fstat instead of
// reading the directory on every write. The spill file exists before the
// mark, and a fold clears the mark before it lists them, so none is
// missed. A mark that cannot be written leaves the file to the next.
func (l *Log) markSpill() { l.lock.WriteAt([]byte("s"), 0) }

// fold appends the lines of the log's spill files to the log, each file in
// one write under the shared lock, and removes the file. It runs only when
// the lock file is marked (see [Log.markSpill]) and takes the lock only if
// it is free at once: the fold can wait for the next writer, the caller's
// answer cannot. A process that dies between the write and the removal
// leaves the file to be folded again, so its line appears twice; never
// lost.
func (l *Log) fold() error {
	if fi, err := l.lock.Stat(); err != nil || fi.Size() == 0 {
		return nil
	}
	ok, err := tryLockShared(l.lock)
	if err != nil || !ok {
		return err
	}
	defer unlock(l.lock)
	if err := l.lock.Truncate(0); err != nil {
		return err
	}
	names, err := filepath.Glob(spillGlob(l.path))
	var errs []error
	for _, n := range names {
		errs = append(errs, l.foldFile(n))
	}
	if err = errors.Join(append(errs, err)...); err != nil {
		l.markSpill() // for the next writer to try again
	}
	return err
}

// foldFile folds one spill file. Folds in several processes claim a file
// with a flock on it, as compress does.
func (l *Log) foldFile(name string) error {
	// Not a link: a spill file planted as one would fold what it names.
	src, err := openRead(name, syscall.O_NOFOLLOW)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // another process folded it
	}
	if err != nil {
		return fmt.Errorf("failed to fold %s: %w", name, err)
	}
	defer src.Close()
	ok, err := tryLockExclusive(src)
	if err != nil || !ok {
		return err // another process is folding it
	}
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil // folded between our open and our lock
	}
	b, err := io.ReadAll(io.LimitReader(src, maxSpill))
	if err != nil {
		return fmt.Errorf("failed to fold %s: %w", name, err)
	}
	b = entryLines(b)
	if len(b) > 0 {
		if err := l.appendRaw(b); err != nil {
			return fmt.Errorf("failed to fold %s: %w", name, err)
		}
	}
	return os.Remove(name)
}

// entryLines keeps the lines of b that are audit entries, each ending in
// a newline: a fold copies nothing else into the log.
func entryLines(b []byte) []byte {
	var out []byte
	scanLines(bytes.NewReader(b), func(line []byte) {
		if _, ok := parseLine(line); ok {
			out = append(append(out, line...), '\n')
		}
	})
	return out
}

// appendRaw writes b, whole lines, to the log in one write; the caller
// holds the lock. It does not rotate: a late rotation beats a lost line.
func (l *Log) appendRaw(b []byte) error {
	f, err := openRegular(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	err = writeOnce(f, b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// withSpills adds the matching records of the log's spill files to cur,
// the last n matching records of the current file, in time order, and
// keeps the last n. A record a fold copied into the file meanwhile is not
// repeated.
func withSpills(path string, cur []Record, f Filter, n int) []Record {
	names, _ := filepath.Glob(spillGlob(path))
	if len(names) == 0 {
		return cur
	}
	have := map[string]bool{}
	for _, r := range cur {
		have[string(r.Raw)] = true
	}
	out := cur
	for _, name := range names {
		recs, err := readFile(backup{path: name}, f, 0)
		if err != nil {
			continue
		}
		for _, r := range recs {
			if !have[string(r.Raw)] {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Record) int { return a.Entry.TS.Compare(b.Entry.TS) })
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
