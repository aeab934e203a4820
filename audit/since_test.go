package audit

import (
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"90s":                  now.Add(-90 * time.Second),
		"1h":                   now.Add(-time.Hour),
		"2d":                   now.Add(-48 * time.Hour),
		"0.5d":                 now.Add(-12 * time.Hour),
		"2026-05-01T00:00:00Z": time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1h", "-2d", "yesterday", "2026-05-01"} {
		if _, err := ParseSince(in, now); err == nil {
			t.Errorf("ParseSince(%q) took it", in)
		}
	}
}
