package persist

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
)

// SchemaURL is the $schema a scaffolded policy file points at.
const SchemaURL = "https://picket.dev/schema/fence.schema.json"

var (
	// ErrChanged is wrapped by [Grant] when the policy file changed on disk
	// between its read and the write; the caller should retry.
	ErrChanged = errors.New("changed on disk, retry")
	// ErrMalformed is wrapped by [Grant] when the policy file is not valid
	// JSONC; the person has to fix it by hand.
	ErrMalformed = errors.New("malformed JSONC")
	// ErrRefused is wrapped by [Grant] when the policy file resolves into a
	// directory picket must never write to.
	ErrRefused = errors.New("refusing to edit")
)

// Options describes one persist: which access to which path, in which
// project.
type Options struct {
	// Root is the project root: see [ProjectRoot].
	Root string
	// File is the policy file the person confirmed the persist into, as
	// [Target] named it when they were asked. Grant writes there or
	// nowhere: when Target now names another file (one was created or
	// removed since), it returns an error wrapping [ErrChanged].
	File string
	// Access is "read" or "list" (filesystem.allowRead), "write"
	// (filesystem.allowWrite), or "connect" (network.allowedDomains).
	Access string
	// Path is the resolved, absolute, clean path to allow; for "connect",
	// the host (a domain name or an IP address, as egress.EntryFor
	// spells it), written as it is.
	Path string
	// UserConfigExists makes a new policy file extend "@base" (the user's
	// own fence config) instead of "code".
	UserConfigExists bool
	// Validate checks the edited document (picket's schema validator); nil
	// skips the check.
	Validate func(file string, src []byte) error
	// Refuse lists directories a policy file must never resolve into, such
	// as the user's fence config directory and picket's install directory;
	// /etc is always refused.
	Refuse []string
	// InstallDir is picket's install directory, the one holding its
	// executable: a policy file reached through a symlink must not resolve
	// into it. Unlike Refuse, it does not stop a policy file that is there
	// under its own name: picket in /tmp or ~/bin sits beside projects.
	InstallDir string
	// Now is the clock for backup names and the scaffold comment; nil means
	// time.Now.
	Now func() time.Time
	// Resolved, when set, is the file the person was shown ([Check]'s
	// Result.Resolved): Grant writes there or nowhere, so a symlink
	// retargeted after the confirm yields an error wrapping [ErrChanged].
	Resolved string

	// beforeCommit, when set (tests only), runs after <file>.tmp is written
	// and before the rename.
	beforeCommit func(tmp string)
}

// Result says what [Grant] did.
type Result struct {
	// File is the policy file, as named in the project root.
	File string
	// Resolved is the file actually written: File with symlinks resolved.
	Resolved string
	// Created is true when the file did not exist and was scaffolded.
	Created bool
	// Backup names the copy of the previous content, empty when none.
	Backup string
	// AlreadyPresent is true when the path was listed already and nothing
	// was written.
	AlreadyPresent bool
}

// Grant appends o.Path to the allow list for o.Access in the project's policy
// file, creating the file when there is none. The package doc lists what it
// guarantees and refuses.
func Grant(o Options) (Result, error) {
	key, res, _, err := o.begin()
	if err != nil {
		return res, err
	}
	// The lock is on the directory of the file written: the project root,
	// or wherever a symlinked policy file leads, so that two projects
	// linking one shared file take one lock. The target is named again
	// under it, in case it moved meanwhile.
	unlock, err := lockDir(filepath.Dir(res.Resolved))
	if err != nil {
		return res, err
	}
	defer unlock()
	again, exists, err := o.target()
	if err != nil {
		return again, err
	}
	if again.Resolved != res.Resolved {
		return again, fmt.Errorf("%s now leads to %s, not %s: %w", again.File, again.Resolved, res.Resolved, ErrChanged)
	}
	if o.Resolved != "" && again.Resolved != o.Resolved {
		return again, fmt.Errorf("%s now leads to %s, not %s as confirmed: %w", again.File, again.Resolved, o.Resolved, ErrChanged)
	}
	return o.edit(again, key, exists)
}

