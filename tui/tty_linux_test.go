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
