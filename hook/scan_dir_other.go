//go:build !linux

package hook

import "os"

// readEntries lists the directory at path (see the Linux version, which
// reads it with getdents64); buf is unused here.
func readEntries(path string, _ []byte, out []entry) ([]entry, error) {
	des, err := os.ReadDir(path)
	for _, de := range des {
		out = append(out, entry{name: de.Name(), typ: de.Type()})
	}
	return out, err
}
