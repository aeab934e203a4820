package grants

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
)

// DefaultMaxAge is how long an untouched session file is kept by
// [Store.Prune].
const DefaultMaxAge = 7 * 24 * time.Hour

// Grant lets one access to one exact resolved path through for the rest of a
// session; a "connect" grant lets a sandboxed command of the session reach
// one host (its Path, a domain name or an IP address) on any port.
type Grant struct {
	Access string    `json:"access"`
	Path   string    `json:"path"`
	At     time.Time `json:"at"`
}

// SessionGrant is a [Grant] with the session that holds it.
type SessionGrant struct {
	Session string
	Grant
}

// Has reports whether session holds a grant of access to path. It fails
// closed: on any error, such as a corrupt session file, it returns false.
func (s Store) Has(session, access, path string) (bool, error) {
	st, err := s.load(session)
	if errors.Is(err, ErrUntrusted) && s.Warn != nil {
		s.Warn(err)
	}
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(st.Grants, matches(access, path)), nil
}

// Add records g in session, stamping a zero At with the clock. Adding a grant
// the session already holds changes nothing.
func (s Store) Add(session string, g Grant) error {
	if g.Access == "" {
		return errors.New("grant has no access")
	}
	if g.Access == "connect" {
		// A network grant names one host, as an allowedDomains entry
		// spells it.
		if h, err := egress.ParseHost(g.Path); err != nil || egress.EntryFor(h) != g.Path {
			return fmt.Errorf("cannot grant %q: not a host in canonical form", g.Path)
		}
	} else if !filepath.IsAbs(g.Path) || filepath.Clean(g.Path) != g.Path {
		return fmt.Errorf("cannot grant %q: not an absolute clean path", g.Path)
	}
	if g.At.IsZero() {
		g.At = s.now()
	}
	return s.update(session, func(st *state) error {
		if !slices.ContainsFunc(st.Grants, matches(g.Access, g.Path)) {
			st.Grants = append(st.Grants, g)
		}
		return nil
	})
}

// Revoke removes session's grant of access to path, reporting whether there
// was one. A session without that grant is left as it is: no session file
// is created for it.
func (s Store) Revoke(session, access, path string) (bool, error) {
	st, err := s.load(session)
	if err != nil || !slices.ContainsFunc(st.Grants, matches(access, path)) {
		return false, err
	}
	var found bool
	err = s.update(session, func(st *state) error {
		n := len(st.Grants)
		st.Grants = slices.DeleteFunc(st.Grants, matches(access, path))
		found = len(st.Grants) != n
		return nil
	})
	return found, err
}

// List returns session's grants in the order they were given.
func (s Store) List(session string) ([]Grant, error) {
	st, err := s.load(session)
	return st.Grants, err
}

// ListAll returns the grants of every session, by session then in order
// given. A session file that cannot be read is reported in the error and
// skipped; the others are still listed.
func (s Store) ListAll() ([]SessionGrant, error) {
	bases, err := s.bases()
	if err != nil {
		return nil, err
	}
	var all []SessionGrant
	var errs []error
	for _, base := range bases {
		session, ok := sessionOf(base)
		if !ok {
			errs = append(errs, fmt.Errorf("unexpected session file %s", s.path(base, ".json")))
			continue
		}
		st, err := s.loadBase(base, session)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, g := range st.Grants {
			all = append(all, SessionGrant{session, g})
		}
	}
	slices.SortStableFunc(all, func(a, b SessionGrant) int { return strings.Compare(a.Session, b.Session) })
	return all, errors.Join(errs...)
}

// End deletes session's state (the agent's SessionEnd).
func (s Store) End(session string) error {
	base, err := fileBase(session)
	if err != nil {
		return err
	}
	return s.remove(base, func(fs.FileInfo) bool { return true })
}

// Prune deletes the state of every session whose file was last changed more
// than maxAge ago, and leftovers (lock and tmp files) as old.
func (s Store) Prune(maxAge time.Duration) error {
	cutoff := s.now().Add(-maxAge)
	old := func(fi fs.FileInfo) bool { return fi.ModTime().Before(cutoff) }
	bases, err := s.bases()
	if err != nil {
		return err
	}
	var errs []error
	for _, base := range bases {
		errs = append(errs, s.remove(base, old))
	}
	return errors.Join(errs...)
}

// remove deletes the session files of base under its lock when stale says
// the state file (or, without one, the lock file) is stale.
func (s Store) remove(base string, stale func(fs.FileInfo) bool) error {
	if _, err := os.Lstat(s.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := s.lock(base)
	if err != nil {
		return err
	}
	defer unlock()
	fi, err := os.Lstat(s.path(base, ".json"))
	if errors.Is(err, fs.ErrNotExist) {
		fi, err = os.Lstat(s.path(base, ".lock"))
	}
	if err != nil {
		return fmt.Errorf("failed to remove session state: %w", err)
	}
	if !stale(fi) {
		return nil
	}
	for _, ext := range []string{".json", ".json.tmp", ".lock"} {
		if err := os.Remove(s.path(base, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("failed to remove session state: %w", err)
		}
	}
	return nil
}

// bases lists the file name stems of the sessions in Dir, from their state
// or lock files.
func (s Store) bases() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to list sessions: %w", err)
	}
	var bases []string
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".json")
		if !ok {
			base, ok = strings.CutSuffix(name, ".lock")
		}
		if ok && !slices.Contains(bases, base) {
			bases = append(bases, base)
		}
	}
	return bases, nil
}

func matches(access, path string) func(Grant) bool {
	return func(g Grant) bool { return g.Access == access && g.Path == path }
}

// Target reads a grant's ACCESS and PATH as picket grants revoke takes
// them, into the access and key a grant holds: a file access (list, read,
// write) and the path resolved against cwd and home, or "connect" and a
// host as a network grant names it.
func Target(access, path, cwd, home string) (string, string, error) {
	if access == "connect" {
		h, err := egress.ParseHost(path)
		if err != nil {
			return "", "", err
		}
		return access, egress.EntryFor(h), nil
	}
	a, err := decide.ParseAccess(access)
	if err != nil {
		return "", "", fmt.Errorf("%v (or connect, for a network grant)", err)
	}
	if cwd != "" {
		if _, r, err := decide.Canonicalize(path, cwd, home); err == nil {
			path = r
		}
	}
	return string(a), path, nil
}
