package hook_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestTimeoutBin: the first timeout(1) on PATH that is an executable file
// and takes --foreground and -k, by absolute path; relative PATH entries
// and files that cannot run are passed over, and one that refuses the
// flags means none.
func TestTimeoutBin(t *testing.T) {
	real, err := exec.LookPath("timeout")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("timeout(1) is missing")
		}
		t.Skip("no timeout(1) here")
	}
	base := t.TempDir()
	notExec := filepath.Join(base, "noexec")
	os.MkdirAll(notExec, 0o755)
	os.WriteFile(filepath.Join(notExec, "timeout"), []byte("#!/bin/sh\nexit 0\n"), 0o644)
	refuses := filepath.Join(base, "refuses")
	os.MkdirAll(refuses, 0o755)
	os.WriteFile(filepath.Join(refuses, "timeout"), []byte("#!/bin/sh\nexit 125\n"), 0o755)
	path := func(dirs ...string) func(string) string {
		return func(k string) string {
			if k == "PATH" {
				return strings.Join(dirs, string(filepath.ListSeparator))
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name string
		dirs []string
		want string
	}{
		{"the real one", []string{filepath.Dir(real)}, real},
		{"relative and not executable passed over", []string{"bin", notExec, filepath.Dir(real)}, real},
		{"one refusing the flags", []string{refuses, filepath.Dir(real)}, ""},
		{"none", []string{base}, ""},
		{"no PATH", nil, ""},
	} {
		if got := hook.TimeoutBin(path(tt.dirs...)); got != tt.want {
			t.Errorf("%s: TimeoutBin = %q, want %q", tt.name, got, tt.want)
		}
	}
}
