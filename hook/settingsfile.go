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
	"slices"
	"syscall"
)

// ReadSettingsFile reads a settings file that must be a regular file: a
// FIFO in its place is refused, not waited on, and a device such as
// /dev/zero is refused, not read until memory runs out; so is a file
// past max bytes. A missing file is fs.ErrNotExist.
func ReadSettingsFile(path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err == nil && len(b) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, max>>20)
	}
	return b, err
}

// SettingsRecord is picket's note, in its state dir, of one settings file
// an install wired in place (Gemini CLI's and Qwen Code's): the file as
// it was (when known) and a digest of what install left, so uninstall
// gives the file back byte for byte when it has not changed since.
type SettingsRecord struct{ file string }

// SettingsRecordFile is what a [SettingsRecord] holds.
type SettingsRecordFile struct {
	Exe string `json:"exe"`
	// Known says Original is the file before picket's first install
	// (nil: there was none); it is not once the file changed between two
	// installs.
	Known    bool   `json:"known"`
	Original []byte `json:"original,omitempty"`
	Wired    string `json:"wired"`
	// Created are the settings file and its directory when install made
	// them.
	Created []string `json:"created,omitempty"`
}

// RecordOf is agent's record of the settings file key names (as the
// agent spells it: the record's name is a digest of it).
func RecordOf(stateDir, agent, key string) SettingsRecord {
	return SettingsRecord{file: InstallRecordPath(stateDir, agent, key)}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Read is the record; false where there is none or it does not parse.
func (r SettingsRecord) Read() (SettingsRecordFile, bool) {
	var rec SettingsRecordFile
	b, err := os.ReadFile(r.file)
	return rec, err == nil && json.Unmarshal(b, &rec) == nil
}

// Unchanged reports whether current is what install left and the file
// before it is known: then Original is the file to give back.
func (f SettingsRecordFile) Unchanged(current []byte) bool {
	return f.Known && f.Wired == digest(current)
}

// Installed notes an install that turned old into wired, running exe and
// creating the paths in created.
func (r SettingsRecord) Installed(old, wired []byte, exe string, created []string) error {
	rec, ok := r.Read()
	switch {
	case !ok:
		rec = SettingsRecordFile{Known: true, Original: old}
	case rec.Wired != digest(old):
		rec.Known, rec.Original = false, nil // changed since: no longer the file to give back
	}
	rec.Exe, rec.Wired = exe, digest(wired)
	for _, c := range created {
		if !slices.Contains(rec.Created, c) {
			rec.Created = append(rec.Created, c)
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.file), 0o700); err != nil {
		return err
	}
	return os.WriteFile(r.file, b, 0o600)
}

// Remove removes the record.
func (r SettingsRecord) Remove() { os.Remove(r.file) }

// EachSettingsFile calls f with the user's settings file and then the
// project's (scope "user", "project"), each as path names it for o in
// that scope and read reads it, once where both are one file: for an
// agent's Wired. A project path refused (the home directory, say) and a
// missing file are skipped; any other error ends the walk.
func EachSettingsFile(o InstallOptions, path func(InstallOptions) (string, error), read func(string) ([]byte, error), f func(scope, path string, b []byte) error) error {
	seen := map[string]bool{}
	for _, project := range []bool{false, true} {
		oo := o
		oo.User, oo.Project = !project, project
		p, err := path(oo)
		if err != nil {
			if project {
				continue
			}
			return err
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		b, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := f(map[bool]string{false: "user", true: "project"}[project], p, b); err != nil {
			return err
		}
	}
	return nil
}
