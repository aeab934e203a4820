package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A kernel sandbox cannot stop a file that only a glob names from being
// created, and "**/fence.jsonc" is such a glob: a command could write a
// policy file into a subdirectory, and the next command (or the file
// tools) started there would take it as the policy. So once the command
// has ended, picket looks for policy files that appeared while it ran and
// moves them aside. It looks where the walk that made the plan looked:
// every walked directory that changed while the command ran (its ctime,
// which no process can set back, is later than the command's start), and
// all of any directory it finds there that the walk did not read. A policy
// file counts as the command's when its inode changed after the start, or
// when it lies in a directory created or moved in after the start (a
// rename leaves the ctimes of what the directory holds alone), and the
// plan did not protect it.
//
// Should picket not live to do it (killed with SIGKILL, say), the check
// is left pending in picket's state dir, and the next picket run or hook
// does it before it reads any policy (see [RecoverQuarantine]).

// quarantineBudget bounds the entries read in changed and new directories
// (an npm install makes tens of thousands).
const quarantineBudget = 200_000

// The kernel stamps ctimes from a coarse clock (CLOCK_REALTIME_COARSE,
// a tick of a few milliseconds behind time.Now), or, with multigrain
// timestamps, from the fine one: the command's start is read from the
// coarse clock (coarseNow) and its end from the later of the two
// (ctimeCeiling), and a ctime after the start and not after the end is
// the command's. A write in the same tick as the
// start cannot be the command's (bubblewrap takes longer to set up); one
// in the same tick as the end may be either, and counts as the command's.

// policyNames are the file names discovery takes as a policy.
var policyNames = map[string]bool{"fence.jsonc": true, "fence.json": true}

// quarantinable reports whether a file named name in directory d (not a
// directory itself) is one only the person may create: a policy file; what
// Claude Code loads from a subdirectory's .claude (see [claudeLoads]), or
// a .claude or its skills, commands or agents that is a symlink to them;
// git's commondir beside HEAD, but not in a worktree's git dir, where git
// worktree add writes it (it points git at another directory's config and
// hooks, and makes a git dir of its directory; mandatory for the file
// tools, but only a glob, as a directory placeholder there breaks git);
// and what makes git run code the next time the person uses it
// there, which mandatory globs name but no mount can keep from being made:
// a git dir's config or config.worktree, a hook (not a .sample, which git
// never runs), a hooks that is a symlink, and a gitfile pointing git at a
// git dir of the command's choosing. gitDir says whether d is a git dir;
// ownConfig, that its config is the person's, whoever rewrote it.
func quarantinable(d, name string, gitDir, ownConfig bool) bool {
	switch {
	case policyNames[name], name == ".git":
		return true
	case name == ".claude":
		return true // not a directory: a symlink to skills or commands elsewhere
	case filepath.Base(d) == ".claude" && slices.Contains(nestedClaudeDirs, name):
		return true // the same, one level down
	case name == "commondir":
		// Beside HEAD, but not in a worktree's git dir: it makes a git dir
		// of any directory, reading the config and hooks of the one it
		// names.
		return gitDir && !strings.Contains(d, "/.git/worktrees/")
	case name == "hooks":
		// A hooks that is not a directory (the entry is one a walk of
		// directories would not enter): a symlink sending git to hooks
		// elsewhere.
		return gitDir
	case name == "config", name == "config.worktree":
		return gitDir && !ownConfig
	case claudeLoads(d):
		return true
	}
	return filepath.Base(d) == "hooks" && isGitDir(filepath.Dir(d)) && !strings.HasSuffix(name, ".sample")
}

// nestedClaudeDirs are what Claude Code loads from a subdirectory's
// .claude as well as from the project's: prompt text and tools of the
// agent's next sessions (hook/claude's configuration paths, which the
// file tools hold; here, what a command leaves there is moved aside).
var nestedClaudeDirs = []string{"skills", "commands", "agents"}

// claudeLoads reports whether d is in a subdirectory's .claude/skills,
// commands or agents, which Claude Code loads into its next sessions
// (mandatory globs for the file tools; the project's and home's own are
// held by mounts).
func claudeLoads(d string) bool {
	for _, sub := range nestedClaudeDirs {
		if strings.Contains(d+"/", "/.claude/"+sub+"/") {
			return true
		}
	}
	return false
}

// isGitDir reports whether git would take d as a git dir: a .git, or a
// directory holding what one holds (see [gitDirNames]): a bare repository,
// a submodule's or a worktree's git dir.
func isGitDir(d string) bool {
	if filepath.Base(d) == ".git" {
		return true
	}
	return gitDirNames(d, func(n string) bool {
		_, err := os.Lstat(filepath.Join(d, n))
		return err == nil
	})
}

// gitDirNames reports whether directory d, holding the names has says yes
// to, is one git uses as a git dir: HEAD beside objects and refs, or
// beside a commondir naming the directory that has them. A directory among
// a repository's refs or logs is not one, whatever its refs are called (a
// branch named commondir beside refs/remotes/origin/HEAD).
func gitDirNames(d string, has func(string) bool) bool {
	if !has("HEAD") || !(has("objects") && has("refs") || has("commondir")) {
		return false
	}
	for p := d; p != "/" && p != "."; p = filepath.Dir(p) {
		if b := filepath.Base(p); b == "refs" || b == "logs" {
			if up := filepath.Dir(p); filepath.Base(up) == ".git" || isGitDir(up) {
				return false
			}
		}
	}
	return true
}

