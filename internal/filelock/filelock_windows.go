package filelock

import (
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes LockFileEx on the first byte range of f (the whole range
// a lock file could hold), waiting for it. Locks belong to the handle, so
// two opens exclude each other within one process too; Windows releases
// them when the process exits.
func Lock(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, math.MaxUint32, math.MaxUint32, ol)
}

// Unlock releases the lock Lock took.
func Unlock(f *os.File) {
	ol := new(windows.Overlapped)
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, math.MaxUint32, math.MaxUint32, ol)
}

// TryLock takes an exclusive LockFileEx on f without waiting; held reports
// that another handle holds it.
func TryLock(f *os.File) (held bool, err error) {
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, math.MaxUint32, math.MaxUint32, ol)
	if err == windows.ERROR_LOCK_VIOLATION {
		return true, nil
	}
	return false, err
}