// begin checks o's access and path and names the file a grant would write:
// the list key for the access, the target, and whether it exists.
func (o Options) begin() (key listKey, res Result, exists bool, err error) {
	if key, err = arrayKey(o.Access); err != nil {
		return listKey{}, Result{}, false, err
	}
	if err := checkPath(o.Access, o.Path); err != nil {
		return listKey{}, Result{}, false, err
	}
	res, exists, err = o.target()
	return key, res, exists, err
}

// Check is a dry run of [Grant]: it names the file Grant would write (its
// symlinks resolved, in Result.Resolved) and returns the error Grant would
// give for the file as it is now, writing nothing: a refused or dangling
// target, a path no entry spells, malformed JSONC, an edit that fails
// [Options.Validate], or a file or directory this process cannot write.
// The caller checks before offering a persist, so a person is never asked
// to confirm one that will be refused, and shows Result.Resolved.
func Check(o Options) (Result, error) {
	key, res, exists, err := o.begin()
	if err != nil {
		return res, err
	}
	src := scaffold(baseFor(o.UserConfigExists), o.Access, "")
	if exists {
		if _, src, err = read(res.Resolved); err != nil {
			return res, err
		}
	}
	out, present, err := addEntry(src, key.section, key.name, entryFor(o.Access, o.Path), o.Path)
	if err != nil {
		return res, fmt.Errorf("cannot edit %s: %w", res.File, err)
	}
	if !present {
		if err := fits(res.File, sameLineEnds(src, out)); err != nil {
			return res, err
		}
	}
	if !present && o.Validate != nil {
		if err := o.Validate(res.File, out); err != nil {
			return res, fmt.Errorf("refusing to write %s: the edit fails validation: %w", res.File, err)
		}
	}
	return res, writable(res.Resolved, exists)
}

// target names the file to edit, checks it is the one the person
// confirmed, and resolves it.
func (o Options) target() (res Result, exists bool, err error) {
	file, exists := Target(o.Root)
	res = Result{File: file}
	if o.File == "" {
		return res, exists, fmt.Errorf("no policy file was confirmed for this persist (it would go to %s)", file)
	}
	if file != o.File {
		return res, exists, fmt.Errorf("the policy file to edit is now %s, not %q as confirmed: %w", file, o.File, ErrChanged)
	}
	if res.Resolved, err = resolve(file, exists); err != nil {
		return res, exists, err
	}
	refused := o.Refuse
	if o.InstallDir != "" && res.Resolved != file {
		refused = append(slices.Clip(refused), o.InstallDir)
	}
	return res, exists, refuse(res.Resolved, refused)
}

// edit reads (or scaffolds), patches, validates and writes the file.
func (o Options) edit(res Result, key listKey, exists bool) (Result, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	var before fs.FileInfo
	var src []byte
	if exists {
		var err error
		if before, src, err = read(res.Resolved); err != nil {
			return res, err
		}
	} else {
		src = scaffold(baseFor(o.UserConfigExists), o.Access, now().UTC().Format(time.RFC3339))
	}
	// The entry is a pattern that names this path only: not what is
	// below it, nor, for a path with glob characters, its neighbours. An
	// entry of the path as it is (an older picket's, or a hand-written
	// one) already allows it.
	out, present, err := addEntry(src, key.section, key.name, entryFor(o.Access, o.Path), o.Path)
	if err != nil {
		return res, fmt.Errorf("cannot edit %s: %w", res.File, err)
	}
	if present {
		res.AlreadyPresent = true
		return res, nil
	}
	out = sameLineEnds(src, out)
	if err := fits(res.File, out); err != nil {
		return res, err
	}
	if o.Validate != nil {
		if err := o.Validate(res.File, out); err != nil {
			return res, fmt.Errorf("refusing to write %s: the edit fails validation: %w", res.File, err)
		}
	}
	w := writer{file: res.Resolved, before: before, old: src, now: now, hook: o.beforeCommit}
	res.Backup, err = w.commit(out)
	res.Created = !exists && err == nil
	return res, err
}

// entryFor is the allow entry for path: a pattern that matches it and
// nothing below it (see [decide.ExactPattern]; checkPath has accepted
// path), or for "connect" the host itself.
func entryFor(access, path string) string {
	if access == "connect" {
		return path
	}
	pat, _ := decide.ExactPattern(path)
	return pat
}

