package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/decide"
)

// AuditLog is the audit sink of picket's own processes: the log a policy
// names with picket.audit.path when it names a usable one, else the
// default under the state dir, opened for each line (many hook processes
// append at once; see package audit).
type AuditLog struct {
	Home, StateHome string // $HOME and $XDG_STATE_HOME
	// Warn tells the person of a line that could not be written, or of a
	// picket.audit.path that is not used.
	Warn func(format string, args ...any)
}

// Append appends one entry. A failure to write the log never changes a
// decision; it is reported through Warn.
func (l AuditLog) Append(loaded *decide.Loaded, e audit.Entry) {
	path := l.File(loaded)
	opts := audit.Options{Path: path, Warn: func(m string) { l.warnf("audit log: %s", m) },
		SharedDir: path != audit.DefaultPath(l.Home, l.StateHome)}
	if loaded != nil {
		opts.MaxAgeDays, opts.MaxSizeMB = loaded.Settings.Audit.MaxAgeDays, loaded.Settings.Audit.MaxSizeMB
	}
	lg, err := audit.Open(opts)
	if err == nil {
		err = lg.Append(e)
		if cerr := lg.Close(); err == nil {
			err = cerr
		}
	}
	var spilled *audit.SpilledError
	switch {
	case errors.As(err, &spilled):
		l.warnf("audit log: %v", err)
	case err != nil:
		l.warnf("failed to write the audit log: %v", err)
	}
}

func (l AuditLog) warnf(format string, args ...any) {
	if l.Warn != nil {
		l.Warn(format, args...)
	}
}

// File is picket.audit.path when the policy sets a usable one (see
// usableAuditPath), else the default under the state dir.
func (l AuditLog) File(loaded *decide.Loaded) string {
	def := audit.DefaultPath(l.Home, l.StateHome)
	if loaded == nil || loaded.Settings.Audit.Path == "" {
		return def
	}
	p := loaded.Settings.Audit.Path
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(loaded.Env.Home, p[2:])
	}
	if err := usableAuditPath(p); err != nil {
		l.warnf("picket.audit.path %s %v; using %s", strconv.Quote(p), err, def)
		return def
	}
	return p
}

// usableAuditPath refuses an audit path picket must not write: a policy
// from a cloned repository could name ~/.bashrc, and the log's first
// rotation would move the file away and start a new one holding text the
// agent chose (a path with "$(...)" in it) where the shell runs it. So the
// path is absolute (a relative one would follow the hook's working
// directory), is named *.log or *.ndjson (no shell or tool sources those),
// and, if it exists, is a regular file (not a symlink) that is empty or
// starts with an audit line.
func usableAuditPath(p string) error {
	if !filepath.IsAbs(p) {
		return errors.New("is not absolute (start it with / or ~/)")
	}
	if ext := filepath.Ext(p); ext != ".log" && ext != ".ndjson" {
		return errors.New("does not end in .log or .ndjson")
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return nil // missing, or unwritable: the write says which
	case fi.Mode()&os.ModeSymlink != 0:
		// A link would have picket create or append to whatever it names
		// (a ~/.zshenv that runs the line's "$(...)").
		return errors.New("is a symlink")
	case !fi.Mode().IsRegular():
		return errors.New("is not a regular file")
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	first, _, _ := bytes.Cut(head, []byte("\n"))
	var e struct {
		TS *string `json:"ts"`
	}
	if json.Unmarshal(first, &e) != nil || e.TS == nil {
		return errors.New("holds something other than picket's audit lines")
	}
	return nil
}
