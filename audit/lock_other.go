//go:build !unix

package audit

import (
	"errors"
	"os"
	"runtime"
	"time"
)

// lockWait is unused where locking is not supported.
var lockWait time.Duration

type heldError struct{ name string }

func (e *heldError) Error() string { return e.name }

var errPlatform = errors.New("audit log locking is not supported on " + runtime.GOOS)

func lockShared(*os.File, time.Time) error    { return errPlatform }
func lockExclusive(*os.File, time.Time) error { return errPlatform }
func tryLockShared(*os.File) (bool, error)    { return false, errPlatform }
func unlock(*os.File) error                   { return errPlatform }
func tryLockExclusive(*os.File) (bool, error) { return false, errPlatform }
func writeOnce(*os.File, []byte) error        { return errPlatform }
