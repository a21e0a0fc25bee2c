//go:build unix && !aix

package pins

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes flock(2) on f, waiting for it. flock locks belong to the
// open file description, so two opens of the lock file exclude each other
// even within one process, and the kernel drops the lock when the process
// dies: a crashed proxy never leaves the store locked.
func lockFile(f *os.File, exclusive bool) error {
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

func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// syncDir fsyncs a directory so that a rename in it survives a crash.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
