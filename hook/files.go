package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The file helpers every agent's install and uninstall share: the agents'
// settings are edited in place, so each write must be whole or not at
// all, keep the file's mode, and leave a record uninstall can find.

// WriteFileAtomic writes data to path through a temporary file in its
// directory (made if missing) and a rename, with mode: an agent reading
// the file sees the old or the new bytes, never half of them. path is
// replaced as named: a symlink there becomes a file (see [ReplaceFile]).
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".picket-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// ModeOf is the permission bits of the file at path, or def when there is
// none.
func ModeOf(path string, def fs.FileMode) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}

// ReplaceFile writes data to the file path names, through its links (a
// settings file kept as a link into a dotfiles repository stays a link),
// keeping its mode (0644 for a new one), with [WriteFileAtomic].
func ReplaceFile(path string, data []byte) error {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	return WriteFileAtomic(path, data, ModeOf(path, 0o644))
}

// Missing returns those of paths that do not exist: what an install is
// about to create, and uninstall may remove again.
func Missing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// InstallRecordPath is where picket's state dir keeps agent's record of
// the install keyed by key (a settings file or directory, as the agent
// package spells it).
func InstallRecordPath(stateDir, agent, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(stateDir, "installs", agent+"-"+hex.EncodeToString(sum[:12])+".json")
}
