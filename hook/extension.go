package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// exePlaceholder is the string constant an [Extension]'s source holds
// once, where [Extension.Render] puts the picket executable's path.
const exePlaceholder = `"__PICKET_EXE__"`

// Extension is a source file an agent loads by itself when it starts
// (Pi's extension, opencode's plugin), installed with picket's executable
// baked in. Install keeps the file it replaces as a backup and records the
// directories it made, which [Extension.RemoveCreated] removes again.
// The agent's package keeps its directories, messages and uninstall.
type Extension struct {
	Agent  string // the agent's name: "install <Agent>: …", and its install records
	Kind   string // what the agent calls the file: "extension", "plugin"
	File   string // the file's name in its directory
	Source string // the embedded source, holding "__PICKET_EXE__" once
	// Backup names the backup of file, a file install replaces: never a
	// name the agent would load too.
	Backup func(file string) string
}

// Render is the source with exe, an absolute path, as the picket
// executable it runs: a JSON string is a valid JavaScript and TypeScript
// string literal.
func (x Extension) Render(exe string) ([]byte, error) {
	if !filepath.IsAbs(exe) {
		return nil, fmt.Errorf("picket executable %q is not an absolute path", exe)
	}
	if n := strings.Count(x.Source, exePlaceholder); n != 1 {
		return nil, fmt.Errorf("bug: the embedded %s has %d executable placeholders, want 1", x.Kind, n)
	}
	lit, err := json.Marshal(exe)
	if err != nil {
		return nil, err
	}
	return []byte(strings.Replace(x.Source, exePlaceholder, string(lit), 1)), nil
}

// exeLine is the line [Extension.Render] bakes the executable into, in
// every extension's source; compiled on first use (only install and doctor
// read an installed extension).
var exeLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^const PICKET = ("(?:[^"\\\n]|\\.)*");`)
})

// ExtensionExe is the picket executable an installed extension's source
// runs (what [Extension.Render] baked in), "" when it names none.
func ExtensionExe(src []byte) string {
	m := exeLine().FindSubmatch(src)
	var exe string
	if m == nil || json.Unmarshal(m[1], &exe) != nil {
		return ""
	}
	return exe
}

// Install writes the source rendered for o.Exe to File in dir (with
// o.Print, to o.Stdout), whole or not at all, keeping a file that differs
// as [Extension.Backup]. It returns whether it wrote the file, which it
// does not when the file is already up to date.
func (x Extension) Install(o InstallOptions, dir string) (wrote bool, err error) {
	src, err := x.Render(o.Exe)
	if err != nil {
		return false, err
	}
	if o.Print {
		_, err := o.Stdout.Write(src)
		return false, err
	}
	file := filepath.Join(dir, x.File)
	old, err := os.ReadFile(file)
	if err == nil && bytes.Equal(old, src) {
		o.Info("install: %s already up to date", file)
		return false, nil
	}
	if err == nil {
		// Another version, or one the person edited: kept, never lost.
		bak := x.Backup(file)
		if err := writeExtension(bak, old); err != nil {
			return false, fmt.Errorf("install %s: keeping the old %s: %w", x.Agent, x.Kind, err)
		}
		o.Info("kept the previous %s as %s", x.File, bak)
	}
	created := missingDirs(dir)
	if err := writeExtension(file, src); err != nil {
		return false, fmt.Errorf("install %s: %w", x.Agent, err)
	}
	if err := x.noteCreated(o.StateDir, dir, created); err != nil {
		o.Warn("could not record the directories install made for uninstall to remove: %v", err)
	}
	return true, nil
}

// writeExtension writes data to file with [WriteFileAtomic], so the agent
// never loads half of it.
func writeExtension(file string, data []byte) error {
	if err := WriteFileAtomic(file, data, 0o644); err != nil {
		return fmt.Errorf("failed to write %s: %w", file, err)
	}
	return nil
}

// missingDirs are dir and the directories above it that do not exist
// yet, the deepest last: what writing into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// createdRecord is what picket's state dir keeps about an install into a
// directory: the directories it made.
type createdRecord struct {
	Created []string `json:"created"`
}

// noteCreated adds created to the record of the install into dir.
func (x Extension) noteCreated(stateDir, dir string, created []string) error {
	if len(created) == 0 {
		return nil
	}
	var rec createdRecord
	f := InstallRecordPath(stateDir, x.Agent, dir)
	if b, err := os.ReadFile(f); err == nil {
		json.Unmarshal(b, &rec)
	}
	for _, c := range created {
		if !slices.Contains(rec.Created, c) {
			rec.Created = append(rec.Created, c)
		}
	}
	b, _ := json.Marshal(rec)
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	return os.WriteFile(f, b, 0o600)
}

// RemoveCreated removes the directories the install into dir made, the
// deepest first, each only while it is empty, and then the record. It
// returns the first it had to leave, or "", and keeps the record while
// one is left, so the next uninstall tries again.
func (x Extension) RemoveCreated(stateDir, dir string) (left string) {
	f := InstallRecordPath(stateDir, x.Agent, dir)
	var rec createdRecord
	if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &rec) == nil {
		slices.Sort(rec.Created)
		for i := len(rec.Created) - 1; i >= 0; i-- {
			if err := os.Remove(rec.Created[i]); err != nil && !errors.Is(err, os.ErrNotExist) && left == "" {
				left = rec.Created[i] // not empty, as it should stay
			}
		}
	}
	if left == "" {
		os.Remove(f)
	}
	return left
}