// Quarantined is a policy file the command created and picket moved; Err
// says why it could not move it (MovedTo is then empty).
type Quarantined struct {
	Path, MovedTo string
	Err           error
}

// ReportQuarantined says on w what happened to a policy file the command
// created.
func ReportQuarantined(w io.Writer, m Quarantined) {
	if m.Err != nil {
		fmt.Fprintf(w, "picket: error: %s: %v; a policy file the command made there would be the policy of whatever starts below it: look before you start anything there\n", m.Path, m.Err)
		return
	}
	switch name := filepath.Base(m.Path); {
	case name == "commondir":
		fmt.Fprintf(w, "picket: blocked: the command created git's %s, which would point git at another directory's config and hooks; moved it to %s (only you may create it)\n", m.Path, m.MovedTo)
	case claudeLoads(filepath.Dir(m.Path)):
		fmt.Fprintf(w, "picket: blocked: the command created %s, which Claude Code would load as a skill, command or agent in its next sessions; moved it to %s (only you may create it)\n", m.Path, m.MovedTo)
	case policyNames[name]:
		fmt.Fprintf(w, "picket: blocked: the command created the policy file %s, which would have been the policy of whatever starts below it; moved it to %s (a policy file can only come from you)\n", m.Path, m.MovedTo)
	default:
		fmt.Fprintf(w, "picket: blocked: the command created %s, which git would run code from (a git config, a hook or a gitfile) the next time you use git there; moved it to %s (only you may create it)\n", m.Path, m.MovedTo)
	}
}

// quarantine moves aside the policy files created since start below the
// directories of stamps that changed. complete is false when the budget
// ran out before every new directory was read.
func quarantine(stamps []dirStamp, protect []string, start time.Time) (moved []Quarantined, complete bool) {
	q := quarantiner{start: start, known: map[string]bool{}, stamped: map[string]bool{}, wasGit: map[string]bool{}, budget: quarantineBudget}
	for _, f := range protect {
		q.known[f] = true
	}
	for _, d := range stamps {
		q.stamped[d.Path] = true
		q.wasGit[d.Path] = d.Git
		for _, k := range d.Kids {
			q.stamped[k] = true
		}
	}
	for _, d := range stamps {
		fi, err := os.Stat(d.Path)
		if err != nil || !ctime(fi).After(start) {
			continue // gone, or untouched while the command ran
		}
		// Another inode than the walk's: a directory moved onto the path.
		q.dir(d.Path, inode(fi) != d.Ino)
	}
	return q.moved, q.budget > 0
}

type quarantiner struct {
	start   time.Time
	known   map[string]bool // protected when the command started
	stamped map[string]bool // walked when the plan was made
	wasGit  map[string]bool // git dirs when the plan was made
	budget  int
	moved   []Quarantined
}

// dir checks one directory's entries, and walks those it holds that the
// plan's walk did not. In a directory made or moved in since the start
// (fresh), every policy file is the command's.
func (q *quarantiner) dir(d string, fresh bool) {
	ents, err := os.ReadDir(d)
	if err != nil && writable(d, 0o500) {
		ents, err = os.ReadDir(d) // the command made it unreadable
	}
	if err != nil {
		if !os.IsNotExist(err) {
			q.moved = append(q.moved, Quarantined{Path: d, Err: fmt.Errorf("could not look in it for policy files: %w", err)})
		}
		return
	}
	gitDir := isGitDir(d)
	ownConfig := false
	if gitDir && filepath.Base(d) != ".git" {
		if q.wasGit[d] {
			// The person's own repository (a bare mirror, a worktree's git
			// dir): git rewrites its config for a `git config`, so a new one
			// is not the command's to lose. (The shell does not hold it;
			// see docs/shell-sandbox.md.)
			ownConfig = true
		} else if !fresh {
			// A config made by an earlier command is the command's too
			// once this one makes its directory a repository.
			fresh = true
		}
	}
	became := q.becameGit(d)
	for _, e := range ents {
		if q.budget <= 0 {
			return
		}
		q.budget--
		p := filepath.Join(d, e.Name())
		switch {
		case !e.IsDir() && quarantinable(d, e.Name(), gitDir, ownConfig):
			q.check(p, fresh, became || filepath.Base(d) == "hooks" && q.becameGit(filepath.Dir(d)))
		case e.IsDir() && e.Name() == "hooks" && became:
			// Its hooks, an earlier command's too, walked or not.
			q.dir(p, true)
		case e.IsDir() && !q.stamped[p]:
			q.stamped[p] = true
			sub := fresh
			if fi, err := os.Lstat(p); err == nil && ctime(fi).After(q.start) {
				sub = true
			}
			q.dir(p, sub)
		}
	}
}

