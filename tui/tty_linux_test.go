package tui

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProcStat: the fields come from after the command name, which may
// hold spaces and parentheses.
func TestProcStat(t *testing.T) {
	p, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.ppid != os.Getppid() || p.pgrp != unix.Getpgrp() {
		t.Errorf("procStat(self) = %+v, want ppid %d and pgrp %d", p, os.Getppid(), unix.Getpgrp())
	}
}

// TestWalkReads: any ancestor in the terminal's foreground group that has
// the terminal as stdin is a reader, pid 1 included (the agent is pid 1 in
// a container); one in another group (a login shell waiting on its job) is
// not; what cannot be examined counts as a reader.
func TestWalkReads(t *testing.T) {
	type proc struct {
		ppid, pgrp int
		tty        bool // stdin is the terminal
	}
	const fg = 100
	tests := []struct {
		name string
		tree map[int]proc // picket's parent is 30
		want bool
	}{
		{"agent is the grandparent", map[int]proc{30: {20, fg, false}, 20: {10, fg, true}, 10: {1, 10, true}, 1: {0, 1, false}}, true},
		{"login shell in its own group", map[int]proc{30: {20, fg, false}, 20: {10, fg, false}, 10: {1, 10, true}, 1: {0, 1, false}}, false},
		{"agent is pid 1 of a container", map[int]proc{30: {1, fg, false}, 1: {0, fg, true}}, true},
		{"pid 1 of a container not reading", map[int]proc{30: {1, fg, false}, 1: {0, fg, false}}, false},
		{"an ancestor vanished", map[int]proc{30: {20, fg, false}}, true},
		{"a loop", map[int]proc{30: {20, 7, false}, 20: {30, 7, false}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stat := func(pid int) (procStatus, error) {
				p, ok := tt.tree[pid]
				if !ok {
					return procStatus{}, os.ErrNotExist
				}
				return procStatus{ppid: p.ppid, pgrp: p.pgrp}, nil
			}
			reads := func(pid int) (bool, error) { return tt.tree[pid].tty, nil }
			if got := walkReads(30, fg, stat, reads); got != tt.want {
				t.Errorf("walkReads = %v, want %v", got, tt.want)
			}
		})
	}
}
