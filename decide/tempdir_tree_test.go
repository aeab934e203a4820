package decide

import "testing"

// TestSystemTreeOf: a TMPDIR in the system's own trees is refused, the
// shared temp dirs and the per-user ones inside them are not. macOS'
// TMPDIR (/var/folders/xx/…/T/, resolved through the /var ->
// private/var symlink) is taken; its /private/etc and /private/var are
// system trees as /etc and /var are. The paths are resolved ones, as
// SystemTempDir passes them, so this runs on any platform.
func TestSystemTreeOf(t *testing.T) {
	for r, want := range map[string]string{
		"/private/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T":   "",
		"/private/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/x": "",
		"/private/tmp":           "",
		"/private/tmp/u":         "",
		"/private/var/tmp/u":     "",
		"/var/tmp":               "",
		"/var/tmp/u":             "",
		"/dev/shm/u":             "",
		"/run/user/1000":         "",
		"/home/u/tmp":            "",
		"/srv/ci/tmp":            "",
		"/Users/u/tmp":           "",
		"/private/var/folders":   "/private",
		"/private/var/db":        "/private",
		"/private/etc":           "/private",
		"/private":               "/private",
		"/System/Library/Caches": "/System",
		"/Library/Caches":        "/Library",
		"/var/lib/ci/tmp":        "/var",
		"/var/folders/zz/x/T":    "/var",
		"/run/user":              "/run",
		"/opt/ci/tmp":            "/opt",
		"/etc/x":                 "/etc",
		"/usr/local/tmp":         "/usr",
	} {
		if got := systemTreeOf(r); got != want {
			t.Errorf("systemTreeOf(%q) = %q, want %q", r, got, want)
		}
	}
}
