package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
)

// Filter selects entries; a zero field selects all.
type Filter struct {
	// Session is a session id, or a prefix of one at least
	// [MinSessionPrefix] long, such as the eight characters [Format] shows.
	Session  string
	Decision string    // one of [Decisions]
	Since    time.Time // entries at or after
	// Tool is a tool name, matched without regard to case: "network" for
	// the shell sandbox's connections, "Read", "bash", ...
	Tool string
}

// MinSessionPrefix is the shortest session prefix a [Filter] accepts:
// shorter ones would match sessions nobody meant.
const MinSessionPrefix = 8

// Decisions lists the values of [Entry.Decision] picket writes.
func Decisions() []string {
	return []string{"allow", "block", "error", "grant-once", "grant-session", "grant-persist", "run"}
}

func (f Filter) match(e Entry) bool {
	return f.session(e.Session) &&
		(f.Decision == "" || e.Decision == f.Decision) &&
		(f.Tool == "" || strings.EqualFold(e.Tool, f.Tool)) &&
		(f.Since.IsZero() || !e.TS.Before(f.Since))
}

func (f Filter) session(id string) bool {
	return f.Session == "" || SessionMatches(id, f.Session)
}

// SessionMatches reports whether the session id is the one a person named
// as want: the whole id, or a prefix at least [MinSessionPrefix] long,
// such as the eight characters [Format] shows.
func SessionMatches(id, want string) bool {
	return id == want || len(want) >= MinSessionPrefix && strings.HasPrefix(id, want)
}

// Record is an entry as read back, with the exact line it came from.
type Record struct {
	Entry Entry
	Raw   []byte // the line, without its newline
}

// sinceSlack allows for entries stamped a little after their file's
// rotation time (clocks disagree) when Tail skips old files.
const sinceSlack = 24 * time.Hour

// maxLine is the longest line Tail and Follow read: a longer one is skipped
// as a bad line, so a log with no newline (or /dev/zero given as the log)
// cannot exhaust memory. Entries are far shorter; the longest fields are
// shell commands.
const maxLine = 4 << 20

// Tail returns the last n entries that match f, oldest first, from the
// current file, the spill files not yet folded into it (see [SpilledError])
// and the rotated ones (compressed or not); n <= 0 returns all.
// Lines that are not valid entries, or longer than 4 MiB, are skipped. A
// missing log is empty; a log that is not a regular file is an error. A
// rotated file that cannot be read (a corrupt .gz) is skipped, so one bad
// file does not hide the others: Tail then returns the records of the rest
// together with a [*SkippedError] naming it.
func Tail(path string, n int, f Filter) ([]Record, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	bs, err := backups(path)
	if err != nil {
		return nil, err
	}
	files := []backup{{path: path}}
	for i := len(bs) - 1; i >= 0; i-- {
		files = append(files, bs[i])
	}
	var out []Record
	var skipped []error
	for _, b := range files {
		if b.path != path && !f.Since.IsZero() && b.rotated.Before(f.Since.Add(-sinceSlack)) {
			break // it and every older file ended before Since
		}
		recs, err := readFile(b, f, n-len(out))
		if err != nil && b.path != path {
			skipped = append(skipped, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		if b.path == path {
			recs = withSpills(path, recs, f, n)
		}
		out = append(recs, out...)
		if n > 0 && len(out) >= n {
			break
		}
	}
	if skipped != nil {
		return out, &SkippedError{Errs: skipped}
	}
	return out, nil
}

// SkippedError is [Tail]'s error when rotated files could not be read; the
// records of the other files come with it.
type SkippedError struct {
	Errs []error // one per skipped file, each naming it
}

func (e *SkippedError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error() + "; skipped it"
	}
	return strings.Join(msgs, "\n")
}

func (e *SkippedError) Unwrap() []error { return e.Errs }

// checkRegular refuses a log that exists and is not a regular file: a FIFO
// would block the open and a device such as /dev/zero never ends.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil // a missing log is empty; other errors show on open
	}
	return fmt.Errorf("%s is not a regular file (%s); the audit log must be one", path, fileKind(fi.Mode()))
}

// openRead opens a log file for reading, refusing anything but a regular
// file without blocking on it: a FIFO planted among the log files (or in
// place of the log while it is followed) would block the open for good.
func openRead(name string, flags ...int) (*os.File, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	for _, f := range flags {
		flag |= f
	}
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s); the audit log must be one", name, fileKind(fi.Mode()))
	}
	return f, nil
}

// fileKind names a file's type for an error message.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// readFile returns the last n matching records of one file (all if n <= 0).
func readFile(b backup, f Filter, n int) ([]Record, error) {
	r, err := openLog(b)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Record
	err = scanLines(r, func(line []byte) {
		rec, ok := parseLine(line)
		if !ok || !f.match(rec.Entry) {
			return
		}
		if n > 0 && len(out) == n {
			out = append(out[:0], out[1:]...)
		}
		out = append(out, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", b.path, err)
	}
	return out, nil
}

// openLog opens a log file, falling back to the compressed copy when a
// concurrent compression removed the plain one after it was listed.
func openLog(b backup) (io.ReadCloser, error) {
	name := b.path
	gz := b.gz
	fh, err := openRead(name)
	if errors.Is(err, fs.ErrNotExist) && !b.rotated.IsZero() && !gz {
		name, gz = name+".gz", true
		fh, err = openRead(name)
	}
	if err != nil || !gz {
		return fh, err
	}
	zr, err := gzip.NewReader(bufio.NewReader(fh))
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("failed to read %s: %w", name, err)
	}
	return gzReadCloser{zr, fh}, nil
}

type gzReadCloser struct {
	*gzip.Reader
	f *os.File
}

func (g gzReadCloser) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// scanLines calls fn with each newline-terminated line of r, without its
// newline; a last line without its newline is passed too (a reader may then
// reject it). A line longer than [maxLine] is skipped whole, never held.
func scanLines(r io.Reader, fn func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if long = long || len(line)+len(chunk) > maxLine; long {
			line = line[:0]
		} else {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 {
			fn(bytes.TrimSuffix(line, []byte("\n")))
		}
		line, long = nil, false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func parseLine(line []byte) (Record, bool) {
	var e Entry
	if len(line) == 0 || line[0] != '{' || e.UnmarshalJSON(line) != nil {
		return Record{}, false
	}
	return Record{Entry: e, Raw: line}, true
}
