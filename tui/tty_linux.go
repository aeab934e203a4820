package tui

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

// ancestorReads reports whether an ancestor of picket may be reading the
// terminal f (picket's controlling terminal, opened as /dev/tty): one in the
// terminal's foreground process group whose stdin is that terminal. Agents
// run hooks through a shell with a pipe for stdin, so the agent reading its
// terminal raw is often the grandparent, not the parent; a login shell
// waiting for its job in its own, background, process group cannot read the
// terminal and does not count. It fails closed: when the terminal or an
// ancestor in its foreground group cannot be examined, it reports true.
func ancestorReads(f *os.File) bool {
	// /dev/tty is a device of its own (5:0); the terminal an ancestor has
	// as stdin is the one it stands for, picket's controlling terminal.
	ctty, err := controllingTTY()
	if err != nil {
		return true
	}
	fg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return true
	}
	return walkReads(os.Getppid(), fg, procStat, func(pid int) (bool, error) { return stdinIs(pid, ctty) })
}

// walkReads walks from pid up the process tree, through pid 1 (in a
// container, or any new PID namespace, the agent itself may be pid 1),
// and reports whether a process in the foreground process group fg has
// the terminal as stdin (reads says so). Anything it cannot examine, or a
// tree deeper than maxAncestors, counts as reading.
func walkReads(pid, fg int, stat func(pid int) (procStatus, error), reads func(pid int) (bool, error)) bool {
	for range maxAncestors {
		if pid < 1 {
			return false
		}
		p, err := stat(pid)
		if err != nil {
			return true
		}
		if p.pgrp == fg {
			if r, err := reads(pid); r || err != nil {
				return true
			}
		}
		pid = p.ppid
	}
	return true
}

// stdinIs reports whether process pid's stdin is the terminal device tty
// (or /dev/tty, which stands for it). A closed stdin is not.
func stdinIs(pid int, tty uint64) (bool, error) {
	var st unix.Stat_t
	err := unix.Stat(fmt.Sprintf("/proc/%d/fd/0", pid), &st)
	if err == unix.ENOENT {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	devTTY := unix.Mkdev(5, 0)
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && (st.Rdev == tty || st.Rdev == devTTY), nil
}

// controllingTTY is the device number of picket's controlling terminal.
func controllingTTY() (uint64, error) {
	p, err := procStat(os.Getpid())
	if err != nil {
		return 0, err
	}
	if p.ttyNr == 0 {
		return 0, fmt.Errorf("no controlling terminal")
	}
	// tty_nr packs the major in bits 8-15 and the minor in bits 0-7 and
	// 20-31 (proc(5)).
	major := (p.ttyNr >> 8) & 0xff
	minor := (p.ttyNr & 0xff) | ((p.ttyNr >> 12) & 0xfff00)
	return unix.Mkdev(uint32(major), uint32(minor)), nil
}

type procStatus struct{ ppid, pgrp, ttyNr int }

// procStat reads the parent pid, process group and controlling terminal
// of pid from /proc/<pid>/stat ("pid (comm) state ppid pgrp session
// tty_nr …"; comm may hold spaces and parentheses, so the fields are
// counted from its last ")").
func procStat(pid int) (procStatus, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStatus{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	fields := bytes.Fields(b[i+1:])
	if i < 0 || len(fields) < 5 {
		return procStatus{}, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var p procStatus
	for j, dst := range []*int{&p.ppid, &p.pgrp, nil, &p.ttyNr} {
		if dst == nil {
			continue
		}
		if *dst, err = strconv.Atoi(string(fields[1+j])); err != nil {
			return procStatus{}, fmt.Errorf("unexpected /proc/%d/stat: %w", pid, err)
		}
	}
	return p, nil
}
