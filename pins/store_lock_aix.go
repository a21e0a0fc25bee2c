package pins

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes a whole-file fcntl(2) lock on f, waiting for it: AIX has
// no flock. fcntl locks belong to the process, so Store also serializes
// its own Updates with a mutex; the kernel drops them when the process dies.
func lockFile(f *os.File, exclusive bool) error {
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

func unlockFile(f *os.File) {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0}
	_ = unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
}

// syncDir fsyncs a directory so that a rename in it survives a crash.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
