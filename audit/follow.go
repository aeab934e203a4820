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
// entry is missed unless the file rotates twice within one poll (200 ms).
// Entries appended between an earlier [Tail] and this call are not emitted.
func Follow(ctx context.Context, path string, f Filter, emit func(Record)) error {
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
}

// open opens the current file, at its end when atEnd.
func (fl *follower) open(atEnd bool) error {
	f, err := os.Open(fl.path)
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
	fl.f, fl.partial = f, nil
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
	fl.close()
	fl.f = nil
	if err := fl.open(false); err != nil {
		return err
	}
	return fl.read()
}

func (fl *follower) read() error {
	buf, err := io.ReadAll(fl.f)
	if err != nil {
		return err
	}
	buf = append(fl.partial, buf...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		if rec, ok := parseLine(bytes.Clone(buf[:i])); ok && fl.filter.match(rec.Entry) {
			fl.emit(rec)
		}
		buf = buf[i+1:]
	}
	fl.partial = bytes.Clone(buf)
	return nil
}
