//go:build !linux

package decide

// kernelResolve is Linux-only; elsewhere Canonicalize always walks.
func kernelResolve(abs string) (string, bool) { return "", false }

// searchable is Linux-only; elsewhere the walk does not check "." and "..".
func searchable(dir string) error { return nil }
