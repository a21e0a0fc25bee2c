package daemon

import (
	"io/fs"
	"syscall"
	"time"
)

// sysSig fills the device, inode and change time: a file replaced by a
// rename has a new inode; a rewrite within one mtime tick moves ctime.
func sysSig(fi fs.FileInfo, s *fileSig) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), uint64(st.Ino)
		s.ctime = time.Unix(st.Ctimespec.Unix())
	}
}

// fileUID returns the owner of a file.
func fileUID(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
