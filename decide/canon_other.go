//go:build !linux

package decide

// kernelResolve is Linux-only; elsewhere Canonicalize always walks.
func kernelResolve(abs string) (string, bool) { return "", false }
