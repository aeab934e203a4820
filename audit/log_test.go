package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is an injectable time that tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newLog(t *testing.T, o Options) *Log {
	t.Helper()
	l, err := Open(o)
	if err != nil {
		t.Fatalf("Open(%+v) = %v", o, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func mustAppend(t *testing.T, l *Log, e Entry) {
	t.Helper()
	if err := l.Append(e); err != nil {
		t.Fatalf("Append(%+v) = %v", e, err)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestDefaultPath(t *testing.T) {
	tests := []struct{ home, xdg, want string }{
		{"/home/u", "", "/home/u/.local/state/picket/audit.log"},
		{"/home/u", "/x/state", "/x/state/picket/audit.log"},
		{"/home/u", "relative", "/home/u/.local/state/picket/audit.log"},
	}
	for _, tt := range tests {
		if got := DefaultPath(tt.home, tt.xdg); got != tt.want {
			t.Errorf("DefaultPath(%q, %q) = %q, want %q", tt.home, tt.xdg, got, tt.want)
		}
	}
}

func TestAppendPermissionsAndFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "picket")
	path := filepath.Join(dir, "audit.log")
	c := &clock{time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.UTC)}
	l := newLog(t, Options{Path: path, Now: c.now})
	mustAppend(t, l, Entry{Decision: "block", Path: "/a\nb"})
	for name, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600, path + ".lock": 0o600} {
		fi, err := os.Stat(name)
		if err != nil || fi.Mode() != want {
			t.Errorf("Stat(%s) = %v, %v, want mode %v", name, fi.Mode(), err, want)
		}
	}
	got := readLines(t, path)
	want := `{"ts":"2026-05-06T07:08:09.123Z","session":"","agent":"","decision":"block","tool":"","access":"","path":"/a\nb","resolved":"","layer":"","rule":"","pattern":"","source":""}`
	if len(got) != 1 || got[0] != want {
		t.Errorf("log = %q, want [%q]", got, want)
	}
}

// TestOpenTightensLooseModes: an audit directory and files left 0755 and
// 0644 (an older picket, a person's mkdir) are made 0700 and 0600 when
// ours; another user's are left alone, with a warning.
func TestOpenTightensLooseModes(t *testing.T) {
	for _, owner := range []string{"mine", "another user's"} {
		t.Run(owner, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "picket")
			path := filepath.Join(dir, "audit.log")
			os.MkdirAll(dir, 0o755)
			os.Chmod(dir, 0o755)
			for _, f := range []string{path, path + ".lock"} {
				os.WriteFile(f, nil, 0o644)
				os.Chmod(f, 0o644)
			}
			want := map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600, path + ".lock": 0o600}
			if owner != "mine" {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another user needs root")
				}
				for name := range want {
					if err := os.Chown(name, 65534, 65534); err != nil {
						t.Skip(err)
					}
				}
				want = map[string]os.FileMode{dir: 0o755 | os.ModeDir, path: 0o644, path + ".lock": 0o644}
			}
			var warned []string
			l, err := Open(Options{Path: path, Warn: func(m string) { warned = append(warned, m) }})
			if err != nil {
				t.Fatalf("Open = %v", err)
			}
			l.Close()
			for name, mode := range want {
				if fi, err := os.Stat(name); err != nil || fi.Mode() != mode {
					t.Errorf("Stat(%s) = %v, %v, want mode %v", name, fi.Mode(), err, mode)
				}
			}
			if (owner == "mine") != (len(warned) == 0) {
				t.Errorf("warnings = %q, want none for my files and one each for another user's", warned)
			}
		})
	}
}

func TestAppendAfterClose(t *testing.T) {
	l := newLog(t, Options{Path: filepath.Join(t.TempDir(), "audit.log")})
	l.Close()
	if err := l.Append(Entry{Decision: "block"}); err == nil {
		t.Error("Append after Close = nil, want an error")
	}
	var nilLog *Log
	if err := nilLog.Append(Entry{Decision: "block"}); err == nil {
		t.Error("(*Log)(nil).Append = nil, want an error")
	}
}

func TestAppendUnwritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := newLog(t, Options{Path: path})
	if err := os.Mkdir(path, 0o700); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	err := l.Append(Entry{Decision: "block"})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Append into a directory = %v, want an error naming %s", err, path)
	}
}

