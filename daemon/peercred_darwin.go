package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

const peerCredentialsSupported = true

// peerOf reads the connecting process's uid (LOCAL_PEERCRED).
func peerOf(c net.Conn) (peer, bool) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return peer{}, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return peer{}, false
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED) }); err != nil || cerr != nil {
		return peer{}, false
	}
	return peer{uid: int(cred.Uid)}, true
}
