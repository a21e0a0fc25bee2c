//go:build unix && !aix

package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes flock(2) on f, waiting for it. flock locks belong to the
// open file description, so two opens of the lock file exclude each other
// even within one process, and the kernel drops the lock when the process
// dies: a crashed proxy never leaves the store locked.
func Lock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// Unlock releases the lock Lock took.
func Unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// TryLock takes an exclusive flock(2) on f without waiting; held reports
// that another open file description holds it.
func TryLock(f *os.File) (held bool, err error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return false, nil
		case unix.EWOULDBLOCK:
			return true, nil
		case unix.EINTR:
			continue
		}
		return false, err
	}
}
