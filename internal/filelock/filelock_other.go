//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

// Lock fails where there is no file locking (js, wasip1, plan9): a pin
// store without a lock could lose a concurrent writer's pins.
func Lock(*os.File, bool) error {
	return errors.New("file locking is not supported on this system")
}

// Unlock releases the lock Lock took.
func Unlock(*os.File) {}

// TryLock fails where there is no file locking.
func TryLock(*os.File) (bool, error) {
	return false, errors.New("file locking is not supported on this system")
}
