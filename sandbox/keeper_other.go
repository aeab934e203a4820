//go:build !linux

package sandbox

import (
	"fmt"
	"io"
)

// Keep refuses on this platform: the keeper needs inotify.
func Keep(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "picket: error: %v\n", unsupported())
	return 126
}

func askKeeper(dir, key string, req keeperRequest) (keeperReply, bool) { return keeperReply{}, false }

func ask(dir, key string, req keeperRequest) (rep keeperReply, ok, running bool) {
	return keeperReply{}, false, false
}

func startKeeper(exe, dir, key string, spec walkSpec, running bool) {}

func sockName(dir string) string { return "" }

func keeperRuns(lock string) bool { return false }
