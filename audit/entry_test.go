package audit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEntryJSON(t *testing.T) {
	exit := 0
	tests := []struct {
		e    Entry
		want string
	}{
		{
			Entry{TS: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Decision: "block"},
			`{"ts":"2026-01-02T03:04:05.006Z","session":"","agent":"","decision":"block","tool":"","access":"","path":"","resolved":"","layer":"","rule":"","pattern":"","source":""}`,
		},
		{ // local times are written in UTC, sub-millisecond digits dropped
			Entry{TS: time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.FixedZone("", -5*3600)), Decision: ""},
			`{"ts":"2026-01-02T08:04:05.999Z","session":"","agent":"","decision":"","tool":"","access":"","path":"","resolved":"","layer":"","rule":"","pattern":"","source":""}`,
		},
		{
			Entry{TS: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Session: "s", Agent: "claude", Decision: "block",
				Tool: "Read", Access: "read", Path: "/a\n\x1b[2J", Resolved: "/b", Layer: "l", Rule: "r",
				Pattern: "p", Source: "src", Prompted: true, Reason: "why", Command: "ls", Cwd: "/c", Exit: &exit},
			`{"ts":"2026-01-02T03:04:05.000Z","session":"s","agent":"claude","decision":"block","tool":"Read","access":"read","path":"/a\n\u001b[2J","resolved":"/b","layer":"l","rule":"r","pattern":"p","source":"src","prompted":true,"reason":"why","command":"ls","cwd":"/c","exit":0}`,
		},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.e)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v, want %s", tt.e, got, err, tt.want)
			continue
		}
		var back Entry
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("Unmarshal(%s) = %v", got, err)
			continue
		}
		want := tt.e
		want.TS = want.TS.UTC().Truncate(time.Millisecond)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
	}
}

// TestEntryOldLines: lines of an older picket, which left empty members
// out, read as entries with those fields empty.
func TestEntryOldLines(t *testing.T) {
	var e Entry
	line := `{"ts":"2026-01-02T03:04:05.006Z","decision":"allow","path":"/p"}`
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", line, err)
	}
	want := Entry{TS: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Decision: "allow", Path: "/p"}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", line, diff)
	}
	if rec, ok := parseLine([]byte(line)); !ok {
		t.Errorf("parseLine(%s) = %+v, false, want true", line, rec)
	}
}

func TestParseLineRejects(t *testing.T) {
	for _, line := range []string{``, `{`, `{"ts":"yesterday","decision":"block"}`, `{"decision":"block"}`, `[]`, `{"ts":"2026-01-02T03:04:05.000Z","decision":"bl`} {
		if rec, ok := parseLine([]byte(line)); ok {
			t.Errorf("parseLine(%q) = %+v, true, want false", line, rec)
		}
	}
}
