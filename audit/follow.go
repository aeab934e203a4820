package audit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// followPoll is how often Follow looks for new lines.
const followPoll = 200 * time.Millisecond

// Follow calls emit with each matching entry appended to the log after the
// call, like tail -f, until ctx is done; it then returns nil. When the file
// rotates it finishes the old file and continues with the new one, so no
// entry is missed unless the file rotates twice within one poll (200 ms):
// the file in between is not read.
// Entries appended between an earlier [Tail] and this call are not emitted.
// As with Tail, a line longer than 4 MiB is skipped and a log that is not a
// regular file is an error.
func Follow(ctx context.Context, path string, f Filter, emit func(Record)) error {
	if err := checkRegular(path); err != nil {
		return err
	}
	fl := &follower{path: path, filter: f, emit: emit}
	if err := fl.open(true); err != nil {
		return err
	}
	defer fl.close()
	t := time.NewTicker(followPoll)
	defer t.Stop()
	for {
		if err := fl.poll(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

type follower struct {
	path    string
	filter  Filter
	emit    func(Record)
	f       *os.File // nil while the log does not exist
	partial []byte   // a line whose newline has not arrived
	long    bool     // partial grew past maxLine: drop up to the next newline
}

// open opens the current file, at its end when atEnd.
func (fl *follower) open(atEnd bool) error {
	f, err := openRead(fl.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if atEnd {
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
			return err
		}
	}
	fl.f, fl.partial, fl.long = f, nil, false
	return nil
}

func (fl *follower) close() {
	if fl.f != nil {
		fl.f.Close()
	}
}

// poll reads what is new, then switches files if the log was rotated or
// truncated. Writers never touch a file after rotating it away, so reading
// the old file to its end first loses nothing.
func (fl *follower) poll() error {
	if fl.f == nil {
		return fl.open(false)
	}
	if err := fl.read(); err != nil {
		return err
	}
	cur, err := os.Stat(fl.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // between lumberjack's rename and create
	}
	if err != nil {
		return err
	}
	old, err := fl.f.Stat()
	if err != nil {
		return err
	}
	pos, err := fl.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if os.SameFile(cur, old) && cur.Size() >= pos {
		return nil
	}
	if !os.SameFile(cur, old) {
		// Rotated: lines may have landed in the old file between the read
		// above and the rotation. No writer touches it after, so reading it
		// once more drains it.
		if err := fl.read(); err != nil {
			return err
		}
	}
	fl.close()
	fl.f = nil
	if err := fl.open(false); err != nil {
		return err
	}
	return fl.read()
}

// read emits the complete lines appended since the last read, a chunk at a
// time, so what it holds is at most one chunk and one [maxLine] line.
func (fl *follower) read() error {
	chunk := make([]byte, 64<<10)
	for {
		n, err := fl.f.Read(chunk)
		fl.lines(chunk[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lines adds buf to the partial line and emits each line it completes; a
// line longer than maxLine is dropped whole.
func (fl *follower) lines(buf []byte) {
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		end := i
		if i < 0 {
			end = len(buf)
		}
		if !fl.long && len(fl.partial)+end > maxLine {
			fl.partial, fl.long = nil, true
		}
		if !fl.long {
			fl.partial = append(fl.partial, buf[:end]...)
		}
		if i < 0 {
			return
		}
		if rec, ok := parseLine(fl.partial); !fl.long && ok && fl.filter.match(rec.Entry) {
			fl.emit(rec)
		}
		fl.partial, fl.long = nil, false
		buf = buf[i+1:]
	}
}
