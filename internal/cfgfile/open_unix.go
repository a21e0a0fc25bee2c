//go:build unix

package cfgfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openFile opens path for reading without blocking: a FIFO or device
// opens at once, and read refuses it after fstat.
func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// blocking clears O_NONBLOCK on a regular file before it is read.
func blocking(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

// foreignFile says why the opened file fi must not be read for the user
// uid: it is neither hers nor readable by everyone. Group read rights are
// not counted (they depend on her groups); "" when it may be read.
func foreignFile(fi fs.FileInfo, uid int) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if int(st.Uid) == uid || fi.Mode().Perm()&0o004 != 0 {
		return ""
	}
	return fmt.Sprintf("leads to a file owned by uid %d that the home's owner (uid %d) cannot read; not read on her behalf", st.Uid, uid)
}

// ownerOf is the uid owning fi.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