func TestRotateOnFirstWriteOfUTCDay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	c := &clock{time.Date(2026, 5, 6, 23, 59, 58, 0, time.UTC)}
	l := newLog(t, Options{Path: path, Now: c.now})
	mustAppend(t, l, Entry{Decision: "block", Path: "/1"})
	c.t = c.t.Add(time.Second) // 23:59:59, same day
	mustAppend(t, l, Entry{Decision: "block", Path: "/2"})
	if bs, _ := backups(path); len(bs) != 0 {
		t.Fatalf("rotated within a day: %v", bs)
	}
	c.t = c.t.Add(time.Second) // 00:00:00 next day
	mustAppend(t, l, Entry{Decision: "block", Path: "/3"})
	mustAppend(t, l, Entry{Decision: "block", Path: "/4"})
	if got := readLines(t, path); len(got) != 2 || !strings.Contains(got[0], `"/3"`) {
		t.Errorf("current file after the day changed = %q, want /3 and /4", got)
	}
	// A local-time day change is not a UTC one.
	c.t = time.Date(2026, 5, 7, 23, 0, 0, 0, time.FixedZone("", 2*3600)) // 21:00 UTC
	mustAppend(t, l, Entry{Decision: "block", Path: "/5"})
	if err := l.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	bs, err := backups(path)
	if err != nil || len(bs) != 1 || !bs[0].gz {
		t.Fatalf("backups = %+v, %v, want one compressed file", bs, err)
	}
	recs, err := Tail(path, 0, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Entry.Path)
	}
	if strings.Join(got, " ") != "/1 /2 /3 /4 /5" {
		t.Errorf("Tail = %v, want /1 /2 /3 /4 /5", got)
	}
}

func TestRotateBySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := newLog(t, Options{Path: path, maxBytes: 1000})
	for i := 0; i < 50; i++ {
		mustAppend(t, l, Entry{Decision: "block", Path: strings.Repeat("x", 100)})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	bs, _ := backups(path)
	if len(bs) < 5 {
		t.Errorf("%d rotated files, want at least 5", len(bs))
	}
	for _, b := range bs {
		if !b.gz {
			t.Errorf("%s not compressed", b.path)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > 1000 {
		t.Errorf("current file: %v, %v, want at most 1000 bytes", fi, err)
	}
	recs, err := Tail(path, 0, Filter{})
	if err != nil || len(recs) != 50 {
		t.Errorf("Tail = %d records, %v, want 50", len(recs), err)
	}
}

func TestOversizedLineIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := newLog(t, Options{Path: path, maxBytes: 100})
	mustAppend(t, l, Entry{Decision: "block", Path: strings.Repeat("x", 500)})
	if got := readLines(t, path); len(got) != 1 {
		t.Errorf("log = %q, want the one oversized line", got)
	}
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	files := map[string]bool{ // name: kept
		backupName(path, now.Add(-10*24*time.Hour)) + ".gz":    false,
		backupName(path, now.Add(-8*24*time.Hour)):             false,
		backupName(path, now.Add(-8*24*time.Hour)) + ".gz.tmp": false, // a crashed compression
		backupName(path, now.Add(-6*24*time.Hour)) + ".gz":     true,
		backupName(path, now.Add(-3*24*time.Hour)):             true, // compressed by Close
		filepath.Join(dir, "audit-notes.txt"):                  true, // not ours
	}
	line := `{"ts":"2026-05-01T00:00:00.000Z","decision":"block"}` + "\n"
	for name := range files {
		if err := os.WriteFile(name, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte(`{"ts":"2026-05-19T00:00:00.000Z","decision":"block"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &clock{now}
	l := newLog(t, Options{Path: path, MaxAgeDays: 7, Now: c.now})
	mustAppend(t, l, Entry{Decision: "block"}) // first write of the 20th: rotates
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for name, kept := range files {
		_, err := os.Stat(name)
		if !kept && err == nil {
			t.Errorf("%s kept, want it removed", filepath.Base(name))
		}
		if kept && err != nil && !strings.HasSuffix(name, ".log") {
			t.Errorf("%s removed, want it kept", filepath.Base(name))
		}
	}
	if _, err := os.Stat(backupName(path, now.Add(-3*24*time.Hour)) + ".gz"); err != nil {
		t.Errorf("3-day-old file not compressed: %v", err)
	}
	bs, _ := backups(path)
	if len(bs) != 3 {
		t.Errorf("backups = %+v, want 3 (6 and 3 days old, and today's)", bs)
	}
}

// TestOpenLeavesSharedDir: a picket.audit.path in a directory that is not
// picket's own (the person's home, say) tightens the log, never the
// directory.
func TestOpenLeavesSharedDir(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "picket-audit.log")
	os.WriteFile(path, nil, 0o644)
	os.Chmod(path, 0o644)
	l, err := Open(Options{Path: path, SharedDir: true})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	l.Close()
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
		t.Errorf("the shared directory's mode = %v, want it left at 0755", fi.Mode())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the log's mode = %v, want 0600", fi.Mode())
	}
}
