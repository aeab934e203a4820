//go:build !unix

package sandbox

import (
	"errors"
	"os"
)

func lockExclusive(f *os.File) error { return errors.ErrUnsupported }

func tryLockExclusive(f *os.File) bool { return false }
