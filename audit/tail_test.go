package audit

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	l := newLog(t, Options{Path: path, maxBytes: 300})
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
	for i := 0; i < 12; i++ { // about 80 bytes each: rotates every 3 lines
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