// becameGit reports whether d, walked when the plan was made and no git
// dir then, is one now: what an earlier command left in it (a config
// under .git/modules, which a mandatory glob protects once it exists) is
// the commands' own, not the person's, and goes with the rest.
func (q *quarantiner) becameGit(d string) bool {
	was, walked := q.wasGit[d]
	return walked && !was && filepath.Base(d) != ".git" && isGitDir(d)
}

// check moves p aside when the command made it (fresh: its directory is
// new, or newly a git dir). A protected path that existed when the
// command started is the person's, unless force (see [quarantiner.becameGit]).
func (q *quarantiner) check(p string, fresh, force bool) {
	if q.known[p] && !force {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil || !fresh && !ctime(fi).After(q.start) {
		return
	}
	to := fmt.Sprintf("%s.quarantined-%d", p, time.Now().UnixNano())
	err = os.Rename(p, to)
	if err != nil {
		err = fmt.Errorf("a file only you may create, which the command made and picket could not move aside: %w", err)
	}
	if err != nil && writable(filepath.Dir(p), 0o300) {
		err = os.Rename(p, to) // the command made its directory read-only
	}
	if err != nil {
		q.moved = append(q.moved, Quarantined{Path: p, Err: err})
		return
	}
	q.moved = append(q.moved, Quarantined{Path: p, MovedTo: to})
}

// writable adds the owner permissions perm to directory d, for a command
// that took them away to hide what it made; it reports whether it could.
func writable(d string, perm os.FileMode) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.Mode().Perm()&perm != perm && os.Chmod(d, fi.Mode().Perm()|perm) == nil
}

// pending is a quarantine check left for later, should picket die first.
// PID and Since name the picket that left it (Since is its start time in
// /proc/<pid>/stat), so a later picket can tell whether it still lives; a
// lock would not do, as a sandbox can read the record and hold one.
type pending struct {
	Start int64  `json:"start"` // the command's start, Unix ns
	Walk  string `json:"walk"`  // the cached walk whose directories to check
	// Keeper is the keeper that made the plan, asked first: the walk on
	// disk may lag what it knows by a second.
	Keeper  *pendingKeeper `json:"keeper,omitempty"`
	Protect []string       `json:"protect"`
	PID     int            `json:"pid"`
	Since   uint64         `json:"since"`
}

type pendingKeeper struct {
	Dir, Key, ID string
	Gen          uint64
}

// stamps are the directories a check left pending looks at: those the
// keeper saw change since the plan, or every one of the walk on disk.
func (pd pending) stamps() ([]dirStamp, bool) {
	if k := pd.Keeper; k != nil {
		if rep, ok := askKeeper(k.Dir, k.Key, keeperRequest{Op: "changed", ID: k.ID, Since: k.Gen}); ok {
			return changedStamps(rep.Changed), true
		}
	}
	return readStamps(pd.Walk)
}

func pendingDir(stateDir string) string { return filepath.Join(stateDir, "sandbox", "pending") }

// leavePending records the check for p's command, started at start; done
// records the command's window, which ended at end (see
// [ChangedDuringSandbox]), and removes the record once picket has done the
// check itself.
func leavePending(stateDir string, p Plan, start time.Time) (done func(end time.Time), err error) {
	since, ok := procStart(os.Getpid())
	if stateDir == "" || !ok {
		return func(time.Time) {}, nil
	}
	dir := pendingDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// Written under another name and renamed, so that no reader ever
	// sees half a record (and takes it for a dead one).
	f, err := os.CreateTemp(dir, "run-*.tmp")
	if err != nil {
		return nil, err
	}
	pd := pending{Start: start.UnixNano(), Walk: p.walkFile, Protect: p.Protect, PID: os.Getpid(), Since: since}
	if k := p.keeper; k != nil {
		pd.Keeper = &pendingKeeper{Dir: k.dir, Key: k.key, ID: k.id, Gen: k.gen}
	}
	b, _ := json.Marshal(pd)
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	record := strings.TrimSuffix(f.Name(), ".tmp") + ".json"
	if err == nil {
		err = os.Rename(f.Name(), record)
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return func(end time.Time) {
		// The window first: between the two, the record still holds it open.
		if recordWindow(stateDir, start, end) == nil {
			os.Remove(record)
		}
	}, nil
}

// RecoverQuarantine does the checks that picket runs which died before
// their own left pending: each record whose picket no longer runs. It is
// cheap when there are none (one directory read), so the hook calls it on
// every event, before it reads a policy.
func RecoverQuarantine(stateDir string, report func(Quarantined)) {
	dir := pendingDir(stateDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		var pd pending
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if json.Unmarshal(b, &pd) == nil {
			if since, ok := procStart(pd.PID); ok && since == pd.Since {
				continue // its picket still runs, and will do the check
			}
			if dirs, ok := pd.stamps(); ok {
				moved, _ := quarantine(dirs, pd.Protect, time.Unix(0, pd.Start))
				for _, m := range moved {
					report(m)
				}
			}
			// When its picket died is unknown: the window closes now.
			if recordWindow(stateDir, time.Unix(0, pd.Start), ctimeCeiling()) != nil {
				continue
			}
		}
		os.Remove(name)
	}
}
