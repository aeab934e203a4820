package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Ledger records, per agent session, the content hash of each file as the
// agent last saw it (after a Read, or after its own Write or Edit). The
// read-before-edit guard compares a file's current hash with it.
type Ledger struct {
	Dir string // $XDG_STATE_HOME/picket/ledger
}

// HashFile returns the hex SHA-256 of a file's content.
func HashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sessionFile maps a session id to a file name that cannot leave Dir.
func (l Ledger) sessionFile(session string) (string, error) {
	if session == "" {
		return "", errors.New("no session id")
	}
	sum := sha256.Sum256([]byte(session))
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, session)
	if len(safe) > 64 {
		safe = safe[:64]
	}
	return filepath.Join(l.Dir, safe+"-"+hex.EncodeToString(sum[:6])+".json"), nil
}

// Seen returns the hash recorded for path in session, or "".
func (l Ledger) Seen(session, path string) (string, error) {
	var h string
	err := l.update(session, false, func(m map[string]string) bool {
		h = m[path]
		return false
	})
	return h, err
}

// Record stores path's current content hash for session.
func (l Ledger) Record(session, path string) error {
	h, err := HashFile(path)
	if err != nil {
		return err
	}
	return l.update(session, true, func(m map[string]string) bool {
		m[path] = h
		return true
	})
}

// End forgets a session.
func (l Ledger) End(session string) error {
	f, err := l.sessionFile(session)
	if err != nil {
		return err
	}
	if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	os.Remove(f + ".lock")
	return nil
}

// update runs fn on the session's map under an exclusive lock, writing it
// back atomically when fn reports a change.
func (l Ledger) update(session string, create bool, fn func(map[string]string) bool) error {
	file, err := l.sessionFile(session)
	if err != nil {
		return err
	}
	if create {
		if err := os.MkdirAll(l.Dir, 0o700); err != nil {
			return err
		}
	}
	lock, err := os.OpenFile(file+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if errors.Is(err, fs.ErrNotExist) && !create {
		fn(map[string]string{})
		return nil
	}
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	m := map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("ledger %s is corrupt: %w", file, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !fn(m) {
		return nil
	}
	b, _ := json.Marshal(m)
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
