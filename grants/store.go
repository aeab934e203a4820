package grants

import (
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// MaxSessionID is the longest session id, in bytes, a [Store] accepts.
const MaxSessionID = 128

// stateVersion is the format of a session file.
const stateVersion = 1

// Store is the session state directory. It is a plain value: build one with
// a Dir and, in tests, a Now.
type Store struct {
	// Dir holds the session files; see [DefaultDir].
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Warn, when set, is told why [Store.Has] ignored a session file it
	// does not trust (see [ErrUntrusted]); the lookup itself only fails.
	Warn func(error)
}

// ErrUntrusted is wrapped by the error for session state picket does not
// trust, and ignores: a session file that is not a regular file owned by
// the effective uid and writable by it alone, or a Dir that is a symlink,
// owned by another uid or writable by group or others. Any of those could
// hold a grant another user wrote.
var ErrUntrusted = errors.New("untrusted session state")

// maxStateSize bounds a session file read.
const maxStateSize = 4 << 20

// DefaultDir returns $XDG_STATE_HOME/picket/sessions, falling back to
// ~/.local/state when xdgStateHome is empty or relative (as the XDG base
// directory spec says to).
func DefaultDir(home, xdgStateHome string) string {
	if xdgStateHome == "" || !filepath.IsAbs(xdgStateHome) {
		xdgStateHome = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(xdgStateHome, "picket", "sessions")
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// state is the content of one session file.
type state struct {
	Version int      `json:"version"`
	Session string   `json:"session"`
	Grants  []Grant  `json:"grants,omitempty"`
	Turn    turn     `json:"turn"`
	Answers []answer `json:"answers,omitempty"`
}

type turn struct {
	ID string `json:"id"`
	// Denied are the calls denied this turn. (Version 1 files before
	// denials were keyed by access kept bare paths under "denied" and
	// "allowOnce"; those keys are ignored, which only restarts the count.)
	Denied  []Denial `json:"denials,omitempty"`
	DenyAll bool     `json:"denyAll,omitempty"`
	// Individually is the person's "one by one": no batch prompt this turn.
	Individually bool `json:"individually,omitempty"`
	// AllowOnce are the calls a batch's "allow all once" let through: each
	// passes once more in this turn, then is asked about again.
	AllowOnce []Denial `json:"allowOnceCalls,omitempty"`
	// Offered are the batches shown for calls still awaiting an answer
	// (picket serve's, whose grant op comes later): an "allow all once"
	// covers the batch the person saw, not denials noted since.
	Offered []offer `json:"offered,omitempty"`
}

// offer is the batch shown for one call.
type offer struct {
	Call  Denial   `json:"call"`
	Batch []Denial `json:"batch"`
}

type answer struct {
	Access  string    `json:"access"`
	Path    string    `json:"path"`
	Answer  string    `json:"answer"`
	Arrived time.Time `json:"arrived"`
}

var plainName = func() (ok [256]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyz0123456789._-" {
		ok[c] = true
	}
	return ok
}()

var nameEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// fileBase returns the file name stem for session; see the package doc.
func fileBase(session string) (string, error) {
	switch {
	case session == "":
		return "", errors.New("empty session id")
	case len(session) > MaxSessionID:
		return "", fmt.Errorf("session id of %d bytes is longer than %d", len(session), MaxSessionID)
	}
	plain := session[0] != '.' && session[0] != '~'
	for i := 0; plain && i < len(session); i++ {
		plain = plainName[session[i]]
	}
	if plain {
		return session, nil
	}
	return "~" + strings.ToLower(nameEncoding.EncodeToString([]byte(session))), nil
}

// sessionOf inverts fileBase.
func sessionOf(base string) (string, bool) {
	enc, ok := strings.CutPrefix(base, "~")
	if !ok {
		return base, true
	}
	b, err := nameEncoding.DecodeString(strings.ToUpper(enc))
	return string(b), err == nil
}

func (s Store) path(base, ext string) string {
	return filepath.Join(s.Dir, base+ext)
}

// load reads the session's state without a lock; a missing file is an empty
// state.
func (s Store) load(session string) (state, error) {
	base, err := fileBase(session)
	if err != nil {
		return state{}, err
	}
	return s.loadBase(base, session)
}

func (s Store) loadBase(base, session string) (state, error) {
	file := s.path(base, ".json")
	b, err := s.read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return state{Version: stateVersion, Session: session}, nil
	}
	if err != nil {
		return state{}, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return state{}, fmt.Errorf("corrupt session file %s: %w", file, err)
	}
	if st.Version != stateVersion || st.Session != session {
		return state{}, fmt.Errorf("corrupt session file %s: version %d for session %q", file, st.Version, st.Session)
	}
	return st, nil
}

// read returns the content of a session file, or an error wrapping
// [ErrUntrusted] when it or Dir is not to be trusted. The file is opened
// without following a symlink and without blocking, so a FIFO planted in
// its place is refused, not waited on.
func (s Store) read(file string) ([]byte, error) {
	if err := s.checkDir(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_RDONLY|openNoFollow, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symlink", ErrUntrusted, file)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read session file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("failed to read session file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUntrusted, file)
	}
	if err := ours(file, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateSize+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read session file: %w", err)
	}
	if len(b) > maxStateSize {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrUntrusted, file, maxStateSize)
	}
	return b, nil
}

// checkDir reports whether Dir is to be trusted: a directory, not a
// symlink, owned by the effective uid and writable by it alone. A missing
// Dir is an error wrapping fs.ErrNotExist.
func (s Store) checkDir() error {
	fi, err := os.Lstat(s.Dir)
	switch {
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink", ErrUntrusted, s.Dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrUntrusted, s.Dir)
	}
	return ours(s.Dir, fi)
}

// update applies fn to the session's state under its lock and saves the
// result, unless fn fails.
func (s Store) update(session string, fn func(*state) error) error {
	base, err := fileBase(session)
	if err != nil {
		return err
	}
	unlock, err := s.lock(base)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := s.loadBase(base, session)
	if err != nil {
		return err
	}
	if err := fn(&st); err != nil {
		return err
	}
	return s.save(base, st)
}

// save replaces the session file atomically.
func (s Store) save(base string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("failed to encode session state: %w", err)
	}
	file, tmp := s.path(base, ".json"), s.path(base, ".json.tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|openNoFollow, 0o600)
	if err != nil {
		return fmt.Errorf("failed to write session file: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, file)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("failed to write session file: %w", err)
	}
	return nil
}

// mkdir creates Dir with mode 0700, and tightens an existing Dir to 0700.
// It refuses a Dir that [Store.checkDir] does not trust: files someone
// else could have put there are not to be written beside.
func (s Store) mkdir() error {
	if s.Dir == "" {
		return errors.New("no session state directory")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("failed to create session state directory: %w", err)
	}
	// A directory of ours that is too open (an older picket, a umask) is
	// tightened before it is judged; every file in it is still checked
	// on its own, so nothing another user left there is trusted.
	if fi, err := os.Lstat(s.Dir); err == nil && fi.IsDir() && fi.Mode().Perm() != 0o700 && ownedByMe(fi) {
		if err := os.Chmod(s.Dir, 0o700); err != nil {
			return fmt.Errorf("failed to secure session state directory: %w", err)
		}
	}
	return s.checkDir()
}
