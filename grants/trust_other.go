//go:build !unix

package grants

import (
	"fmt"
	"io/fs"
	"runtime"
)

const openNoFollow = 0

// ours cannot tell who owns a file here, so no session file is trusted.
func ours(name string, fi fs.FileInfo) error {
	return fmt.Errorf("%w: cannot check the owner of %s on %s", ErrUntrusted, name, runtime.GOOS)
}

// ownedByMe cannot tell here; nothing is taken as ours.
func ownedByMe(fs.FileInfo) bool { return false }
