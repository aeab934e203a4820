//go:build !linux

package netnstest

import "testing"

// bindHosts fails: network and mount namespaces are Linux only. The
// package builds elsewhere so that the tests importing it compile (CI
// builds and vets picket for macOS).
func bindHosts(t testing.TB, hosts string) {
	t.Fatalf("netnstest needs Linux (network and mount namespaces)")
}
