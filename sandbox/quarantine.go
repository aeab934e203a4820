package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A kernel sandbox cannot stop a file that only a glob names from being
// created, and "**/fence.jsonc" is such a glob: a command could write a
// policy file into a subdirectory, and the next command (or the file
// tools) started there would take it as the policy. So once the command
// has ended, picket looks for policy files that appeared while it ran and
// moves them aside. It looks where the walk that made the plan looked:
// every walked directory whose listing changed, and all of any directory
// the command created there (up to quarantineBudget entries). A file is
// taken as the command's when its inode changed after the command started
// (ctime, which no process can set) and the plan did not protect it.

// quarantineBudget bounds the entries read below new directories.
const quarantineBudget = 20000

// policyNames are the file names discovery takes as a policy.
var policyNames = map[string]bool{"fence.jsonc": true, "fence.json": true}

// Quarantined is a policy file the command created and picket moved.
type Quarantined struct{ Path, MovedTo string }

// quarantine moves aside the policy files created since start below the
// plan's walked directories. complete is false when the budget ran out
// before every new directory was read.
func quarantine(p Plan, start time.Time) (moved []Quarantined, complete bool) {
	q := quarantiner{start: start, known: map[string]bool{}, stamped: map[string]bool{}, budget: quarantineBudget}
	for _, f := range p.Protect {
		q.known[f] = true
	}
	for _, d := range p.stamps {
		q.stamped[d.Path] = true
	}
	for _, d := range p.stamps {
		fi, err := os.Stat(d.Path)
		if err != nil || d.Mtime != 0 && fi.ModTime().UnixNano() == d.Mtime && inode(fi) == d.Ino {
			continue // gone, or lists what it did
		}
		q.dir(d.Path)
	}
	return q.moved, q.budget > 0
}

type quarantiner struct {
	start   time.Time
	known   map[string]bool // protected when the command started
	stamped map[string]bool // walked when the plan was made
	budget  int
	moved   []Quarantined
}

// dir checks one directory's entries, and walks those it holds that the
// plan's walk did not (the command made them, most likely).
func (q *quarantiner) dir(d string) {
	ents, err := os.ReadDir(d)
	if err != nil {
		return
	}
	for _, e := range ents {
		if q.budget <= 0 {
			return
		}
		q.budget--
		p := filepath.Join(d, e.Name())
		switch {
		case policyNames[e.Name()] && !e.IsDir():
			q.check(p)
		case e.IsDir() && !q.stamped[p]:
			q.stamped[p] = true
			q.dir(p)
		}
	}
}

func (q *quarantiner) check(p string) {
	if q.known[p] {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil || ctime(fi).Before(q.start) {
		return
	}
	to := fmt.Sprintf("%s.quarantined-%d", p, time.Now().UnixNano())
	if os.Rename(p, to) == nil {
		q.moved = append(q.moved, Quarantined{Path: p, MovedTo: to})
	}
}
