//go:build !unix

package daemon

import (
	"errors"
	"io/fs"
	"os"
)

// ownedDir creates dir (mode) when missing. This system has no unix owners
// and modes to check: the directory's ACL is the administrator's.
func ownedDir(dir string, mode fs.FileMode) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(dir, mode)
	}
	if err == nil && !fi.IsDir() {
		return &UnsafePathError{Path: dir, Problem: "is " + fileKind(fi.Mode()) + ", not a directory"}
	}
	return err
}

// openOwned opens a regular file, refusing anything else (a symlink
// included) before opening it.
func openOwned(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := refuseSpecial(path, flag); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(path, fi.Mode())
		}
		return nil, err
	}
	return f, nil
}
