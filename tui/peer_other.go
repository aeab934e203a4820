//go:build !linux && !darwin

package tui

import "errors"

// peerUID cannot tell who is at the other end here, so the console
// refuses every connection.
func peerUID(int) (int, error) {
	return -1, errors.New("cannot read a unix socket peer's credentials on this system")
}
