package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Notices remembers which notices (the policy's lint warnings) each agent
// session has been shown, so a SessionStart that comes again for the same
// session (a resume, a /clear, a compaction) does not repeat them. A
// marker file per session and notice text: a changed policy, whose
// warnings read differently, is shown again.
type Notices struct {
	Dir string           // $XDG_STATE_HOME/picket/notices
	Now func() time.Time // for Prune; default time.Now
}

// First reports whether session has not been shown text yet, and marks it
// shown. A session without an id, or a marker that cannot be written,
// shows it (with the error): a warning seen twice beats one never seen.
func (n Notices) First(session, text string) (bool, error) {
	if session == "" {
		return true, nil
	}
	if err := os.MkdirAll(n.Dir, 0o700); err != nil {
		return true, err
	}
	f, err := os.OpenFile(n.marker(session, text), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case err != nil:
		return true, err
	}
	return true, f.Close()
}

// End forgets what session was shown.
func (n Notices) End(session string) error {
	if session == "" {
		return nil
	}
	names, err := filepath.Glob(filepath.Join(n.Dir, sessionKey(session)+"-*"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range names {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Prune removes the markers of sessions that never reached their end (a
// crash), once they are older than maxAge.
func (n Notices) Prune(maxAge time.Duration) error {
	now := time.Now
	if n.Now != nil {
		now = n.Now
	}
	cutoff := now().Add(-maxAge)
	entries, err := os.ReadDir(n.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(cutoff) || !strings.Contains(e.Name(), "-") {
			continue
		}
		if err := os.Remove(filepath.Join(n.Dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// marker is the file that says session was shown text. Both are hashed:
// a session id is agent input and must not name a path.
func (n Notices) marker(session, text string) string {
	sum := sha256.Sum256([]byte(text))
	return filepath.Join(n.Dir, sessionKey(session)+"-"+hex.EncodeToString(sum[:8]))
}

func sessionKey(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:12])
}
