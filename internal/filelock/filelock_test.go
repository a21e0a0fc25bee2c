//go:build unix || windows

package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTryLockExcludes: a second open of the lock file cannot take the lock
// while the first holds it, and can once it is released.
func TestTryLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if held, err := TryLock(a); held || err != nil {
		t.Fatalf("first TryLock: held %v, err %v", held, err)
	}
	if held, err := TryLock(b); !held || err != nil {
		t.Fatalf("second TryLock while the first holds it: held %v, err %v", held, err)
	}
	Unlock(a)
	if held, err := TryLock(b); held || err != nil {
		t.Fatalf("TryLock after Unlock: held %v, err %v", held, err)
	}
	Unlock(b)
	if err := Lock(a, false); err != nil {
		t.Fatalf("shared Lock: %v", err)
	}
	if held, _ := TryLock(b); !held {
		t.Error("exclusive TryLock succeeded beside a shared lock")
	}
}
