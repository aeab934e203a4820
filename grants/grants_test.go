package grants

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 30, 4, 43, 1, 0, time.UTC)

// store returns a Store in a fresh directory with a clock the test moves.
func store(t *testing.T) (Store, *time.Time) {
	now := t0
	return Store{Dir: filepath.Join(t.TempDir(), "picket", "sessions"), Now: func() time.Time { return now }}, &now
}

// TestRevokeMissingLeavesNoFile: revoking a grant a session does not hold
// (a mistyped --session, say) creates no session or lock file.
func TestRevokeMissingLeavesNoFile(t *testing.T) {
	s, _ := store(t)
	if err := s.Add("s1", Grant{Access: "read", Path: "/a"}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"s2", "s1"} {
		if found, err := s.Revoke(session, "read", "/b"); found || err != nil {
			t.Errorf("Revoke(%s, read, /b) = %v, %v, want false, nil", session, found, err)
		}
	}
	after, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	names := func(es []os.DirEntry) (n []string) {
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	if diff := cmp.Diff(names(before), names(after)); diff != "" {
		t.Errorf("files after revoking a grant nobody holds (-before +after):\n%s", diff)
	}
}

func TestDefaultDir(t *testing.T) {
	tests := []struct{ home, xdg, want string }{
		{"/home/u", "", "/home/u/.local/state/picket/sessions"},
		{"/home/u", "/xdg/state", "/xdg/state/picket/sessions"},
		{"/home/u", "relative/state", "/home/u/.local/state/picket/sessions"},
	}
	for _, tt := range tests {
		if got := DefaultDir(tt.home, tt.xdg); got != tt.want {
			t.Errorf("DefaultDir(%q, %q) = %q, want %q", tt.home, tt.xdg, got, tt.want)
		}
	}
}

func TestGrants(t *testing.T) {
	s, _ := store(t)
	type op struct {
		do           string // add, has, revoke
		session      string
		access, path string
		want         bool
	}
	ops := []op{
		{"has", "s1", "read", "/a", false},
		{"add", "s1", "read", "/a", false},
		{"has", "s1", "read", "/a", true},
		{"has", "s1", "write", "/a", false},
		{"has", "s1", "read", "/a/b", false},
		{"has", "s1", "read", "/", false},
		{"has", "s2", "read", "/a", false},
		{"add", "s1", "read", "/a", false}, // duplicate: no second entry
		{"add", "s1", "write", "/a", false},
		{"revoke", "s1", "read", "/a", true},
		{"revoke", "s1", "read", "/a", false},
		{"revoke", "s3", "read", "/a", false},
		{"has", "s1", "read", "/a", false},
		{"has", "s1", "write", "/a", true},
	}
	for i, o := range ops {
		var got bool
		var err error
		switch o.do {
		case "add":
			err = s.Add(o.session, Grant{Access: o.access, Path: o.path})
		case "has":
			got, err = s.Has(o.session, o.access, o.path)
		case "revoke":
			got, err = s.Revoke(o.session, o.access, o.path)
		}
		if err != nil || got != o.want {
			t.Errorf("op %d: %s(%q, %q, %q) = %v, %v; want %v", i, o.do, o.session, o.access, o.path, got, err, o.want)
		}
	}
	got, err := s.List("s1")
	if diff := cmp.Diff([]Grant{{"write", "/a", t0}}, got); diff != "" || err != nil {
		t.Errorf("List(s1) error %v, mismatch (-want +got):\n%s", err, diff)
	}
}

func TestAddRejects(t *testing.T) {
	s, _ := store(t)
	for _, g := range []Grant{{"read", "rel", t0}, {"read", "/a/../b", t0}, {"", "/a", t0}, {"read", "", t0}} {
		if err := s.Add("s", g); err == nil {
			t.Errorf("Add(%+v) = nil, want an error", g)
		}
	}
}

func TestFileModes(t *testing.T) {
	s, _ := store(t)
	if err := s.Add("s", Grant{Access: "read", Path: "/a"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{s.Dir: 0o700 | os.ModeDir, filepath.Join(s.Dir, "s.json"): 0o600} {
		if fi, err := os.Stat(name); err != nil || fi.Mode() != want {
			t.Errorf("mode of %s = %v, %v; want %v", name, fi.Mode(), err, want)
		}
	}
	if err := os.Chmod(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("s", Grant{Access: "read", Path: "/b"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode after Add = %v, want 0700 restored", fi.Mode())
	}
}

func TestCorruptFileFailsClosed(t *testing.T) {
	tests := []struct{ name, content string }{
		{"not json", `{"version": 1, "session": "s", "grants": [`},
		{"empty", ``},
		{"other session", `{"version": 1, "session": "other", "grants": [{"access": "read", "path": "/a"}]}`},
		{"future version", `{"version": 2, "session": "s", "grants": [{"access": "read", "path": "/a"}]}`},
		{"wrong types", `{"version": 1, "session": "s", "grants": {"access": "read", "path": "/a"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := store(t)
			if err := os.MkdirAll(s.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(s.Dir, "s.json")
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Has("s", "read", "/a"); ok || err == nil {
				t.Errorf("Has on a corrupt file = %v, %v; want false and an error", ok, err)
			}
			if err := s.Add("s", Grant{Access: "read", Path: "/b"}); err == nil {
				t.Errorf("Add over a corrupt file succeeded")
			}
			if _, err := s.NoteDenial("s", "t", Denial{Access: "read", Path: "/b"}, 3); err == nil {
				t.Errorf("NoteDenial over a corrupt file succeeded")
			}
			if _, found, err := s.Coalesce("s", "read", "/a", t0, time.Second); found || err == nil {
				t.Errorf("Coalesce on a corrupt file = %v, %v; want not found and an error", found, err)
			}
			if b, _ := os.ReadFile(file); string(b) != tt.content {
				t.Errorf("corrupt file was overwritten")
			}
			if err := s.End("s"); err != nil {
				t.Errorf("End cannot clear a corrupt session: %v", err)
			}
			if ok, err := s.Has("s", "read", "/a"); ok || err != nil {
				t.Errorf("Has after End = %v, %v; want false, nil", ok, err)
			}
		})
	}
}

func TestSessionIDs(t *testing.T) {
	s, _ := store(t)
	outside := filepath.Dir(s.Dir)
	ids := []string{
		"0f3b1c2e-9a7d-4d7e-8c1a-1b2c3d4e5f60",
		"../../escape", "..", ".", "/etc/passwd", "a/b", "a\x00b", "~x", ".hidden",
		"UPPER", "upper", "sp ace", strings.Repeat("z", MaxSessionID), "é",
	}
	for i, id := range ids {
		if err := s.Add(id, Grant{Access: "read", Path: fmt.Sprintf("/p%d", i)}); err != nil {
			t.Fatalf("Add(%q) error: %v", id, err)
		}
	}
	for i, id := range ids {
		got, err := s.List(id)
		if err != nil || len(got) != 1 || got[0].Path != fmt.Sprintf("/p%d", i) {
			t.Errorf("List(%q) = %v, %v; want only /p%d", id, got, err, i)
		}
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.ContainsAny(e.Name(), "/\x00") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("unsafe file name %q", e.Name())
		}
	}
	if len(entries) != 2*len(ids) {
		t.Errorf("%d files in Dir, want %d (a state and a lock per session)", len(entries), 2*len(ids))
	}
	if names, _ := os.ReadDir(outside); len(names) != 1 {
		t.Errorf("files escaped Dir: %v", names)
	}
	all, err := s.ListAll()
	if err != nil || len(all) != len(ids) {
		t.Fatalf("ListAll = %d grants, %v; want %d", len(all), err, len(ids))
	}
	seen := map[string]bool{}
	for _, g := range all {
		seen[g.Session] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("ListAll lost session %q", id)
		}
	}
	for _, id := range []string{"", strings.Repeat("z", MaxSessionID+1)} {
		if err := s.Add(id, Grant{Access: "read", Path: "/p"}); err == nil {
			t.Errorf("Add(%q) = nil, want an error", id)
		}
		if ok, err := s.Has(id, "read", "/p"); ok || err == nil {
			t.Errorf("Has(%q) = %v, %v; want false and an error", id, ok, err)
		}
	}
}

func TestEndAndPrune(t *testing.T) {
	s, now := store(t)
	for _, id := range []string{"old", "fresh", "ended"} {
		if err := s.Add(id, Grant{Access: "read", Path: "/a"}); err != nil {
			t.Fatal(err)
		}
	}
	age := func(id string, d time.Duration) {
		for _, ext := range []string{".json", ".lock"} {
			at := t0.Add(-d)
			if err := os.Chtimes(filepath.Join(s.Dir, id+ext), at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	age("old", DefaultMaxAge+time.Hour)
	age("fresh", DefaultMaxAge-time.Hour)
	if err := s.End("ended"); err != nil {
		t.Fatal(err)
	}
	if err := s.End("never-existed"); err != nil {
		t.Errorf("End of an unknown session: %v", err)
	}
	*now = t0
	if err := s.Prune(DefaultMaxAge); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(s.Dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"fresh.json", "fresh.lock"}, names); diff != "" {
		t.Errorf("files after End and Prune mismatch (-want +got):\n%s", diff)
	}
	if err := (Store{Dir: filepath.Join(t.TempDir(), "missing")}).Prune(DefaultMaxAge); err != nil {
		t.Errorf("Prune of a missing Dir: %v", err)
	}
}

func TestBatchLimiting(t *testing.T) {
	s, _ := store(t)
	steps := []struct {
		do, turn, path string
		want           TurnState
		paths          []string // want.Paths()
	}{
		{"deny", "t1", "/a", TurnState{Count: 1, Denied: []Denial{{Access: "read", Path: "/a"}}}, []string{"/a"}},
		{"deny", "t1", "/a", TurnState{Count: 1, Denied: []Denial{{Access: "read", Path: "/a"}}}, []string{"/a"}}, // same path again
		{"deny", "t1", "/b", TurnState{Count: 2, Denied: []Denial{{Access: "read", Path: "/a"}, {Access: "read", Path: "/b"}}}, []string{"/a", "/b"}},
		{"deny", "t1", "/c", TurnState{Count: 3, Batch: true, Denied: []Denial{{Access: "read", Path: "/a"}, {Access: "read", Path: "/b"}, {Access: "read", Path: "/c"}}}, []string{"/a", "/b", "/c"}},
		{"deny-all", "t1", "", TurnState{}, nil},
		{"deny", "t1", "/d", TurnState{Count: 4, Batch: true, DenyAll: true, Denied: []Denial{{Access: "read", Path: "/a"}, {Access: "read", Path: "/b"}, {Access: "read", Path: "/c"}, {Access: "read", Path: "/d"}}}, []string{"/a", "/b", "/c", "/d"}},
		{"deny", "t2", "/a", TurnState{Count: 1, Denied: []Denial{{Access: "read", Path: "/a"}}}, []string{"/a"}}, // a new turn id starts over
		{"deny", "t2", "/b", TurnState{Count: 2, Denied: []Denial{{Access: "read", Path: "/a"}, {Access: "read", Path: "/b"}}}, []string{"/a", "/b"}},
		{"reset", "", "", TurnState{}, nil},
		{"deny", "t2", "/c", TurnState{Count: 1, Denied: []Denial{{Access: "read", Path: "/c"}}}, []string{"/c"}},
	}
	for i, st := range steps {
		switch st.do {
		case "deny":
			got, err := s.NoteDenial("s", st.turn, Denial{Access: "read", Path: st.path}, 3)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.want, got); diff != "" {
				t.Errorf("step %d: NoteDenial(%q, %q) mismatch (-want +got):\n%s", i, st.turn, st.path, diff)
			}
			if diff := cmp.Diff(st.paths, got.Paths()); diff != "" {
				t.Errorf("step %d: Paths() mismatch (-want +got):\n%s", i, diff)
			}
		case "deny-all":
			if err := s.SetDenyAll("s", st.turn); err != nil {
				t.Fatal(err)
			}
		case "reset":
			if err := s.ResetTurn("s"); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, _ := s.NoteDenial("other", "t2", Denial{Access: "read", Path: "/x"}, 0)
	if got.Count != 1 || got.Batch {
		t.Errorf("other session NoteDenial = %+v, want a fresh count and no batch (batchAfter 0)", got)
	}
	if ok, _ := s.Has("s", "read", "/a"); ok {
		t.Errorf("a denial became a grant")
	}
}

func TestCoalesce(t *testing.T) {
	s, now := store(t)
	const window = 200 * time.Millisecond
	first := t0
	if _, found, err := s.Coalesce("s", "read", "/a", first, window); found || err != nil {
		t.Fatalf("Coalesce before any answer = %v, %v", found, err)
	}
	*now = t0.Add(5 * time.Second) // the person took five seconds to answer
	if err := s.RecordAnswer("s", "read", "/a", "once", first); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		session      string
		access, path string
		arrived      time.Time
		want         string
		found        bool
	}{
		{"identical, 150 ms later", "s", "read", "/a", t0.Add(150 * time.Millisecond), "once", true},
		{"identical, at the edge", "s", "read", "/a", t0.Add(window), "once", true},
		{"identical, 201 ms later", "s", "read", "/a", t0.Add(window + time.Millisecond), "", false},
		{"other path", "s", "read", "/b", t0, "", false},
		{"other access", "s", "write", "/a", t0, "", false},
		{"other session", "s2", "read", "/a", t0, "", false},
	}
	for _, tt := range tests {
		got, found, err := s.Coalesce(tt.session, tt.access, tt.path, tt.arrived, window)
		if err != nil || got != tt.want || found != tt.found {
			t.Errorf("%s: Coalesce = %q, %v, %v; want %q, %v", tt.name, got, found, err, tt.want, tt.found)
		}
	}
	// The latest answer wins, and answers older than a minute are dropped.
	if err := s.RecordAnswer("s", "read", "/a", "deny", first.Add(10*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Coalesce("s", "read", "/a", first, window); got != "deny" {
		t.Errorf("Coalesce = %q, want the latest answer deny", got)
	}
	*now = t0.Add(2 * time.Minute)
	if err := s.RecordAnswer("s", "read", "/z", "deny", *now); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.Coalesce("s", "read", "/a", first, window); found {
		t.Errorf("an answer older than a minute was kept")
	}
}

// Tests that need a second process re-execute this test binary with
// childEnv set; TestMain runs the child instead of the tests.
const childEnv = "GRANTS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// runChild adds GRANTS_N grants under GRANTS_PREFIX and notes a denial of
// each in one turn, all to the session GRANTS_SESSION.
func runChild() int {
	s := Store{Dir: os.Getenv("GRANTS_DIR")}
	n, _ := strconv.Atoi(os.Getenv("GRANTS_N"))
	session := os.Getenv("GRANTS_SESSION")
	for i := range n {
		path := fmt.Sprintf("%s/%d", os.Getenv("GRANTS_PREFIX"), i)
		if err := s.Add(session, Grant{Access: "read", Path: path}); err != nil {
			fmt.Println(err)
			return 1
		}
		if _, err := s.NoteDenial(session, "turn", Denial{Access: "write", Path: path}, 3); err != nil {
			fmt.Println(err)
			return 1
		}
		if i%10 == 0 { // readers in between must never fail
			if ok, err := s.Has(session, "read", path); !ok || err != nil {
				fmt.Println("Has:", ok, err)
				return 1
			}
		}
	}
	return 0
}

func TestConcurrentProcessesLoseNothing(t *testing.T) {
	s, _ := store(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	prefixes := []string{"/a", "/b", "/c"}
	var wg sync.WaitGroup
	for _, prefix := range prefixes {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"=1", "GRANTS_DIR="+s.Dir, "GRANTS_N="+strconv.Itoa(n),
			"GRANTS_PREFIX="+prefix, "GRANTS_SESSION=../shared/session")
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %s: %v\n%s", prefix, err, out)
			}
		})
	}
	wg.Wait()
	got, err := s.List("../shared/session")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n*len(prefixes) {
		t.Errorf("%d grants, want %d", len(got), n*len(prefixes))
	}
	for _, prefix := range prefixes {
		for i := range n {
			if ok, err := s.Has("../shared/session", "read", fmt.Sprintf("%s/%d", prefix, i)); !ok || err != nil {
				t.Errorf("lost %s/%d: %v", prefix, i, err)
			}
		}
	}
	ts, err := s.NoteDenial("../shared/session", "turn", Denial{Access: "write", Path: "/a/0"}, 3)
	if err != nil || ts.Count != n*len(prefixes) {
		t.Errorf("denials this turn = %d, %v; want %d", ts.Count, err, n*len(prefixes))
	}
}
