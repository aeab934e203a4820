//go:build !unix

package audit

import (
	"errors"
	"os"
	"runtime"
)

var errPlatform = errors.New("audit log locking is not supported on " + runtime.GOOS)

func lockShared(*os.File) error               { return errPlatform }
func lockExclusive(*os.File) error            { return errPlatform }
func unlock(*os.File) error                   { return errPlatform }
func tryLockExclusive(*os.File) (bool, error) { return false, errPlatform }
func writeOnce(*os.File, []byte) error        { return errPlatform }
