package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestProbeUserNS: a failed probe run is tried again before user
// namespaces count as unavailable, with a pause before each retry.
func TestProbeUserNS(t *testing.T) {
	fail := errors.New("clone: resource temporarily unavailable")
	for _, tc := range []struct {
		name   string
		fails  int // runs that fail before one succeeds
		want   bool
		runs   int
		pauses []time.Duration
	}{
		{"works", 0, true, 1, nil},
		{"one transient failure", 1, true, 2, []time.Duration{probePause}},
		{"two transient failures", 2, true, 3, []time.Duration{probePause, 2 * probePause}},
		{"off for good", 100, false, 1 + probeRetries, []time.Duration{probePause, 2 * probePause}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			var pauses []time.Duration
			got := probeUserNS(func() error {
				runs++
				if runs <= tc.fails {
					return fail
				}
				return nil
			}, func(d time.Duration) { pauses = append(pauses, d) })
			if got != tc.want || runs != tc.runs || !slices.Equal(pauses, tc.pauses) {
				t.Errorf("probeUserNS after %d failures = %v with %d runs, pauses %v; want %v with %d runs, pauses %v",
					tc.fails, got, runs, pauses, tc.want, tc.runs, tc.pauses)
			}
		})
	}
}

// TestProbeRetries guards against one failed probe run leaving bash
// unfenced for a whole Pi session: Probe, with the probe command that
// PICKET_SANDBOX_PROBE sets, runs a failing probe again, while a missing
// bubblewrap is final without running it.
func TestProbeRetries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bwrap  bool
		fails  int
		userns bool
		runs   int
	}{
		{"transient failure", true, 1, true, 2},
		{"user namespaces off", true, 100, false, 1 + probeRetries},
		{"bubblewrap missing", false, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.bwrap {
				if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			count := filepath.Join(dir, "runs")
			// Appends one line per run; fails while fewer than fails+1 lines.
			probe := "echo run >> '" + count + "'; [ $(wc -l < '" + count + "') -gt " + strconv.Itoa(tc.fails) + " ]"
			st := Probe(bin, probe)
			b, _ := os.ReadFile(count)
			runs := strings.Count(string(b), "\n")
			if st.UserNS != tc.userns || runs != tc.runs || (st.Bwrap != "") != tc.bwrap {
				t.Errorf("Probe = %+v after %d probe runs, want userns %v after %d runs (bwrap present %v)", st, runs, tc.userns, tc.runs, tc.bwrap)
			}
		})
	}
}
