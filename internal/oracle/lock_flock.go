//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package oracle

import (
	"context"
	"os"
	"syscall"
)

// lockParent takes LockFile, shared or exclusive, waiting for it while ctx
// allows.
func lockParent(ctx context.Context, shared bool) (func(), error) {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	f, err := os.OpenFile(LockFile, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- syscall.Flock(int(f.Fd()), how) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, err
		}
		return func() { f.Close() }, nil
	case <-ctx.Done():
		go func() { <-done; f.Close() }()
		return nil, ctx.Err()
	}
}
