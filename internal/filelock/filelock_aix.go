package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes a whole-file fcntl(2) lock on f, waiting for it: AIX has
// no flock. fcntl locks belong to the process, so callers that lock in several
// goroutines must also serialize them; the kernel drops them when the process dies.
func Lock(f *os.File, exclusive bool) error {
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0}
	if exclusive {
		lk.Type = unix.F_WRLCK
	}
	for {
		err := unix.FcntlFlock(f.Fd(), unix.F_SETLKW, &lk)
		if err != unix.EINTR {
			return err
		}
	}
}

// Unlock releases the lock Lock took.
func Unlock(f *os.File) {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0}
	_ = unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
}

// TryLock takes an exclusive fcntl(2) lock on f without waiting; held
// reports that another process holds it.
func TryLock(f *os.File) (held bool, err error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	err = unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
	if err == unix.EAGAIN || err == unix.EACCES {
		return true, nil
	}
	return false, err
}
