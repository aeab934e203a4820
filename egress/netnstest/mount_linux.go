package netnstest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// bindHosts bind-mounts hosts over /etc/hosts until the test ends.
func bindHosts(t testing.TB, hosts string) {
	if err := unix.Mount(hosts, "/etc/hosts", "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind-mounting the test's hosts file: %v", err)
	}
	t.Cleanup(func() { unix.Unmount("/etc/hosts", unix.MNT_DETACH) })
}
