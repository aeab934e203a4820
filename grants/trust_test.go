package grants

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestUntrustedStateIgnored: a grant is honoured only from a regular file
// owned by the effective uid and writable by it alone, in a Dir that is not
// a symlink, owned by us and writable by us alone. Anything else is ignored
// with a warning (Has fails closed), and a FIFO planted as the session file
// does not stall the lookup.
func TestUntrustedStateIgnored(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, s Store, file string)
		// tightened: a write makes the directory, ours but too open,
		// 0700 again, and then trusts the files in it that are ours.
		tightened bool
	}{
		{"file mode 0666", func(t *testing.T, s Store, file string) { chmod(t, file, 0o666) }, false},
		{"file mode 0620", func(t *testing.T, s Store, file string) { chmod(t, file, 0o620) }, false},
		{"dir mode 0777", func(t *testing.T, s Store, file string) { chmod(t, s.Dir, 0o777) }, true},
		{"dir mode 0770", func(t *testing.T, s Store, file string) { chmod(t, s.Dir, 0o770) }, true},
		{"file is a symlink", func(t *testing.T, s Store, file string) {
			other := filepath.Join(s.Dir, "other.json")
			os.Rename(file, other)
			os.Symlink(other, file)
		}, false},
		{"dir is a symlink", func(t *testing.T, s Store, file string) {
			real := s.Dir + ".real"
			os.Rename(s.Dir, real)
			os.Symlink(real, s.Dir)
		}, false},
		{"file is a FIFO", func(t *testing.T, s Store, file string) {
			os.Remove(file)
			if err := syscall.Mkfifo(file, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, false},
		{"file owned by another uid", func(t *testing.T, s Store, file string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			if err := os.Chown(file, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"dir owned by another uid", func(t *testing.T, s Store, file string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			if err := os.Chown(s.Dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := store(t)
			var warned []error
			s.Warn = func(err error) { warned = append(warned, err) }
			if err := s.Add("s", Grant{Access: "read", Path: "/a"}); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Has("s", "read", "/a"); !ok || err != nil {
				t.Fatalf("Has before tampering = %v, %v; want true", ok, err)
			}
			tt.tamper(t, s, filepath.Join(s.Dir, "s.json"))
			done := make(chan struct{})
			var ok bool
			var err error
			go func() { ok, err = s.Has("s", "read", "/a"); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Has stalled")
			}
			if ok || !errors.Is(err, ErrUntrusted) || len(warned) != 1 {
				t.Errorf("Has = %v, %v (warned %v); want false, ErrUntrusted and one warning", ok, err, warned)
			}
			_, err = s.NoteDenial("s", "t", Denial{Access: "read", Path: "/b"}, 3)
			switch {
			case tt.tightened:
				fi, serr := os.Stat(s.Dir)
				if err != nil || serr != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("NoteDenial in a directory of ours that is too open: %v; want it tightened to 0700 and used", err)
				}
			case err == nil:
				t.Errorf("NoteDenial over untrusted state succeeded")
			}
		})
	}
}

func chmod(t *testing.T, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}
