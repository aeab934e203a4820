//go:build !linux

package sandbox

// procStart is Linux only, as the sandbox is.
func procStart(pid int) (uint64, bool) { return 0, false }
