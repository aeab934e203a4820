package audit

import (
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeGz writes lines as a compressed rotated file.
func writeGz(t *testing.T, name string, lines ...string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(strings.Join(lines, "\n") + "\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func paths(recs []Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Entry.Path)
	}
	return strings.Join(out, " ")
}

func TestTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	rot := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	writeGz(t, backupName(path, rot.Add(-24*time.Hour))+".gz",
		`{"ts":"2026-04-30T10:00:00.000Z","session":"a","decision":"block","path":"/1"}`,
		`{"ts":"2026-04-30T11:00:00.000Z","session":"b","decision":"grant-once","path":"/2"}`,
	)
	// Plain and compressed copies of one file: the compression has not
	// finished, so only the plain one counts.
	plain := strings.Join([]string{
		`{"ts":"2026-05-01T10:00:00.000Z","session":"a","decision":"block","path":"/3"}`,
		`not json, a torn line`,
		`{"ts":"2026-05-01T11:00:00.000Z","session":"b","decision":"block","path":"/4"}`,
	}, "\n") + "\n"
	os.WriteFile(backupName(path, rot), []byte(plain), 0o600)
	writeGz(t, backupName(path, rot)+".gz", `{"ts":"2026-05-01T10:00:00.000Z","session":"a","decision":"block","path":"/3"}`)
	os.WriteFile(path, []byte(strings.Join([]string{
		`{"ts":"2026-05-02T10:00:00.000Z","session":"a","decision":"error","path":"/5"}`,
		`{"ts":"2026-05-02T11:00:00.000Z","session":"b","decision":"block","path":"/6"}`,
		`{"ts":"2026-05-02T12:00:00.000Z","session":"a","decision":"block","pa`, // no newline: a short write
	}, "\n")), 0o600)

	tests := []struct {
		n    int
		f    Filter
		want string
	}{
		{0, Filter{}, "/1 /2 /3 /4 /5 /6"},
		{20, Filter{}, "/1 /2 /3 /4 /5 /6"},
		{3, Filter{}, "/4 /5 /6"},
		{1, Filter{}, "/6"},
		{0, Filter{Session: "a"}, "/1 /3 /5"},
		{2, Filter{Session: "a"}, "/3 /5"},
		{0, Filter{Decision: "block"}, "/1 /3 /4 /6"},
		{0, Filter{Session: "b", Decision: "block"}, "/4 /6"},
		{0, Filter{Since: time.Date(2026, 5, 1, 11, 0, 0, 0, time.UTC)}, "/4 /5 /6"},
		{0, Filter{Since: time.Date(2026, 4, 30, 10, 30, 0, 0, time.UTC)}, "/2 /3 /4 /5 /6"},
		{0, Filter{Session: "nobody"}, ""},
	}
	for _, tt := range tests {
		recs, err := Tail(path, tt.n, tt.f)
		if got := paths(recs); err != nil || got != tt.want {
			t.Errorf("Tail(%d, %+v) = %q, %v, want %q", tt.n, tt.f, got, err, tt.want)
		}
	}
	recs, _ := Tail(path, 1, Filter{})
	if want := `{"ts":"2026-05-02T11:00:00.000Z","session":"b","decision":"block","path":"/6"}`; string(recs[0].Raw) != want {
		t.Errorf("Raw = %s, want %s", recs[0].Raw, want)
	}
}

func TestTailMissing(t *testing.T) {
	recs, err := Tail(filepath.Join(t.TempDir(), "audit.log"), 20, Filter{})
	if err != nil || len(recs) != 0 {
		t.Errorf("Tail of a missing log = %v, %v, want nothing", recs, err)
	}
}

func TestFollowAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := newLog(t, Options{Path: path, maxBytes: 600})
	mustAppend(t, l, Entry{Decision: "block", Path: "/before"})

	var mu sync.Mutex
	var got []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- Follow(ctx, path, Filter{Decision: "block"}, func(r Record) {
			mu.Lock()
			got = append(got, r.Entry.Path)
			mu.Unlock()
		})
	}()
	time.Sleep(2 * followPoll) // let Follow open the file at its end
	var want []string
	for i := 0; i < 12; i++ { // about 180 bytes each: rotates every 3 lines
		p := "/" + strings.Repeat("x", i)
		dec := "block"
		if i%4 == 3 {
			dec = "error"
		} else {
			want = append(want, p)
		}
		mustAppend(t, l, Entry{Decision: dec, Path: p})
		if i%2 == 0 {
			time.Sleep(followPoll + followPoll/2) // at most one rotation per poll
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow = %v", err)
	}
	if bs, _ := backups(path); len(bs) < 3 {
		t.Errorf("%d rotations, want at least 3", len(bs))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Follow emitted %q, want %q", got, want)
	}
}

