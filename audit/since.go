package audit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a duration back from now (Go's units plus "d" for days)
// or an RFC 3339 time: picket log --since.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * float64(24*time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("invalid --since %q: want a duration such as 1h or an RFC 3339 time", s)
}
