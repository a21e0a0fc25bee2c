//go:build unix

package proxy

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE keeps a write to a client that stopped reading from ending
// the proxy: Go's runtime ends a program that writes to a broken fd 1 or 2
// with SIGPIPE unless the signal is notified, and the proxy would die
// without ending the server's group. Notified, the write fails with EPIPE
// and the session ends as on any write error. The returned func restores
// the default.
func catchSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1) // never read: Notify does not block
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
