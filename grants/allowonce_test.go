package grants

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func read(p string) Denial  { return Denial{Access: "read", Path: p, Tool: "Read"} }
func write(p string) Denial { return Denial{Access: "write", Path: p, Tool: "Write"} }

// TestAllowAllOnce: a batch's "allow all once" lets each listed path through
// once more in the same turn, then it is asked about again; another turn
// starts without it; Turn reads the state without noting a denial.
func TestAllowAllOnce(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, p := range []string{"/a", "/b", "/c"} {
		if _, err := s.NoteDenial("s1", "t1", read(p), 3); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := s.Turn("s1", "t1")
	if err != nil || ts.Count != 3 || len(ts.Paths()) != 3 || len(ts.Denied) != 3 {
		t.Fatalf("Turn = %+v, %v; want the 3 denied paths", ts, err)
	}
	if err := s.SetAllowAllOnce("s1", "t1", []Denial{read("/a"), read("/b")}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b"} {
		ts, err := s.NoteDenial("s1", "t1", read(p), 3)
		if err != nil || !ts.AllowedOnce {
			t.Fatalf("NoteDenial(%s) after allow-all-once = %+v, %v; want AllowedOnce", p, ts, err)
		}
		ts, err = s.NoteDenial("s1", "t1", read(p), 3)
		if err != nil || ts.AllowedOnce {
			t.Fatalf("second NoteDenial(%s) = %+v, %v; want it asked again, not allowed", p, ts, err)
		}
	}
	if ts, _ := s.NoteDenial("s1", "t1", read("/c"), 3); ts.AllowedOnce {
		t.Fatal("/c was not in the batch the person allowed, but passed")
	}
	s.SetAllowAllOnce("s1", "t1", []Denial{read("/d")})
	if ts, _ := s.NoteDenial("s1", "t2", read("/d"), 3); ts.AllowedOnce {
		t.Fatal("an allow-all-once of turn t1 let /d through in turn t2")
	}
	if ts, _ := s.Turn("s1", "other"); ts.Count != 0 {
		t.Fatalf("Turn of another turn id = %+v, want empty", ts)
	}
}

// TestDenialsKeyedByAccess: a grant is exactly {access, resolved path}, so
// a turn keeps a read and a write of one path as two denials, each with its
// access and tool, and its "allow all once" of the reads lets no write of
// those paths through. (The batch threshold counts paths:
// TestBatchCountsPaths.)
func TestDenialsKeyedByAccess(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, d := range []Denial{read("/a"), read("/b"), write("/a")} {
		if _, err := s.NoteDenial("s1", "t1", d, 0); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := s.Turn("s1", "t1")
	if err != nil || ts.Count != 3 || len(ts.Denied) != 3 || ts.Denied[2] != write("/a") {
		t.Fatalf("Turn = %+v, %v; want 3 denials, the last a Write of /a", ts, err)
	}
	if err := s.SetAllowAllOnce("s1", "t1", []Denial{read("/a"), read("/b")}); err != nil {
		t.Fatal(err)
	}
	if ts, _ := s.NoteDenial("s1", "t1", write("/a"), 3); ts.AllowedOnce {
		t.Fatal("an allow-all-once of a read of /a let a write of /a through")
	}
	if ts, _ := s.NoteDenial("s1", "t1", read("/a"), 3); !ts.AllowedOnce {
		t.Fatal("the read of /a the person allowed once did not pass")
	}
}

// TestOneByOne: after the person's "one by one", the turn's later denials
// are not batched, however many there are; a new turn batches again.
func TestOneByOne(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, p := range []string{"/a", "/b", "/c"} {
		s.NoteDenial("s1", "t1", read(p), 3)
	}
	if err := s.SetIndividually("s1", "t1"); err != nil {
		t.Fatal(err)
	}
	if ts, err := s.NoteDenial("s1", "t1", read("/d"), 3); err != nil || ts.Batch || ts.Count != 4 {
		t.Fatalf("NoteDenial after one by one = %+v, %v; want counted, not batched", ts, err)
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		s.NoteDenial("s1", "t2", read(p), 3)
	}
	if ts, _ := s.Turn("s1", "t2"); ts.Count != 3 {
		t.Fatalf("Turn t2 = %+v", ts)
	}
	if ts, _ := s.NoteDenial("s1", "t2", read("/d"), 3); !ts.Batch {
		t.Fatal("a new turn after one by one is not batched")
	}
}

// TestBatchCountsPaths: a read and a write of one path are one path toward
// batchAfter, grouped under it with both accesses and tools.
func TestBatchCountsPaths(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, d := range []Denial{read("/a"), write("/a"), read("/b")} {
		ts, err := s.NoteDenial("s1", "t1", d, 3)
		if err != nil || ts.Batch {
			t.Fatalf("NoteDenial(%+v) = %+v, %v; want no batch before a 3rd path", d, ts, err)
		}
	}
	ts, err := s.NoteDenial("s1", "t1", write("/c"), 3)
	if err != nil || !ts.Batch || ts.Count != 4 {
		t.Fatalf("NoteDenial of a 3rd path = %+v, %v; want a batch over 4 denials", ts, err)
	}
	if diff := cmp.Diff([]string{"/a", "/b", "/c"}, ts.Paths()); diff != "" {
		t.Errorf("Paths() mismatch (-want +got):\n%s", diff)
	}
	want := []DeniedPath{
		{Path: "/a", Accesses: []string{"read", "write"}, Tools: []string{"Read", "Write"}},
		{Path: "/b", Accesses: []string{"read"}, Tools: []string{"Read"}},
		{Path: "/c", Accesses: []string{"write"}, Tools: []string{"Write"}},
	}
	if diff := cmp.Diff(want, ts.ByPath()); diff != "" {
		t.Errorf("ByPath() mismatch (-want +got):\n%s", diff)
	}
}

// TestGrantedIsNoDenial: a denial the person then let through, singly or
// by a batch's "allow all once", is no longer counted or listed; another
// access to the same path still is, and a grant in another turn changes
// nothing.
func TestGrantedIsNoDenial(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, d := range []Denial{read("/a"), write("/a"), read("/b")} {
		s.NoteDenial("s1", "t1", d, 3)
	}
	if err := s.Granted("s1", "t1", read("/a")); err != nil {
		t.Fatal(err)
	}
	s.Granted("s1", "t0", read("/b"))
	ts, _ := s.Turn("s1", "t1")
	if diff := cmp.Diff([]Denial{write("/a"), read("/b")}, ts.Denied); diff != "" {
		t.Errorf("Denied after granting the read of /a mismatch (-want +got):\n%s", diff)
	}
	if ts, _ := s.NoteDenial("s1", "t1", read("/c"), 3); !ts.Batch {
		t.Errorf("a 3rd denied path (/a written, /b, /c) = %+v, want a batch", ts)
	}
	s.SetAllowAllOnce("s1", "t1", []Denial{write("/a"), read("/b")})
	if ts, _ := s.Turn("s1", "t1"); !cmp.Equal([]string{"/c"}, ts.Paths()) {
		t.Errorf("Paths() after allow all once = %v, want [/c]", ts.Paths())
	}
}
