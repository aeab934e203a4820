package grants

import "testing"

// TestAllowAllOnce: a batch's "allow all once" lets each listed path through
// once more in the same turn, then it is asked about again; another turn
// starts without it; Turn reads the state without noting a denial.
func TestAllowAllOnce(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for _, p := range []string{"/a", "/b", "/c"} {
		if _, err := s.NoteDenial("s1", "t1", "read", p, 3); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := s.Turn("s1", "t1")
	if err != nil || ts.Count != 3 || len(ts.Paths) != 3 {
		t.Fatalf("Turn = %+v, %v; want the 3 denied paths", ts, err)
	}
	if err := s.SetAllowAllOnce("s1", "t1", []string{"/a", "/b"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b"} {
		ts, err := s.NoteDenial("s1", "t1", "read", p, 3)
		if err != nil || !ts.AllowedOnce {
			t.Fatalf("NoteDenial(%s) after allow-all-once = %+v, %v; want AllowedOnce", p, ts, err)
		}
		ts, err = s.NoteDenial("s1", "t1", "read", p, 3)
		if err != nil || ts.AllowedOnce {
			t.Fatalf("second NoteDenial(%s) = %+v, %v; want it asked again, not allowed", p, ts, err)
		}
	}
	if ts, _ := s.NoteDenial("s1", "t1", "read", "/c", 3); ts.AllowedOnce {
		t.Fatal("/c was not in the batch the person allowed, but passed")
	}
	s.SetAllowAllOnce("s1", "t1", []string{"/d"})
	if ts, _ := s.NoteDenial("s1", "t2", "read", "/d", 3); ts.AllowedOnce {
		t.Fatal("an allow-all-once of turn t1 let /d through in turn t2")
	}
	if ts, _ := s.Turn("s1", "other"); ts.Count != 0 {
		t.Fatalf("Turn of another turn id = %+v, want empty", ts)
	}
}
