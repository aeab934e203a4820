package persist

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheck: Check names the file Grant would really write and gives the
// error Grant would give, writing nothing, so a persist that will be
// refused is never offered.
func TestCheck(t *testing.T) {
	refused := t.TempDir()
	writeFile(t, filepath.Join(refused, "fence.jsonc"), `{"extends": "code"}`)
	shared := t.TempDir()
	writeFile(t, filepath.Join(shared, "fence.jsonc"), `{"extends": "code"}`)
	tests := []struct {
		name         string
		setup        func(root string)
		wantResolved func(root string) string
		wantErr      string
		wantIs       error
	}{
		{"plain file", func(root string) { writeFile(t, filepath.Join(root, "fence.jsonc"), `{}`) },
			func(root string) string { return filepath.Join(root, "fence.jsonc") }, "", nil},
		{"none yet", func(string) {},
			func(root string) string { return filepath.Join(root, "fence.jsonc") }, "", nil},
		{"symlink to a shared file", func(root string) {
			os.Symlink(filepath.Join(shared, "fence.jsonc"), filepath.Join(root, "fence.jsonc"))
		},
			func(string) string { return filepath.Join(shared, "fence.jsonc") }, "", nil},
		{"symlink into a refused dir", func(root string) {
			os.Symlink(filepath.Join(refused, "fence.jsonc"), filepath.Join(root, "fence.jsonc"))
		},
			nil, "resolves into", ErrRefused},
		{"dangling symlink", func(root string) { os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "fence.jsonc")) },
			nil, "dangling", nil},
		{"malformed", func(root string) { writeFile(t, filepath.Join(root, "fence.jsonc"), `{"filesystem": `) },
			nil, "malformed", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(root)
			before := dirNames(t, root)
			file, _ := Target(root)
			res, err := Check(Options{Root: root, File: file, Access: "read", Path: "/data/x", Refuse: []string{refused}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Check = %v, want an error containing %q", err, tt.wantErr)
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("Check = %v, want errors.Is %v", err, tt.wantIs)
			}
			if tt.wantResolved != nil && res.Resolved != tt.wantResolved(root) {
				t.Errorf("Check resolved = %q, want %q", res.Resolved, tt.wantResolved(root))
			}
			if after := dirNames(t, root); !slices.Equal(before, after) {
				t.Errorf("Check wrote: %v, then %v", before, after)
			}
		})
	}
}

// TestGrantOnlyIntoConfirmedResolved: a symlinked policy file retargeted
// after the person confirmed the real file is not written through.
func TestGrantOnlyIntoConfirmedResolved(t *testing.T) {
	root, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		writeFile(t, filepath.Join(d, "fence.jsonc"), `{"extends": "code"}`)
	}
	link := filepath.Join(root, "fence.jsonc")
	os.Symlink(filepath.Join(b, "fence.jsonc"), link)
	_, err := Grant(Options{Root: root, File: link, Resolved: filepath.Join(a, "fence.jsonc"), Access: "read", Path: "/data"})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("Grant through a retargeted link = %v, want ErrChanged", err)
	}
	if got := readFile(t, filepath.Join(b, "fence.jsonc")); got != `{"extends": "code"}` {
		t.Errorf("the file the person was not shown changed: %s", got)
	}
}

// TestInstallDir: a policy file that is a symlink into picket's install
// directory is refused by Check and Grant, which write nothing; a project
// that sits in that directory under its own name is edited.
func TestInstallDir(t *testing.T) {
	install := t.TempDir()
	const src = `{"extends": "code"}`
	writeFile(t, filepath.Join(install, "fence.jsonc"), src)
	root := t.TempDir()
	link := filepath.Join(root, "fence.jsonc")
	if err := os.Symlink(filepath.Join(install, "fence.jsonc"), link); err != nil {
		t.Fatal(err)
	}
	o := Options{Root: root, File: link, Access: "read", Path: "/data/x", InstallDir: install}
	if _, err := Check(o); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "resolves into "+install) {
		t.Errorf("Check through a link into the install dir = %v, want ErrRefused naming %s", err, install)
	}
	if _, err := Grant(o); !errors.Is(err, ErrRefused) {
		t.Errorf("Grant through a link into the install dir = %v, want ErrRefused", err)
	}
	if got := readFile(t, filepath.Join(install, "fence.jsonc")); got != src {
		t.Errorf("the install dir's file changed: %s", got)
	}
	if names := dirNames(t, install); len(names) != 1 {
		t.Errorf("files in the install dir: %v, want fence.jsonc alone", names)
	}
	o.Root, o.File = install, filepath.Join(install, "fence.jsonc")
	if _, err := Grant(o); err != nil {
		t.Errorf("Grant in a project that is the install dir = %v, want it edited", err)
	}
}
