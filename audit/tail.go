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
	"time"
)

// Filter selects entries; a zero field selects all.
type Filter struct {
	Session  string
	Decision string
	Since    time.Time // entries at or after
}

func (f Filter) match(e Entry) bool {
	return (f.Session == "" || e.Session == f.Session) &&
		(f.Decision == "" || e.Decision == f.Decision) &&
		(f.Since.IsZero() || !e.TS.Before(f.Since))
}

// Record is an entry as read back, with the exact line it came from.
type Record struct {
	Entry Entry
	Raw   []byte // the line, without its newline
}

// sinceSlack allows for entries stamped a little after their file's
// rotation time (clocks disagree) when Tail skips old files.
const sinceSlack = 24 * time.Hour

// Tail returns the last n entries that match f, oldest first, from the
// current file and the rotated ones (compressed or not); n <= 0 returns all.
// Lines that are not valid entries are skipped. A missing log is empty.
func Tail(path string, n int, f Filter) ([]Record, error) {
	bs, err := backups(path)
	if err != nil {
		return nil, err
	}
	files := []backup{{path: path}}
	for i := len(bs) - 1; i >= 0; i-- {
		files = append(files, bs[i])
	}
	var out []Record
	for _, b := range files {
		if b.path != path && !f.Since.IsZero() && b.rotated.Before(f.Since.Add(-sinceSlack)) {
			break // it and every older file ended before Since
		}
		recs, err := readFile(b, f, n-len(out))
		if err != nil {
			return nil, err
		}
		out = append(recs, out...)
		if n > 0 && len(out) >= n {
			break
		}
	}
	return out, nil
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
	fh, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !b.rotated.IsZero() && !gz {
		name, gz = name+".gz", true
		fh, err = os.Open(name)
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

// scanLines calls fn with each newline-terminated line of r; a last line
// without its newline is passed too (a reader may then reject it).
func scanLines(r io.Reader, fn func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fn(bytes.TrimSuffix(line, []byte("\n")))
		}
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