func TestFilterSession(t *testing.T) {
	const id = "250ef737-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
	tests := []struct {
		filter string
		want   bool
	}{
		{"", true},
		{id, true},
		{"250ef737", true}, // the prefix picket log shows
		{"250ef737-1c2d", true},
		{"250ef73", false}, // too short to name one session
		{"250ef738", false},
		{id + "x", false},
	}
	for _, tt := range tests {
		if got := (Filter{Session: tt.filter}).match(Entry{Session: id}); got != tt.want {
			t.Errorf("Filter{Session: %q}.match(%q) = %v, want %v", tt.filter, id, got, tt.want)
		}
	}
}

// TestTailCorruptBackup guards against one damaged rotated file hiding the
// whole log: it is skipped and named, and the rest is shown.
func TestTailCorruptBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	rot := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	writeGz(t, backupName(path, rot.Add(-time.Hour))+".gz", `{"ts":"2026-11-27T08:00:00.000Z","decision":"block","path":"/1"}`)
	bad := backupName(path, rot) + ".gz"
	os.WriteFile(bad, []byte("garbage\n"), 0o600)
	os.WriteFile(path, []byte(`{"ts":"2026-11-27T11:00:00.000Z","decision":"block","path":"/2"}`+"\n"), 0o600)

	recs, err := Tail(path, 0, Filter{})
	var se *SkippedError
	if !errors.As(err, &se) || len(se.Errs) != 1 || !strings.Contains(err.Error(), bad) {
		t.Errorf("Tail error = %v, want a *SkippedError naming %s", err, bad)
	}
	if got := paths(recs); got != "/1 /2" {
		t.Errorf("Tail = %q, want %q", got, "/1 /2")
	}
}

// TestTailLongLine guards against a line with no newline exhausting
// memory: a line past maxLine is skipped as a bad line, and the lines
// around it are read.
func TestTailLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	long := `{"ts":"2026-05-01T10:00:00.000Z","path":"/` + strings.Repeat("x", maxLine) + `"}`
	os.WriteFile(path, []byte(strings.Join([]string{
		`{"ts":"2026-05-01T09:00:00.000Z","path":"/1"}`,
		long,
		`{"ts":"2026-05-01T11:00:00.000Z","path":"/2"}`,
		strings.Repeat("y", maxLine+1), // and no newline
	}, "\n")), 0o600)
	recs, err := Tail(path, 0, Filter{})
	if got := paths(recs); err != nil || got != "/1 /2" {
		t.Errorf("Tail = %q, %v, want %q", got, err, "/1 /2")
	}
}

// TestTailNotRegular guards against a device that never ends (/dev/zero)
// and a FIFO that blocks the open: both are refused, by Tail and Follow.
func TestTailNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo, t.TempDir()} {
		if _, err := Tail(p, 20, Filter{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Tail(%s) error = %v, want not a regular file", p, err)
		}
		if err := Follow(context.Background(), p, Filter{}, func(Record) {}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Follow(%s) error = %v, want not a regular file", p, err)
		}
	}
}

// TestFollowLongLine checks that Follow holds no more than maxLine of a
// line whose newline does not come, and drops that line whole.
func TestFollowLongLine(t *testing.T) {
	var got []string
	fl := &follower{emit: func(r Record) { got = append(got, r.Entry.Path) }}
	fl.lines([]byte(`{"ts":"2026-05-01T09:00:00.000Z","path":"/1"}` + "\n" + `{"path":"/`))
	for range maxLine / (64 << 10) {
		fl.lines(make([]byte, 64<<10))
	}
	if len(fl.partial) > maxLine {
		t.Fatalf("follower holds %d bytes of one line, want at most %d", len(fl.partial), maxLine)
	}
	fl.lines([]byte(`x"}` + "\n" + `{"ts":"2026-05-01T11:00:00.000Z","path":"/2"}` + "\n"))
	if strings.Join(got, " ") != "/1 /2" {
		t.Errorf("Follow emitted %q, want %q", got, "/1 /2")
	}
}

// TestTailRotatedFIFO: a FIFO named as a rotated log (or compressed one)
// is skipped with the rest read, not opened and waited on for good; the
// same for a FIFO in place of the log while it is followed.
func TestTailRotatedFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	os.WriteFile(path, []byte(`{"ts":"2026-05-01T11:00:00.000Z","path":"/2"}`+"\n"), 0o600)
	for _, name := range []string{"audit-2026-05-01T09-00-00.000.log", "audit-2026-04-30T09-00-00.000.log.gz"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		recs []Record
		err  error
	}
	done := make(chan result, 1)
	go func() {
		recs, err := Tail(path, 20, Filter{})
		done <- result{recs, err}
	}()
	select {
	case r := <-done:
		if got := paths(r.recs); got != "/2" || r.err == nil || !strings.Contains(r.err.Error(), "not a regular file") {
			t.Errorf("Tail = %q, %v; want /2 and the FIFOs named as skipped", got, r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Tail still waits on a FIFO among the rotated logs after 20 s")
	}
	// Followed: the log is replaced by a FIFO.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- Follow(ctx, path, Filter{}, func(Record) {}) }()
	time.Sleep(300 * time.Millisecond)
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // a few polls
	cancel()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("Follow still waits on a FIFO in place of the log after 20 s")
	}
}