// fits refuses an edited policy larger than a policy file may be: it
// would no longer load, and every later call would fail on it.
func fits(file string, out []byte) error {
	if len(out) > decide.MaxPolicySize {
		return fmt.Errorf("refusing to write %s: the edit makes it %d bytes, more than the %d (1 MiB) a policy file may hold", file, len(out), decide.MaxPolicySize)
	}
	return nil
}

func baseFor(userConfigExists bool) string {
	if userConfigExists {
		return "@base"
	}
	return "code"
}

// listKey names the list an entry goes to.
type listKey struct{ section, name string }

func arrayKey(access string) (listKey, error) {
	switch access {
	case "read", "list":
		return listKey{"filesystem", "allowRead"}, nil
	case "write":
		return listKey{"filesystem", "allowWrite"}, nil
	case "connect":
		return listKey{"network", "allowedDomains"}, nil
	}
	return listKey{}, fmt.Errorf("cannot persist access %q: want read, list, write or connect", access)
}

// checkPath accepts only paths a policy entry spells exactly: absolute, clean
// and valid UTF-8 (JSON would replace an invalid byte, granting another
// path).
func checkPath(access, path string) error {
	if access == "connect" {
		h, err := egress.ParseHost(path)
		if err == nil && egress.EntryFor(h) == path {
			_, err = egress.ParseEntry(path)
		}
		if err != nil || egress.EntryFor(h) != path {
			return fmt.Errorf("cannot persist %q: not a host as an allowedDomains entry spells it", path)
		}
		return nil
	}
	switch {
	case !filepath.IsAbs(path) || filepath.Clean(path) != path:
		return fmt.Errorf("cannot persist %q: not an absolute clean path", path)
	case !utf8.ValidString(path):
		return fmt.Errorf("cannot persist %q: not valid UTF-8", path)
	}
	if _, ok := decide.ExactPattern(path); !ok {
		return fmt.Errorf("cannot persist %q: no pattern names this path alone", path)
	}
	return nil
}

// resolve returns the file a write to file lands in: its symlinks resolved,
// or, for a file that does not exist yet, its directory's.
func resolve(file string, exists bool) (string, error) {
	if !exists {
		dir, err := filepath.EvalSymlinks(filepath.Dir(file))
		if err != nil {
			return "", fmt.Errorf("failed to resolve %s: %w", file, err)
		}
		return filepath.Join(dir, filepath.Base(file)), nil
	}
	real, err := filepath.EvalSymlinks(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("refusing to edit %s: it is a dangling symlink: %w", file, err)
	}
	if err != nil {
		return "", fmt.Errorf("failed to resolve %s: %w", file, err)
	}
	return real, nil
}

// refuse rejects a resolved policy file inside /etc or any of dirs, each
// compared both as given and with its own symlinks resolved.
func refuse(real string, dirs []string) error {
	for _, dir := range append([]string{"/etc"}, dirs...) {
		if dir == "" {
			continue
		}
		spellings := []string{filepath.Clean(dir)}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			spellings = append(spellings, r)
		}
		for _, d := range spellings {
			if real == d || strings.HasPrefix(real, strings.TrimSuffix(d, "/")+"/") {
				return fmt.Errorf("%w %s: it resolves into %s", ErrRefused, real, dir)
			}
		}
	}
	return nil
}

// read returns the file's metadata and content, refusing anything but a
// regular file of a policy's size (decide.ReadPolicyFile, which every
// policy read goes through: a FIFO swapped in never hangs a grant).
func read(file string) (fs.FileInfo, []byte, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read %s: %w", file, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w %s: not a regular file", ErrRefused, file)
	}
	src, fi, err := decide.ReadPolicyFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read %s: %w", file, err)
	}
	return fi, src, nil
}

// sameLineEnds gives out the CRLF line ends of src when every line of src
// ends so: the entry's new lines are written with LF.
func sameLineEnds(src, out []byte) []byte {
	crlf := bytes.Count(src, []byte("\r\n"))
	if crlf == 0 || crlf != bytes.Count(src, []byte("\n")) {
		return out
	}
	lf := bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
}
